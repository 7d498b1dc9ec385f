import Foundation

/// Adding a store: one family, three ways to wait for it.
///
/// | Call | Waits | Progress |
/// | --- | --- | --- |
/// | ``addStorageAndWait(_:)`` | blocks the main actor | none |
/// | ``addStorage(_:progress:)`` | `await` | an optional closure |
/// | ``addStorage(_:completion:)`` | a completion on the main actor | a Foundation `Progress` |
///
/// Each opens the store (creating it if needed), migrates it when it holds an
/// older version of ``schemaHistory``, and makes it the stack's store; each
/// throws (or completes with) the same errors.
extension DataStack {
    /// Opens `storage` on the main actor, migrating it when needed, makes it
    /// the stack's store, and returns it. Best for tests, tools and small stores.
    ///
    /// ```swift
    /// try stack.addStorageAndWait(SQLiteStore(fileName: "zoo.sqlite"))
    /// ```
    ///
    /// - Throws: ``StrataError/invalidSchema(entity:field:reason:)`` for a schema
    ///   mistake, ``StrataError/invalidMigrationChain(reason:)`` for a history mistake,
    ///   ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``
    ///   or ``StrataError/progressiveMigrationPrevented(path:versions:)`` when a
    ///   migration cannot run, ``StrataError/migrationStepThrew(sourceVersion:destinationVersion:entity:error:)``
    ///   when a custom transformer or a stage hook throws (the store is then unchanged),
    ///   ``StrataError/notADatabase(path:reason:)`` for a file that is not a
    ///   usable database, ``StrataError/schemaMismatch(path:storeVersion:schemaVersion:)``
    ///   when the store holds another schema, ``StrataError/storage(path:reason:)``
    ///   when the file cannot be created or opened, or when the stack already has
    ///   another store of the configuration. Adding the store the stack has
    ///   again (the same file, in-memory store or server store, opened alike)
    ///   changes nothing and throws nothing, as in CoreStore.
    @MainActor
    @discardableResult
    public func addStorageAndWait<Storage: StorageInterface>(_ storage: Storage) throws(StrataError) -> Storage {
        try addStorageNow(storage)
        return storage
    }

    /// Opens the default store, `SQLiteStore()` (`<program name>.sqlite` in
    /// ``SQLiteStore/defaultDirectory``), as CoreStore's argument-less form
    /// does, and returns it.
    ///
    /// ```swift
    /// let stack = DataStack(schema)
    /// try stack.addStorageAndWait()
    /// ```
    ///
    /// - Throws: the errors of ``addStorageAndWait(_:)``.
    @MainActor
    @discardableResult
    public func addStorageAndWait() throws(StrataError) -> SQLiteStore {
        try addStorageAndWait(SQLiteStore())
    }

    /// Opens a default `SQLiteStore()`, as CoreStore's
    /// `addStorageAndWait(SQLiteStore.self)` does, and returns it.
    ///
    /// ```swift
    /// try stack.addStorageAndWait(SQLiteStore.self)
    /// ```
    ///
    /// - Throws: the errors of ``addStorageAndWait(_:)``.
    @MainActor
    @discardableResult
    public func addStorageAndWait(_ type: SQLiteStore.Type) throws(StrataError) -> SQLiteStore {
        try addStorageAndWait(SQLiteStore())
    }

    /// Opens a new, empty `InMemoryStore()`, as CoreStore's
    /// `addStorageAndWait(InMemoryStore.self)` does, and returns it.
    ///
    /// - Throws: the errors of ``addStorageAndWait(_:)``.
    @MainActor
    @discardableResult
    public func addStorageAndWait(_ type: InMemoryStore.Type) throws(StrataError) -> InMemoryStore {
        try addStorageAndWait(InMemoryStore())
    }

    /// Opens `storage` off the main actor, migrating it when needed, and makes
    /// it the stack's store; `progress`, when given, is told as a migration
    /// advances (on the opening thread) and once at the end.
    ///
    /// ```swift
    /// try await stack.addStorage(SQLiteStore(fileName: "zoo.sqlite"))
    /// try await stack.addStorage(SQLiteStore(fileName: "big.sqlite")) { update in
    ///     if case .migrating(let step, let fraction) = update { print(step, fraction) }
    /// }
    /// ```
    ///
    /// - Throws: the errors of ``addStorageAndWait(_:)``.
    @MainActor
    public func addStorage(
        _ storage: some StorageInterface,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) async throws(StrataError) {
        try await addStorageOffMain(storage, reporting: progress)
    }

    /// Starts adding `storage` off the main actor and returns its progress as
    /// a Foundation `Progress` (100 units, complete once the store is open);
    /// `completion` runs on the main actor with the store, or the error that
    /// kept it from opening. CoreStore's callback form.
    ///
    /// ```swift
    /// let progress = stack.addStorage(SQLiteStore(fileName: "zoo.sqlite")) { result in
    ///     switch result {
    ///     case .success: showContent()
    ///     case .failure(let error): show(error)
    ///     }
    /// }
    /// observe(progress.fractionCompleted)
    /// ```
    @MainActor
    @discardableResult
    public func addStorage<Storage: StorageInterface>(
        _ storage: Storage,
        completion: @escaping @MainActor (Result<Storage, StrataError>) -> Void
    ) -> Progress {
        let progress = Progress(totalUnitCount: 100)
        let box = ProgressBox(progress)
        Task { @MainActor in
            do throws(StrataError) {
                try await self.addStorageOffMain(storage) { box.record($0) }
                completion(.success(storage))
            } catch {
                completion(.failure(error))
            }
        }
        return progress
    }
}

/// What adding a store would migrate, and migrating a store without adding
/// it, CoreStore's `upgradeStorageIfNeeded`: for a tool that upgrades files
/// ahead of time, or an app that migrates a store it opens later.
extension DataStack {
    /// The migration steps adding `storage` would run, in order, without running
    /// them or changing the store: `[]` when it does not exist yet, is empty, or
    /// already holds the current version.
    ///
    /// - Throws: ``StrataError/invalidMigrationChain(reason:)`` for a wrong history,
    ///   ``StrataError/schemaMismatch(path:storeVersion:schemaVersion:)`` when the
    ///   store holds no version of the history (or none with a path to the current
    ///   one), ``StrataError/progressiveMigrationPrevented(path:versions:)`` when
    ///   the path has several steps and `storage` has
    ///   ``LocalStorageOptions/preventProgressiveMigration`` (adding it would throw
    ///   the same), ``StrataError/migrationFailed(sourceVersion:destinationVersion:entity:field:reason:)``
    ///   for a step whose mapping cannot be made or whose columns inference refuses
    ///   (refusals that depend on the rows come only when the step runs), and the
    ///   errors of ``addStorageAndWait(_:)`` for a file that is not a store.
    public func requiredMigrations(
        for storage: some StorageInterface
    ) throws(StrataError) -> [MigrationStep] {
        try StrataError.catching {
            try StoreOpener(settings: storage.settings, history: schemaHistory).requiredMigrations()
        }
    }

    /// CoreStore's name for ``requiredMigrations(for:)``: the same steps,
    /// each saying whether it is a heavyweight migration
    /// (``MigrationStep/isHeavyweightMigration``).
    ///
    /// ```swift
    /// let steps = try stack.requiredMigrationsForStorage(SQLiteStore(fileName: "App.sqlite"))
    /// ```
    ///
    /// - Throws: what ``requiredMigrations(for:)`` throws.
    public func requiredMigrationsForStorage(
        _ storage: some StorageInterface
    ) throws(StrataError) -> [MigrationStep] {
        try requiredMigrations(for: storage)
    }

    /// Migrates `storage` to the current version of ``schemaHistory`` off the
    /// main actor, as adding it would, and closes it again: the stack does
    /// not add it. Returns the steps that ran: none for a missing or empty
    /// store, or one at the current version already (left untouched).
    /// `progress`, when given, is told as the migration advances.
    ///
    /// ```swift
    /// let steps = try await stack.upgradeStorageIfNeeded(SQLiteStore(fileName: "zoo.sqlite"))
    /// print("ran \(steps.count) migration steps")
    /// ```
    ///
    /// - Throws: the errors of ``requiredMigrations(for:)``, then those of a
    ///   migration that fails as ``addStorageAndWait(_:)`` throws them (the
    ///   store is then unchanged).
    @MainActor
    @discardableResult
    public func upgradeStorageIfNeeded(
        _ storage: some StorageInterface,
        progress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) async throws(StrataError) -> [MigrationStep] {
        var opener = StoreOpener(settings: storage.settings, history: schemaHistory)
        opener.progress = progress
        return try await StrataError.catching { try await Self.upgrade(opener) }
    }

    /// CoreStore's callback form of ``upgradeStorageIfNeeded(_:progress:)``:
    /// `nil` when the store needs no migration (`completion` then gets `[]`),
    /// else the migration's progress (100 units); `completion` runs on the
    /// main actor with the steps that ran, or the error that stopped them.
    ///
    /// - Throws: the errors of ``requiredMigrations(for:)``, before anything runs.
    @MainActor
    @discardableResult
    public func upgradeStorageIfNeeded(
        _ storage: some StorageInterface,
        completion: @escaping @MainActor (Result<[MigrationStep], StrataError>) -> Void
    ) throws(StrataError) -> Progress? {
        guard !(try requiredMigrations(for: storage)).isEmpty else {
            Task { @MainActor in completion(.success([])) }
            return nil
        }
        let progress = Progress(totalUnitCount: 100)
        let box = ProgressBox(progress)
        Task { @MainActor in
            do throws(StrataError) {
                completion(.success(try await self.upgradeStorageIfNeeded(storage) { box.record($0) }))
            } catch {
                completion(.failure(error))
            }
        }
        return progress
    }

    /// Opens the store (migrating it) when it needs a migration, and closes it.
    private static func upgrade(_ opener: StoreOpener) async throws -> [MigrationStep] {
        guard !(try opener.requiredMigrations()).isEmpty else { return [] }
        let (store, reader, steps) = try opener.open()
        reader.close()
        store.gate.close()
        return steps
    }
}

/// Moves progress values into a Foundation `Progress`, and tells its
/// handler (``Foundation/Progress/setProgressHandler(_:)``) of each change.
///
/// `@unchecked Sendable`: Foundation's `Progress` is thread-safe; the box only
/// forwards values to it.
private final class ProgressBox: @unchecked Sendable {
    private let told: ProgressHandlers.Told
    private var progress: Progress { told.progress }

    init(_ progress: Progress) {
        told = ProgressHandlers.Told(progress)
    }

    func record(_ update: MigrationProgress) {
        let completed: Int64
        switch update {
        case .migrating(_, let fraction): completed = Int64((fraction * 99).rounded(.down))
        case .finished: completed = 100
        }
        guard completed != progress.completedUnitCount else { return }
        progress.completedUnitCount = completed
        told.tellOnMainQueue()
    }
}
