import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Store lifecycle: remove, replace, reset, in-memory stacks")
struct StoreLifecycleTests {
    private func owners(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<BulkOwner>().orderBy(.ascending(\.$label))).map(\.label)
    }

    private func add(_ labels: [String], to stack: DataStack) throws {
        try stack.perform(synchronous: { tx in
            for label in labels { tx.create(Into<BulkOwner>()).label = label }
        })
    }

    /// A stack of the old schema, still open on a file another stack
    /// recreated for its own (`.recreateStoreOnModelMismatch`): its next
    /// commit is refused with `.schemaMismatch`, not written into the new tables.
    @Test
    func aStackWhoseStoreWasRecreatedForAnotherSchemaCannotCommit() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let old = DataStack(bulkSchema)
        try old.addStorageAndWait(SQLiteStore(fileURL: url))
        try add(["a"], to: old)
        let other = DataStack(Schema("Other", entities: bulkSchema.declarations + [Entity<HookNode>("HookNode")]))
        try other.addStorageAndWait(SQLiteStore(fileURL: url, options: .recreateStoreOnModelMismatch))
        #expect(performing: { try add(["b"], to: old) }, throws: { error in
            if case .schemaMismatch? = error as? StrataError { true } else { false }
        })
        #expect(try other.fetchCount(From<BulkOwner>()) == 0)
    }

    /// A stack of the old version, still open on a file another stack has
    /// migrated: its tables and columns are gone or renamed, and every read
    /// and commit of it reports `.schemaMismatch` (the store moved on), not a
    /// bare SQLite "no such table" or "no such column".
    @Test
    func aStackWhoseStoreWasMigratedAwayReportsTheMismatch() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let old = DataStack(schemaV1)
        try old.addStorageAndWait(SQLiteStore(fileURL: url))
        try old.perform(synchronous: { tx in
            tx.create(Into<PersonV1>()).name = "Ann"
            tx.create(Into<PetV1>()).name = "Rex"
        })
        let held = try #require(try old.fetchOne(From<PersonV1>()))
        let migrated = DataStack(schemaHistory: SchemaHistory([schemaV1, schemaV2], chain: ["V1", "V2"]))
        try migrated.addStorageAndWait(SQLiteStore(fileURL: url))
        func isMismatch(_ error: any Error) -> Bool {
            if case .schemaMismatch(_, "V2", "V1")? = error as? StrataError { true } else { false }
        }
        // Pet is now Animal (no such table); Person.name is now fullName (no such column).
        #expect(performing: { try old.fetchAll(From<PetV1>()) }, throws: isMismatch)
        #expect(performing: { try old.fetchAll(From<PersonV1>()) }, throws: isMismatch)
        #expect(performing: {
            try old.perform(synchronous: { tx in tx.create(Into<PetV1>()).name = "Kit" })
        }, throws: isMismatch)
        #expect(performing: {
            try old.perform(synchronous: { tx in tx.edit(held)?.age = 31 })
        }, throws: isMismatch)
        #expect(try migrated.fetchAll(From<AnimalV2>()).map(\.name) == ["Rex"])
        #expect(try migrated.fetchAll(From<PersonV2>()).map(\.age) == [0])
    }

    /// Two stores added to one stack at once: one is added, and the other is
    /// refused before its file is opened (none is created).
    @Test
    func ofTwoStoresAddedAtOnceTheOtherIsRefusedBeforeItsFileOpens() async throws {
        let directory = TemporaryDirectory()
        let files = [directory.file("x.sqlite"), directory.file("y.sqlite")]
        let stack = DataStack(bulkSchema)
        let adds = files.map { file in Task { @MainActor in try await stack.addStorage(SQLiteStore(fileURL: file)) } }
        var failures = 0
        for add in adds where (try? await add.value) == nil { failures += 1 }
        #expect(failures == 1 && stack.hasStore)
        let loser = try #require(files.first { $0 != stack.storeURL })
        #expect(!FileManager.default.fileExists(atPath: loser.path))
    }

    /// CoreStore's argument-less `addStorageAndWait()` opens `SQLiteStore()`,
    /// the program's file in the default folder, and returns it. In a child
    /// process, which points the default folder at a temporary one.
    @Test func theArgumentlessFormOpensTheDefaultStore() async {
        await #expect(processExitsWith: .success) {
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("strata-default-\(UUID().uuidString)")
            setenv("XDG_DATA_HOME", folder.path, 1)
            defer { try? FileManager.default.removeItem(at: folder) }
            try await MainActor.run {
                let stack = DataStack(bulkSchema)
                let store = try stack.addStorageAndWait()
                try stack.perform(synchronous: { tx in tx.create(Into<BulkOwner>()).label = "a" })
                guard store.fileURL == SQLiteStore().fileURL, store.fileURL.path.hasPrefix(folder.path),
                      FileManager.default.fileExists(atPath: store.fileURL.path),
                      try stack.fetchCount(From<BulkOwner>()) == 1
                else { throw StrataError.storeNotAdded }
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRemovedStoreIsClosedAndAnotherCanBeAdded(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        #expect(stack.hasStore)
        #expect((stack.storeURL != nil) == (kind == .file))
        try add(["a", "b"], to: stack)
        let held = try stack.fetchAll(From<BulkOwner>())
        let monitor = try stack.monitorList(From<BulkOwner>().orderBy(.ascending(\.$label)))
        let stream = try stack.changeSets()
        try stack.removeStorage()
        #expect(!stack.hasStore && stack.storeURL == nil)
        #expect(held.map(\.label).sorted() == ["a", "b"], "objects keep their values")
        #expect(monitor.numberOfObjects() == 2)
        for await _ in stream { Issue.record("the stream yielded after the store was removed") }
        #expect(throws: StrataError.self) { try stack.fetchCount(From<BulkOwner>()) }
        #expect(throws: StrataError.self) { try stack.perform(synchronous: { tx in tx.create(Into<BulkOwner>()) }) }
        #expect(throws: StrataError.self) { try stack.removeStorage() }
        if kind == .file {
            // The files are closed: they can go, and the stack can start again on them.
            try SQLiteStore(fileURL: storeURL(in: directory)).deleteFiles()
        }
        // A server store's data outlives its connections: a new store is a new schema.
        let fresh = kind == .postgreSQL ? TemporaryDirectory() : directory
        try stack.addStorageAndWait(makeStorage(kind, in: fresh))
        #expect(try owners(stack) == [], "a new, empty store")
        try add(["c"], to: stack)
        #expect(try owners(stack) == ["c"])
    }

    /// Adding the store the stack has again, as CoreStore allows, changes
    /// nothing and throws nothing, in all three forms: the same file spelled
    /// another way, the same in-memory store, the same server store. Read-only
    /// it would be another store, and is refused.
    @Test(arguments: StoreKind.allCases)
    func addingTheSameStoreAgainIsNoChange(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let storage = try makeStorage(kind, in: directory)
        let stack = DataStack(bulkSchema)
        try stack.addStorageAndWait(storage)
        try add(["a"], to: stack)
        let again: any StorageInterface = kind == .file
            ? SQLiteStore(fileURL: directory.url.appendingPathComponent("./sub/../store.sqlite"))
            : storage
        #expect(again.settings.isSameStore(as: storage.settings))
        try stack.addStorageAndWait(again)
        try await stack.addStorage(again)
        func addWithCompletion<Storage: StorageInterface>(_ storage: Storage) async -> Result<Void, StrataError> {
            await withCheckedContinuation { done in
                stack.addStorage(storage) { done.resume(returning: $0.map { _ in }) }
            }
        }
        try await addWithCompletion(again).get()
        #expect(stack.storeConfigurations == [nil])
        try add(["b"], to: stack)
        #expect(try owners(stack) == ["a", "b"], "the store that was there goes on")
        if kind == .file {
            #expect(throws: StrataError.self) {
                try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory), isReadOnly: true))
            }
            #expect(try owners(stack) == ["a", "b"])
        }
    }

    @Test
    func aSecondStoreIsRefusedBeforeItsFileIsOpened() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, .file, in: directory)
        // Another schema's store, which the option would recreate if it were opened.
        let other = directory.file("other.sqlite")
        let otherStack = DataStack(contextSchema)
        try otherStack.addStorageAndWait(SQLiteStore(fileURL: other))
        try otherStack.perform(synchronous: { tx in tx.create(Into<Owner>()).name = "kept" })
        try otherStack.removeStorage()
        let before = try Data(contentsOf: other)
        #expect(throws: StrataError.self) {
            try stack.addStorageAndWait(SQLiteStore(fileURL: other, options: .recreateStoreOnModelMismatch))
        }
        let fresh = directory.file("fresh.sqlite")
        #expect(throws: StrataError.self) { try stack.addStorageAndWait(SQLiteStore(fileURL: fresh)) }
        #expect(try Data(contentsOf: other) == before)
        #expect(!FileManager.default.fileExists(atPath: fresh.path), "not even created")
    }

    @Test
    func aStoreHeldByATransactionOnThisThreadIsNotRemoved() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, .file, in: directory)
        let tx = try stack.beginUnsafe()
        tx.create(Into<BulkOwner>()).label = "pending"
        _ = try tx.fetchCount(From<BulkOwner>())   // takes the writer
        #expect(throws: StrataError.self) { try stack.removeStorage() }
        try tx.commitAndWait()
        #expect(try owners(stack) == ["pending"])
        try stack.removeStorage()
    }

    @Test
    func replacingTheFileTakesAnotherStoreOrKeepsTheCurrentOne() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, .file, in: directory)
        try add(["mine"], to: stack)
        let other = DataStack(bulkSchema)
        try other.addStorageAndWait(SQLiteStore(fileURL: directory.file("other.sqlite")))
        try add(["theirs", "too"], to: other)
        // A file that is not a store is refused, and nothing changes.
        let junk = directory.file("junk.sqlite")
        try Data(repeating: 7, count: 4096).write(to: junk)
        #expect(throws: StrataError.self) { try stack.replaceStore(withContentsOf: junk) }
        #expect(try owners(stack) == ["mine"])
        // A store of the same history replaces it, even while its own stack has it open.
        try stack.replaceStore(withContentsOf: directory.file("other.sqlite"))
        #expect(try owners(stack) == ["theirs", "too"])
        try add(["after"], to: stack)
        #expect(try owners(other) == ["theirs", "too"], "the source is untouched")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!files.contains { $0.hasSuffix(".incoming") || $0.hasSuffix(".replaced") }, "\(files)")
    }

    /// A source that passes the check but whose migration then fails (rows
    /// that break a new `.unique`, found only when the step runs) leaves the
    /// stack on its own file with every commit, also those still in its WAL
    /// when the store was taken out to make room.
    @Test(arguments: [1, 7, 40])
    func aReplacementWhoseMigrationFailsKeepsEveryCommit(commits: Int) throws {
        let directory = TemporaryDirectory()
        let source = directory.file("v1.sqlite")
        do {
            let old = DataStack(lifecycleCodesV1)
            try old.addStorageAndWait(SQLiteStore(fileURL: source))
            try old.perform(synchronous: { tx in
                for _ in 0..<2 { tx.create(Into<LifecycleCodeV1>()).code = "same" }
            })
        }
        let history = SchemaHistory([lifecycleCodesV1, lifecycleCodesV2], chain: ["V1", "V2"])
        let url = storeURL(in: directory)
        let stack = DataStack(schemaHistory: history)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        for index in 0..<commits {
            try stack.perform(synchronous: { tx in tx.create(Into<LifecycleCodeV2>()).code = "\(index)" })
        }
        #expect(try stack.requiredMigrations(for: SQLiteStore(fileURL: source)).count == 1)
        #expect(performing: { try stack.replaceStore(withContentsOf: source) }, throws: { error in
            guard case .migrationFailed = error as? StrataError else { return false }
            return true
        })
        #expect(try stack.fetchCount(From<LifecycleCodeV2>()) == commits)
        try stack.perform(synchronous: { tx in tx.create(Into<LifecycleCodeV2>()).code = "after" })
        try stack.removeStorage()
        let reopened = DataStack(schemaHistory: history)
        try reopened.addStorageAndWait(SQLiteStore(fileURL: url))
        #expect(try reopened.fetchCount(From<LifecycleCodeV2>()) == commits + 1)
    }

    // SQLite only: the backup is exportStore, which a server store refuses (use pg_dump).
    @Test(arguments: StoreKind.sqlite)
    func resettingEmptiesTheStoreAfterABackup(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try add(["a", "b", "c"], to: stack)
        let backup = directory.file("backup.sqlite")
        try stack.resetStore(backingUpTo: backup)
        #expect(try owners(stack) == [])
        try add(["fresh"], to: stack)
        #expect(try owners(stack) == ["fresh"])
        let restored = DataStack(bulkSchema)
        try restored.addStorageAndWait(SQLiteStore(fileURL: backup))
        #expect(try owners(restored) == ["a", "b", "c"])
        // A backup that cannot be written resets nothing.
        #expect(throws: StrataError.self) { try stack.resetStore(backingUpTo: backup) }
        #expect(try owners(stack) == ["fresh"])
    }

    @Test
    func anInMemoryStackIsSeededInOneCall() throws {
        let stack = try DataStack.inMemory(bulkSchema) { tx in
            for label in ["x", "y"] { tx.create(Into<BulkOwner>()).label = label }
        }
        #expect(try owners(stack) == ["x", "y"])
        #expect(stack.storeURL == nil && stack.hasStore)
        #expect(throws: StrataError.self) {
            try DataStack.inMemory(bulkSchema) { tx in
                tx.create(Into<BulkOwner>()).code = "same"
                tx.create(Into<BulkOwner>()).code = "same"
            }
        }
    }
}

/// A code that V2 makes unique: a V1 store holding one twice cannot migrate.
private final class LifecycleCodeV1: ManagedObject {
    @Field.Stored("code") var code: String = ""
}

private final class LifecycleCodeV2: ManagedObject {
    @Field.Stored("code", .unique) var code: String = ""
}

private let lifecycleCodesV1 = Schema("V1", entities: [Entity<LifecycleCodeV1>("Code")])
private let lifecycleCodesV2 = Schema("V2", entities: [Entity<LifecycleCodeV2>("Code")])
