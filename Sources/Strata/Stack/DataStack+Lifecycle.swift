import Foundation

/// A store's life in a stack: asking what is added, removing it, replacing
/// or resetting its file, and a ready-made in-memory stack for previews and tests.
extension DataStack {
    /// Whether a store is added.
    public var hasStore: Bool { (try? store()) != nil }

    /// The file of the added store (the default configuration's, when the
    /// stack has several); `nil` when none is added or it is an ``InMemoryStore``.
    public var storeURL: URL? {
        guard let store = try? store(), case .file(let url) = store.settings.location else { return nil }
        return url
    }

    /// The configurations of the stores added, in store order: `nil` for
    /// the default configuration's store first, then the named ones by name.
    public var storeConfigurations: [String?] {
        ((try? stores()) ?? []).map(\.settings.configuration)
    }

    /// Removes every store from the stack and closes their connections, once a
    /// running transaction has given the writer back. Monitors and
    /// publishers stop following it (change-set streams and publishers'
    /// `snapshots` end, field observations become inactive); objects keep
    /// the values they hold, and reads and transactions throw
    /// ``StrataError/storeNotAdded`` until a store is added again. What this
    /// stack committed is merged first; every transaction completion is still
    /// called, those of transactions that had not yet read or written the
    /// store with ``StrataError/storeNotAdded``. (To swap
    /// the file under monitors and publishers that go on following it, use
    /// ``replaceStore(withContentsOf:)`` or ``resetStore(backingUpTo:)``.)
    ///
    /// ```swift
    /// try stack.removeStorage()
    /// try SQLiteStore(fileName: "zoo.sqlite").deleteFiles()
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded`` when none is added;
    ///   ``StrataError/storage(path:reason:)`` when a transaction on the
    ///   calling thread (an unsafe one) still holds the store.
    @MainActor
    public func removeStorage() throws(StrataError) {
        for store in try uninstall() { store.gate.close() }
    }

    /// CoreStore's name for ``removeStorage()``, which cannot fail there:
    /// removes every store, and does nothing when none is added. A failure
    /// (a transaction on the calling thread still holds the store) is logged.
    ///
    /// ```swift
    /// stack.unsafeRemoveAllPersistentStoresAndWait()
    /// ```
    @MainActor
    public func unsafeRemoveAllPersistentStoresAndWait() {
        do throws(StrataError) {
            try removeStorage()
        } catch .storeNotAdded {
            return
        } catch {
            StrataLog.warning(.storage, "the stores could not be removed: \(error)")
        }
    }

    /// CoreStore's callback form of ``unsafeRemoveAllPersistentStoresAndWait()``:
    /// removes every store, then calls `completion` on the main actor.
    @MainActor
    public func unsafeRemoveAllPersistentStores(completion: @escaping @MainActor () -> Void = {}) {
        unsafeRemoveAllPersistentStoresAndWait()
        Task { @MainActor in completion() }
    }

    /// Replaces the added store's file (the default configuration's, when
    /// the stack has several) with a copy of the store at `source`
    /// (another Strata store of a version in ``schemaHistory``, say a backup
    /// made by ``exportStore(to:)``), migrating it when it holds an older
    /// version. The copy is a consistent snapshot (`VACUUM INTO`), so
    /// `source` may be in use. If `source` is not such a store, or the
    /// replacement fails on the way, the stack keeps its current store,
    /// unchanged. Do it while no other stack or process has the added
    /// store's file open.
    ///
    /// What watched the store goes on, with the new file's contents, as
    /// after any change the commit log cannot describe (a refresh): list
    /// monitors re-fetch (`listMonitorWillRefetch` / `listMonitorDidRefetch`),
    /// an object monitor reports its object's changed fields, or its
    /// deletion when the new file has no row of its ID; publishers publish
    /// anew; objects held from the main context take their row's values or
    /// become deleted. All of them then follow every later commit. The new
    /// file's history starts after the stack's last generation, which goes
    /// on growing.
    ///
    /// Transactions waiting for the writer go on, on the new file: a
    /// transaction works on the store the stack has when it first reads or
    /// writes. The replacement waits for one that has read or written already
    /// (it commits or fails on the old file, which then goes); every other
    /// one, queued or begun but not yet at the store, waits for the
    /// replacement and then runs on the new file, as one asked for after it
    /// would. The exception: a ``perform(synchronous:waitForAllObservers:author:isolation:)``
    /// asked for on the main actor while the replacement runs (from a
    /// completion it calls first) throws ``StrataError/storeNotAdded``
    /// rather than wait for itself. Observers hear of the new contents once
    /// the replacement is over, and may commit from there.
    ///
    /// ```swift
    /// try stack.replaceStore(withContentsOf: downloadedBackup)
    /// ```
    ///
    /// - Throws: ``StrataError/storage(path:reason:)`` when the added store is
    ///   in memory or on a server, or the copy fails; the errors of ``addStorageAndWait(_:)``
    ///   for a `source` that cannot be opened as a store of this history.
    @MainActor
    public func replaceStore(withContentsOf source: URL) throws(StrataError) {
        let current = try store()
        guard case .file(let url) = current.settings.location else {
            throw .storage(path: current.path, reason: "a store in memory or on a server has no file to replace")
        }
        // Refused before anything changes: a file that is not a store of this
        // history, checked as a store of the configuration it will be.
        let configuration = current.settings.configuration
        _ = try requiredMigrations(
            for: SQLiteStore(fileURL: source, configuration: configuration, isReadOnly: true))
        let copy = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).incoming")
        let old = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).replaced")
        try? SQLiteStore(fileURL: copy).deleteFiles()
        try? SQLiteStore(fileURL: old).deleteFiles()
        try Self.snapshot(source, to: copy)
        let settings = current.settings
        let main = try detach(current)
        defer { finishSwap(of: current, main) }
        do {
            try Self.moveStoreFiles(from: url, to: old)
            try FileManager.default.moveItem(at: copy, to: url)
            try reopen(settings, following: main)
            try? SQLiteStore(fileURL: old).deleteFiles()
        } catch {
            // Put the old file back and reopen it.
            try? SQLiteStore(fileURL: url).deleteFiles()
            try? Self.moveStoreFiles(from: old, to: url)
            try? SQLiteStore(fileURL: copy).deleteFiles()
            try reopen(settings, following: main)
            // A file that would not move is a storage problem, not the caller's error.
            throw error as? StrataError
                ?? .storage(
                    path: url.path, reason: "cannot replace the file: \(error.localizedDescription)")
        }
    }

    /// Empties the added store (the default configuration's, when the stack
    /// has several) by recreating it, after writing a copy of it to
    /// `backup` when one is given (see ``exportStore(to:)``). Like a wipe,
    /// but the file starts over: its history and row IDs start again (a
    /// store on a server has its tables dropped and created again). Do it
    /// while no other stack or process has the store open; for a store
    /// others share, use ``wipeAllData(waitForAllObservers:author:isolation:)``.
    ///
    /// What watched the store goes on, as after a refresh (see
    /// ``replaceStore(withContentsOf:)``): list monitors re-fetch and show
    /// nothing, object monitors report their object deleted, publishers
    /// publish anew, held objects become deleted; all of them then follow
    /// every later commit. A new row is another object even where its ID is
    /// an old one's. The generation goes on growing.
    ///
    /// Transactions waiting for the writer go on, on the new, empty store, as
    /// after ``replaceStore(withContentsOf:)``: one that has read or written
    /// already finishes first, on the old store; every other one runs on the
    /// new store.
    ///
    /// ```swift
    /// try stack.resetStore(backingUpTo: backupsFolder.appendingPathComponent("before-reset.sqlite"))
    /// ```
    ///
    /// - Throws: the errors of ``exportStore(to:)`` (nothing is reset then),
    ///   ``removeStorage()`` and ``addStorageAndWait(_:)``.
    @MainActor
    public func resetStore(backingUpTo backup: URL? = nil) throws(StrataError) {
        if let backup { try exportStore(to: backup) }
        let current = try store()
        let settings = current.settings
        let main = try detach(current)
        defer { finishSwap(of: current, main) }
        switch settings.location {
        case .file(let url):
            do throws(StrataError) {
                try SQLiteStore(fileURL: url).deleteFiles()
            } catch {
                try reopen(settings, following: main)
                throw error
            }
            try reopen(settings, following: main)
        case .memory:
            // Its files went with its last connection.
            try reopen(settings, following: main)
        case .server:
            // Its tables are dropped and created again as it opens.
            try reopen(settings, following: main, recreating: true)
        }
    }

    /// A stack on a new, empty ``InMemoryStore``, filled by `seed` in one
    /// transaction: one call for previews, samples and tests.
    ///
    /// ```swift
    /// let stack = try DataStack.inMemory(schema) { tx in
    ///     tx.create(Into<Person>()).name = "Ann"
    /// }
    /// ```
    ///
    /// - Throws: the errors of ``addStorageAndWait(_:)`` and of the seeding
    ///   transaction (an error of your own `seed` threw comes back as
    ///   ``StrataError/userError(_:)``, as from ``perform(synchronous:waitForAllObservers:author:isolation:)``).
    @MainActor
    public static func inMemory(
        _ schema: Schema, seed: (SynchronousDataTransaction) throws -> Void = { _ in }
    ) throws(StrataError) -> DataStack {
        let stack = DataStack(schema)
        try stack.addStorageAndWait(InMemoryStore())
        try stack.perform(synchronous: { tx in try seed(tx) })
        return stack
    }

    /// Opens the store of `settings` again, its file replaced or reset,
    /// under `main`, the main context ``detach(_:)`` kept; when it cannot
    /// be opened, ``finishSwap(of:_:)`` closes `main` as ``removeStorage()``
    /// would close it.
    @MainActor
    private func reopen(
        _ settings: StoreSettings, following main: MainContext, recreating: Bool = false
    ) throws(StrataError) {
        try addStorageNow(ReopenedStore(settings: settings), following: main, recreating: recreating)
    }

    /// Moves the store file at `source` to `destination` with its `-wal` and
    /// `-shm`, those that exist: the WAL can hold commits the file has not
    /// taken in yet (the connection closed last, the main context's reader,
    /// cannot fold it in), and a file put back without it would lose them.
    private static func moveStoreFiles(from source: URL, to destination: URL) throws {
        let manager = FileManager.default
        let moves = zip(SQLiteStore(fileURL: source).fileURLs, SQLiteStore(fileURL: destination).fileURLs)
        for (from, to) in moves where manager.fileExists(atPath: from.path) {
            try manager.moveItem(at: from, to: to)
        }
    }

    /// A consistent copy of the store at `source`, written to `destination`.
    private static func snapshot(_ source: URL, to destination: URL) throws(StrataError) {
        do {
            let connection = try Connection(path: source.path, readOnly: true, create: false)
            defer { connection.close() }
            try connection.run("VACUUM INTO ?", [.text(destination.path)])
        } catch {
            throw .storage(path: source.path, reason: "cannot copy the store: \(error)")
        }
    }
}

/// A store added again with the configuration it was added with.
private struct ReopenedStore: StorageInterface {
    let settings: StoreSettings
}
