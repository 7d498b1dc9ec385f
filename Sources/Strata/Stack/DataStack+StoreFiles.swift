import Foundation

extension DataStack {
    /// Writes a consistent copy of the store, as of its last commit, to a new
    /// file at `url` (SQLite's `VACUUM INTO`). Transactions may run meanwhile.
    ///
    /// ```swift
    /// try stack.exportStore(to: backupFolder.appendingPathComponent("zoo-backup.sqlite"))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or ``StrataError/storage(path:reason:)``
    ///   when the copy cannot be written (for example, a file already exists at
    ///   `url`, or `url` is not a file URL), or the store is on a server
    ///   (PostgreSQL: use `pg_dump`).
    public func exportStore(to url: URL) throws(StrataError) {
        let store = try store()
        if store.settings.server != nil {
            throw .storage(
                path: store.path,
                reason: "a server store cannot be exported to a file; use the server's own tools (pg_dump)")
        }
        try SQLiteStore.checkFileURL(url)
        if FileManager.default.fileExists(atPath: url.path) {
            throw .storage(path: url.path, reason: "a file already exists there")
        }
        do {
            let connection = try store.settings.openConnection(.inspector, create: false)
            defer { connection.close() }
            try connection.run("VACUUM INTO ?", [.text(url.path)])
        } catch {
            throw .storage(path: url.path, reason: "cannot export the store: \(error)")
        }
    }

    /// Deletes every object of every entity in one transaction per store, and
    /// returns how many were deleted.
    ///
    /// Each table is emptied by one `DELETE FROM`, at the speed of SQLite's
    /// truncate shortcut, without reading a row. The commit records each
    /// emptied entity as cleared (``CommitChanges/clearedEntityNames``)
    /// instead of listing its rows: every stack following the store marks
    /// the objects it holds of those entities deleted, and its monitors
    /// report them deleted (a list re-fetches and reports the difference).
    /// Row IDs are not reused after a wipe. `waitForAllObservers` is
    /// ``perform(synchronous:waitForAllObservers:author:isolation:)``'s: by
    /// default this returns once observers were told.
    ///
    /// ```swift
    /// try stack.wipeAllData()   // a sync reset
    /// ```
    ///
    /// - Throws: the errors of ``perform(synchronous:waitForAllObservers:author:isolation:)``.
    @discardableResult
    public func wipeAllData(
        waitForAllObservers: Bool = true, author: String? = nil, isolation: isolated (any Actor)? = #isolation
    ) throws(StrataError) -> Int {
        // A transaction commits in one store: one per store.
        var count = 0
        for index in try stores().indices {
            count += try perform(
                synchronous: { tx in try tx.contexts.all[index].clearAllRows() },
                waitForAllObservers: waitForAllObservers, author: author, isolation: isolation)
        }
        return count
    }
}
