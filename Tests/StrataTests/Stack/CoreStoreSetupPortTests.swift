import Foundation
import Testing

@testable import Strata

/// CoreStore's `SetupTests`, ported on the configuration tests' model
/// (``configurationSchema``, after CoreStore's test model: "Config1" and
/// "Config2" beside the default configuration).
///
/// Not ported: the Core Data plumbing CoreStore checks (the coordinator's
/// model, the root saving and main contexts and their parents), which
/// Strata has none of; `persistentStoreForStorage` and
/// `matchesPersistentStore`, internal look-ups of an `NSPersistentStore`,
/// whose counterpart here is what the stack answers about its stores; the
/// metadata and model hint given to `cs_eraseStorageAndWait` (Strata's
/// ``SQLiteStore/deleteFiles()`` needs neither); and the `SQLiteStore.legacy`
/// tests, for an older default folder of CoreStore's.
@MainActor
@Suite("CoreStore port: setting up stacks and stores")
struct CoreStoreSetupPortTests {
    // MARK: Stacks

    /// `test_ThatDataStacks_ConfigureCorrectly`, first half: a stack of one
    /// schema has a history of that schema and an empty, valid chain.
    @Test
    func aStackOfOneSchemaHasAnEmptyValidChain() throws {
        let history = SchemaHistory(configurationSchema)
        let stack = DataStack(schemaHistory: history)
        #expect(stack.schemaHistory.schemas.map(\.fingerprint) == [configurationSchema.fingerprint])
        #expect(stack.schemaHistory.currentSchema.fingerprint == configurationSchema.fingerprint)
        #expect(stack.schema.fingerprint == configurationSchema.fingerprint)
        #expect(stack.modelVersion == configurationSchema.version)
        let chain = stack.schemaHistory.chain
        #expect(chain.isValid)
        #expect(chain.isEmpty)
        #expect(chain.versions.isEmpty, "no root version")
        #expect(chain.leaves.isEmpty, "no leaf version")
        try stack.schemaHistory.validate()
        #expect(!stack.hasStore)
        #expect(stack.storeConfigurations.isEmpty)
    }

    /// `test_ThatDataStacks_ConfigureCorrectly`, second half: a chain whose
    /// first versions the history lacks. The stack's version is the chain's
    /// last and the chain is kept as given, as in CoreStore; but where
    /// CoreStore logs a warning and goes on, Strata refuses the history when
    /// a store is added, and opens nothing (a documented difference,
    /// ComingFromCoreStore.md, "A chain naming a version the history lacks
    /// is refused").
    @Test(arguments: StoreKind.sqlite)
    func aChainNamingVersionsTheHistoryLacksIsRefusedWhenAStoreIsAdded(kind: StoreKind) throws {
        let version = configurationSchema.version
        let migrationChain = MigrationChain(["version1", "version2", "version3", version])
        let stack = DataStack(schemaHistory: SchemaHistory([configurationSchema], chain: migrationChain))
        #expect(stack.modelVersion == version)
        #expect(stack.schemaHistory.chain == migrationChain)

        let refused: (StrataError) -> Bool = {
            guard case .invalidMigrationChain(let reason) = $0 else { return false }
            return reason.contains("the chain names version1, which is not a version of the history")
        }
        let validation = #expect(throws: StrataError.self) { try stack.schemaHistory.validate() }
        #expect(validation.map(refused) == true, "\(String(describing: validation))")

        let directory = TemporaryDirectory()
        let storage = try makeStorage(kind, in: directory)
        let forecast = #expect(throws: StrataError.self) { try stack.requiredMigrations(for: storage) }
        #expect(forecast.map(refused) == true, "\(String(describing: forecast))")
        let adding = #expect(throws: StrataError.self) { try stack.addStorageAndWait(storage) }
        #expect(adding.map(refused) == true, "\(String(describing: adding))")
        #expect(!stack.hasStore)
        #expect(!FileManager.default.fileExists(atPath: storeURL(in: directory).path),
                "nothing is opened, so no file is made")
    }

    // MARK: Stores of each configuration

    /// `test_ThatInMemoryStores_SetupCorrectly`: an in-memory store of the
    /// default configuration, then one of "Config1" and one of "Config2",
    /// all in one stack. Each is the stack's (adding it again changes
    /// nothing, as CoreStore finds its persistent store) and holds its
    /// configuration's objects.
    @Test
    func inMemoryStoresOfEachConfigurationAreAddedToOneStack() throws {
        let stack = DataStack(configurationSchema)
        let stores = [
            InMemoryStore(), InMemoryStore(configuration: "Config1"), InMemoryStore(configuration: "Config2"),
        ]
        for (index, store) in stores.enumerated() {
            let added = try stack.addStorageAndWait(store)
            #expect(added.settings.isSameStore(as: store.settings))
            try stack.addStorageAndWait(store)
            #expect(stack.storeConfigurations == stores[...index].map(\.configuration))
        }
        try expectEachConfigurationHoldsItsObjects(stack)

        // README's spelling, by type: a new empty store, as `InMemoryStore()`.
        let byType = DataStack(configurationSchema)
        let added = try byType.addStorageAndWait(InMemoryStore.self)
        #expect(added.configuration == nil && byType.storeConfigurations == [nil])
        #expect(try byType.fetchCount(From<CfgItem>()) == 0)
    }

    /// `test_ThatSQLiteStores_SetupCorrectly`: `SQLiteStore()`, then
    /// "ConfigStore1.sqlite" of "Config1" and "ConfigStore2.sqlite" of
    /// "Config2" (with `.recreateStoreOnModelMismatch`, as CoreStore's),
    /// all in the default directory. In a child process whose default
    /// directory is a new temporary folder (`XDG_DATA_HOME`), so that
    /// neither the user's folder nor another test's store is touched.
    @Test
    func sqliteStoresOfEachConfigurationAreAddedToOneStackInTheDefaultDirectory() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("strata-setup-\(UUID().uuidString)", isDirectory: true)
            setenv("XDG_DATA_HOME", folder.path, 1)
            defer { try? FileManager.default.removeItem(at: folder) }
            do {
                try await MainActor.run { try setUpDefaultDirectoryStores(in: folder) }
            } catch {
                // Told to the parent on standard error: a child's issues do not reach it.
                FileHandle.standardError.write(Data("\(childFailureMark)\(error)\n".utf8))
            }
        }
        let said = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(!said.contains(childFailureMark), "the child said: \(said)")
    }

    /// CoreStore's `addStorageAndWait` (DataStack.swift) refuses a store at
    /// a file the stack already has a store of another configuration at
    /// (`differentStorageExistsAtURL`), before anything is opened. So does
    /// Strata, with ``StrataError/storage(path:reason:)``, however the path
    /// is spelled, and in either order: opening the file as the other
    /// configuration's store would find a mismatch and, under
    /// `.recreateStoreOnModelMismatch`, empty the file under the store the
    /// stack has open.
    @Test(arguments: [LocalStorageOptions.none, .recreateStoreOnModelMismatch])
    func aStoreAtTheFileOfAnotherConfigurationsStoreIsRefused(options: LocalStorageOptions) throws {
        let pairs: [(String?, String?)] = [(nil, "Config1"), ("Config1", nil), ("Config2", "Config1")]
        for (first, second) in pairs {
            let directory = TemporaryDirectory()
            let url = storeURL(in: directory)
            let stack = DataStack(configurationSchema)
            try stack.addStorageAndWait(SQLiteStore(fileURL: url, configuration: first))
            let probe = first == "Config2"
            try stack.perform(synchronous: { tx in
                if probe {
                    tx.create(Into<CfgNote>()).text = "kept"
                } else {
                    tx.create(Into<CfgItem>()).key = 1
                }
            })
            let respelled = directory.url.appendingPathComponent(".", isDirectory: true)
                .appendingPathComponent(url.lastPathComponent)
            let link = directory.file("link.sqlite")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
            for spelling in [url, respelled, link] {
                let order = "\(first ?? "default"), then \(second ?? "default")"
                let error = #expect(throws: StrataError.self, "\(order)") {
                    try stack.addStorageAndWait(
                        SQLiteStore(fileURL: spelling, configuration: second, options: options))
                }
                guard case .storage(_, let reason)? = error else {
                    Issue.record("expected .storage, got \(String(describing: error))")
                    continue
                }
                #expect(reason.contains("already has the store at"), "\(reason)")
            }
            #expect(stack.storeConfigurations == [first])
            if probe {
                #expect(try stack.fetchAll(From<CfgNote>()).map(\.text) == ["kept"])
            } else {
                #expect(keys(try stack.fetchAll(From<CfgItem>())) == [1], "the store keeps its objects")
            }
            try stack.perform(synchronous: { tx in
                if probe {
                    tx.create(Into<CfgNote>()).text = "more"
                } else {
                    tx.create(Into<CfgItem>()).key = 2
                }
            })
        }
    }

    /// The same, for two stores of one file added at once: one is added, the
    /// other refused before it opens the file. Either may win: the default
    /// configuration's keeps the file's objects; the "Config1" store,
    /// alone on the file, recreates it, as its option says.
    @Test
    func ofTwoConfigurationsStoresAddedAtOnceAtOneFileTheOtherIsRefused() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        do {
            let writer = DataStack(configurationSchema)
            try writer.addStorageAndWait(SQLiteStore(fileURL: url))
            try writer.perform(synchronous: { tx in tx.create(Into<CfgItem>()).key = 1 })
        }
        let stack = DataStack(configurationSchema)
        let stores = [
            SQLiteStore(fileURL: url),
            SQLiteStore(fileURL: url, configuration: "Config1", options: .recreateStoreOnModelMismatch),
        ]
        let adds = stores.map { store in Task { @MainActor in try await stack.addStorage(store) } }
        var failures = 0
        for add in adds where (try? await add.value) == nil { failures += 1 }
        #expect(failures == 1)
        #expect(stack.storeConfigurations.count == 1)
        if stack.storeConfigurations == [nil] {
            #expect(keys(try stack.fetchAll(From<CfgItem>())) == [1], "the file was not recreated")
        } else {
            #expect(try stack.fetchCount(From<CfgItem>("Config1")) == 0)
        }
    }

    // MARK: Deleting store files

    /// `test_ThatSQLiteStores_DeleteFilesCorrectly`, twice on one store value
    /// at a path whose folder does not exist yet (as CoreStore's test
    /// stores): the store is made with its folder; while a stack has it
    /// open the database, its WAL and its shared memory exist; once the
    /// stack is gone, ``SQLiteStore/deleteFiles()`` leaves none of them, and
    /// the store made again at the path starts empty.
    ///
    /// Where CoreStore finds the `-shm` file still there after its stack is
    /// released, Strata's stack closes its connections when released, and
    /// SQLite removes the WAL and shared memory with the last one.
    @Test
    func sqliteStoreFilesAreDeletedWithTheirWALAndSharedMemory() throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let store = SQLiteStore(fileURL: directory.url
            .appendingPathComponent(UUID().uuidString, isDirectory: true)
            .appendingPathComponent("CoreStoreSetupPortTests_-null-.sqlite"))
        let exists = { (url: URL) in FileManager.default.fileExists(atPath: url.path) }
        for round in 1...2 {
            let count = Int.random(in: 1...200, using: &random)
            weak var released: DataStack?
            do {
                let stack = DataStack(configurationSchema)
                try stack.addStorageAndWait(store)
                try stack.perform(synchronous: { tx in
                    for key in 0..<count { tx.create(Into<CfgUser>()).name = "user \(key)" }
                })
                #expect(try stack.fetchCount(From<CfgUser>()) == count,
                        "round \(round), seed \(random.seed): the store started empty")
                let missing = store.fileURLs.filter { !exists($0) }
                #expect(missing.isEmpty, "round \(round): \(missing)")
                released = stack
            }
            #expect(released == nil, "round \(round): the stack is released at once")
            #expect(exists(store.fileURL))
            #expect(!store.fileURLs.dropFirst().contains(where: exists),
                    "round \(round): the WAL and shared memory go with the last connection")
            try store.deleteFiles()
            #expect(!store.fileURLs.contains(where: exists), "round \(round)")
            #expect(exists(store.fileURL.deletingLastPathComponent()), "round \(round): the folder stays")
        }
    }

    /// CoreStore's `BaseTestCase` tears a test down with
    /// `unsafeRemoveAllPersistentStoresAndWait()`, then deletes the store
    /// files while objects and monitors of the test may still be alive.
    /// Strata's ``DataStack/removeStorage()`` closes the connections, so
    /// the files can go: the WAL and shared memory are gone with the last
    /// connection, ``SQLiteStore/deleteFiles()`` leaves nothing, and the
    /// store added again starts empty while the old objects keep their values.
    @Test
    func removedStoresFilesCanBeDeletedWhileObjectsAndMonitorsLive() throws {
        let directory = TemporaryDirectory()
        let stores = [nil, "Config1", "Config2"].map {
            SQLiteStore(fileURL: configurationURL($0, in: directory), configuration: $0)
        }
        let stack = DataStack(configurationSchema)
        for store in stores { try stack.addStorageAndWait(store) }
        try expectEachConfigurationHoldsItsObjects(stack)
        let items = try stack.fetchAll(From<CfgItem>("Config1").orderBy(.ascending(\.$key)))
        let monitor = try stack.monitorList(From<CfgNote>("Config2"))
        let exists = { (url: URL) in FileManager.default.fileExists(atPath: url.path) }
        try stack.removeStorage()
        for store in stores {
            #expect(exists(store.fileURL))
            #expect(!store.fileURLs.dropFirst().contains(where: exists), "\(store.fileURLs.filter(exists))")
            try store.deleteFiles()
            #expect(!store.fileURLs.contains(where: exists))
        }
        #expect(items.map(\.key) == [2, 3], "objects keep their values")
        #expect(monitor.numberOfObjects() == 1)
        for store in stores { try stack.addStorageAndWait(store) }
        #expect(try stack.fetchCount(From<CfgItem>("Config1")) == 0)
        try expectEachConfigurationHoldsItsObjects(stack)
    }
}

/// Creates one object in each store of `stack` (default, "Config1",
/// "Config2"), and checks that each store counts its own.
@MainActor
private func expectEachConfigurationHoldsItsObjects(
    _ stack: DataStack, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try stack.perform(synchronous: { tx in
        tx.create(Into<CfgItem>(nil)).key = 1
        tx.create(Into<CfgItem>("Config1")).key = 2
        tx.create(Into<CfgItem>("Config1")).key = 3
        tx.create(Into<CfgNote>("Config2")).text = "note"
        tx.create(Into<CfgUser>()).name = "user"
    })
    #expect(try stack.fetchCount(From<CfgItem>(nil)) == 1, sourceLocation: sourceLocation)
    #expect(try stack.fetchCount(From<CfgItem>("Config1")) == 2, sourceLocation: sourceLocation)
    #expect(try stack.fetchCount(From<CfgNote>("Config2")) == 1, sourceLocation: sourceLocation)
    #expect(try stack.fetchCount(From<CfgNote>(nil)) == 0, sourceLocation: sourceLocation)
    #expect(try stack.fetchCount(From<CfgUser>()) == 1, sourceLocation: sourceLocation)
}

/// What starts the line a child process writes to standard error when a
/// check fails, which the parent test looks for.
private let childFailureMark = "CoreStoreSetupPortTests child failed: "

/// A failed check in a child process, saying what was wrong.
private struct ChildCheckFailed: Error, CustomStringConvertible {
    var description: String
}

/// Throws ``ChildCheckFailed`` with `message` unless `condition`.
private func childCheck(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    guard !condition else { return }
    throw ChildCheckFailed(description: message())
}

/// The body of the test of SQLite stores of each configuration in the
/// default directory, run in a child process whose `XDG_DATA_HOME` is `folder`.
@MainActor
private func setUpDefaultDirectoryStores(in folder: URL) throws {
    let directory = SQLiteStore.defaultDirectory
    try childCheck(directory.path.hasPrefix(folder.path), "default directory \(directory.path)")
    try childCheck(!FileManager.default.fileExists(atPath: directory.path), "the directory exists already")
    let stack = DataStack(configurationSchema)
    let stores = [
        SQLiteStore(),
        // CoreStore's own spelling of the options.
        SQLiteStore(
            fileName: "ConfigStore1.sqlite", configuration: "Config1",
            localStorageOptions: .recreateStoreOnModelMismatch),
        SQLiteStore(
            fileName: "ConfigStore2.sqlite", configuration: "Config2",
            localStorageOptions: .recreateStoreOnModelMismatch),
    ]
    try childCheck(stores[1].settings.options == .recreateStoreOnModelMismatch, "options not taken")
    for (index, store) in stores.enumerated() {
        let added = try stack.addStorageAndWait(store)
        try childCheck(added.fileURL == store.fileURL, "store \(index) returned \(added.fileURL)")
        try childCheck(
            store.fileURL.deletingLastPathComponent() == directory, "store \(index) at \(store.fileURL)")
        try childCheck(
            FileManager.default.fileExists(atPath: store.fileURL.path), "no file \(store.fileURL.path)")
        let connection = try Connection(path: store.fileURL.path, readOnly: true, create: false)
        let mode = try connection.scalar("PRAGMA journal_mode")
        connection.close()
        try childCheck(mode == .text("wal"), "store \(index) journal mode \(String(describing: mode))")
        try stack.addStorageAndWait(store)
        let configurations = stack.storeConfigurations
        try childCheck(configurations == stores[...index].map(\.configuration), "stores \(configurations)")
    }
    try childCheck(stores[0].fileURL == SQLiteStore.defaultFileURL, "default store at \(stores[0].fileURL)")
    try childCheck(
        stack.storeURL == SQLiteStore.defaultFileURL, "stack.storeURL \(String(describing: stack.storeURL))")
    try stack.perform(synchronous: { tx in
        tx.create(Into<CfgItem>(nil)).key = 1
        tx.create(Into<CfgItem>("Config1")).key = 2
        tx.create(Into<CfgNote>("Config2")).text = "note"
    })
    let counts = [
        try stack.fetchCount(From<CfgItem>(nil)), try stack.fetchCount(From<CfgItem>("Config1")),
        try stack.fetchCount(From<CfgNote>("Config2")), try stack.fetchCount(From<CfgNote>(nil)),
    ]
    try childCheck(counts == [1, 1, 1, 0], "counts \(counts)")
}
