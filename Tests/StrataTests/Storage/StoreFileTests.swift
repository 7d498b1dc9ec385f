import CSQLite
import Foundation
import Strata
import Testing

// MARK: Model

private final class Note: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("number") var number: Int = 0
    @Field.Relationship("tags", inverse: \Tag.$notes) var tags: Set<Tag>
}

private final class Tag: ManagedObject {
    @Field.Stored("label") var label: String = ""
    @Field.Relationship("notes") var notes: Set<Note>
}

private final class Folder: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("items", inverse: \Item.$folder, deleteRule: .cascade) var items: [Item]
}

private final class Item: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("folder") var folder: Folder?
}

private let noteSchema = Schema("V1", entities: [
    Entity<Note>("Note"), Entity<Tag>("Tag"), Entity<Folder>("Folder"), Entity<Item>("Item"),
])

// MARK: Helpers

/// The file's bytes, or `nil` when it cannot be opened. Through a file
/// handle: on Linux, `FileManager.contents(atPath:)` leaks a 4 KB buffer for
/// every empty file it reads (it reads a file of size 0 in chunks, in case it
/// is one of /proc's, and drops the buffer when nothing came), which fails
/// the leak checker; the RAM folder's scan meets empty WAL files.
private func contents(_ url: URL) -> Data? {
    guard let handle = FileHandle(forReadingAtPath: url.path) else { return nil }
    defer { try? handle.close() }
    do { return try handle.readToEnd() ?? Data() } catch { return nil }
}

private func exists(_ url: URL) -> Bool {
    FileManager.default.fileExists(atPath: url.path)
}

/// Writes `count` notes (titles "note 0"...), each with a tag, to a stack.
@MainActor
private func writeNotes(_ count: Int, to stack: DataStack) throws {
    try stack.perform(synchronous: { tx in
        for index in 0..<count {
            let note = tx.create(Into<Note>())
            note.title = "note \(index) " + String(repeating: "·", count: 100)
            note.number = index
            let tag = tx.create(Into<Tag>())
            tag.label = "tag \(index)"
            note.tags = [tag]
        }
    })
}

@MainActor
private func noteNumbers(_ stack: DataStack) throws -> [Int] {
    try stack.fetchAll(From<Note>().orderBy(.ascending(\.$number))).map(\.number)
}

/// A store file at `storeURL(in: directory)` holding `count` notes, with every
/// commit checkpointed into the main file: the stack that wrote it is gone,
/// and closing the last connection folds the WAL into the file.
@MainActor
private func makeStoreFile(notes count: Int, in directory: TemporaryDirectory) throws {
    weak var released: DataStack?
    do {
        let stack = try makeStack(noteSchema, .file, in: directory)
        try writeNotes(count, to: stack)
        released = stack
    }
    #expect(released == nil, "the stack is released at once, closing its connections")
    #expect(!exists(URL(fileURLWithPath: storeURL(in: directory).path + "-wal")),
            "closing the last connection checkpoints and removes the WAL")
}

/// Where in-memory stores keep their files: `/dev/shm` on Linux when it is
/// writable, else the temporary directory.
private let ramDirectory: URL = {
    #if os(Linux)
    if FileManager.default.isWritableFile(atPath: "/dev/shm") {
        return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
    }
    #endif
    return FileManager.default.temporaryDirectory
}()

/// The files (database, `-wal`, `-shm`) of the in-memory store whose database
/// or WAL holds `marker`, found in the `strata-` folders of ``ramDirectory``.
private func memoryStoreFiles(containing marker: String) -> [URL] {
    let needle = Data(marker.utf8)
    let manager = FileManager.default
    let folders = (try? manager.contentsOfDirectory(atPath: ramDirectory.path)) ?? []
    for folder in folders where folder.hasPrefix("strata-") {
        let folderURL = ramDirectory.appendingPathComponent(folder, isDirectory: true)
        let names = (try? manager.contentsOfDirectory(atPath: folderURL.path)) ?? []
        for name in names where name.hasSuffix(".sqlite") || name.hasSuffix(".sqlite-wal") {
            let url = folderURL.appendingPathComponent(name)
            guard let data = contents(url), data.range(of: needle) != nil else { continue }
            let database = name.hasSuffix("-wal") ? String(url.path.dropLast(4)) : url.path
            return [database, database + "-wal", database + "-shm"].map { URL(fileURLWithPath: $0) }
        }
    }
    return []
}

/// The error `addStorageAndWait` throws for `storage`, recorded as an issue if none.
@MainActor
private func openingError(
    _ storage: some StorageInterface, schema: Schema = noteSchema,
    sourceLocation: SourceLocation = #_sourceLocation
) -> StrataError? {
    let stack = DataStack(schema)
    return #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
        try stack.addStorageAndWait(storage)
    }
}

// MARK: Tests

@Suite("Store files")
@MainActor
struct StoreFileTests {
    // MARK: Bad files

    @Test
    func garbageFileIsNotADatabaseAndStaysUnchanged() throws {
        var random = SplitMix64.random()
        for size in [1, 99, 100, 4_096, 65_536 + 17] {
            let directory = TemporaryDirectory()
            let url = storeURL(in: directory)
            let garbage = random.bytes(size)
            try garbage.write(to: url)
            let error = openingError(SQLiteStore(fileURL: url))
            guard case let .notADatabase(path, _)? = error else {
                Issue.record("size \(size), seed \(random.seed): expected .notADatabase, got \(String(describing: error))")
                continue
            }
            #expect(path == url.path)
            #expect(contents(url) == garbage, "size \(size), seed \(random.seed): the file is unchanged")
        }
    }

    @Test
    func garbageBehindAnSQLiteHeaderIsNotADatabaseAndStaysUnchanged() throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        var garbage = Data("SQLite format 3\0".utf8)
        garbage.append(random.bytes(8_192 - garbage.count))
        try garbage.write(to: url)
        let error = openingError(SQLiteStore(fileURL: url))
        if case .notADatabase? = error {} else {
            Issue.record("seed \(random.seed): expected .notADatabase, got \(String(describing: error))")
        }
        #expect(contents(url) == garbage, "seed \(random.seed): the file is unchanged")
    }

    @Test
    func truncatedStoreIsNotADatabaseAndStaysUnchanged() async throws {
        let source = TemporaryDirectory()
        try makeStoreFile(notes: 300, in: source)
        let full = try #require(contents(storeURL(in: source)))
        #expect(full.count > 8 * 4_096, "the store spans many pages")

        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let truncated = full.prefix(full.count / 2)
        try truncated.write(to: url)
        let error = openingError(SQLiteStore(fileURL: url))
        if case let .notADatabase(path, _)? = error {
            #expect(path == url.path)
        } else {
            Issue.record("expected .notADatabase, got \(String(describing: error))")
        }
        #expect(contents(url) == truncated, "the file is unchanged")
    }

    @Test
    func emptyFileOpensAsANewStore() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        do {
            let stack = try makeStack(noteSchema, .file, in: directory)
            #expect(try stack.fetchCount(From<Note>()) == 0)
            try writeNotes(3, to: stack)
            #expect(try noteNumbers(stack) == [0, 1, 2])
        }
        let reopened = try makeStack(noteSchema, .file, in: directory)
        #expect(try noteNumbers(reopened) == [0, 1, 2])
    }

    @Test
    func anSQLiteDatabaseThatIsNotAStrataStoreIsRefusedAndStaysUnchanged() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        var handle: OpaquePointer?
        #expect(sqlite3_open(url.path, &handle) == SQLITE_OK)
        #expect(sqlite3_exec(handle, "CREATE TABLE t (x); INSERT INTO t VALUES (42)", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(handle)
        let before = try #require(contents(url))
        let error = openingError(SQLiteStore(fileURL: url))
        if case let .storage(path, _)? = error {
            #expect(path == url.path)
        } else {
            Issue.record("expected .storage, got \(String(describing: error))")
        }
        #expect(contents(url) == before)
    }

    @Test
    func storeOfAnotherSchemaIsRefusedAndStaysUnchanged() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try makeStoreFile(notes: 2, in: directory)
        let before = try #require(contents(url))
        let other = Schema("Other", entities: [Entity<Item>("Item"), Entity<Folder>("Folder")])
        let error = openingError(SQLiteStore(fileURL: url), schema: other)
        guard case let .schemaMismatch(path, storeVersion, schemaVersion)? = error else {
            Issue.record("expected .schemaMismatch, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(storeVersion == "V1")
        #expect(schemaVersion == "Other")
        #expect(contents(url) == before)
    }

    // MARK: Read-only

    @Test
    func readOnlyStoreFetchesButRefusesTransactions() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try makeStoreFile(notes: 5, in: directory)
        let before = try #require(contents(url))

        let stack = DataStack(noteSchema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url, isReadOnly: true))
        #expect(try noteNumbers(stack) == [0, 1, 2, 3, 4])
        #expect(try stack.fetchCount(From<Tag>()) == 5)

        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in tx.create(Into<Note>()).title = "refused" })
        }
        if case let .readOnlyStore(path)? = error {
            #expect(path == url.path)
        } else {
            Issue.record("expected .readOnlyStore, got \(String(describing: error))")
        }
        // Creating without setting a field must fail the commit too, not pass silently.
        let bare = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in _ = tx.create(Into<Note>()) })
        }
        if case .readOnlyStore? = bare {} else {
            Issue.record("expected .readOnlyStore, got \(String(describing: bare))")
        }
        #expect(throws: StrataError.self) { try stack.wipeAllData() }
        #expect(try stack.fetchCount(From<Note>()) == 5, "nothing was written")
        #expect(contents(url) == before, "the file is unchanged")
    }

    @Test
    func readOnlyStoreThatDoesNotExistIsNotCreated() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let error = openingError(SQLiteStore(fileURL: url, isReadOnly: true))
        if case .storage? = error {} else {
            Issue.record("expected .storage, got \(String(describing: error))")
        }
        #expect(!exists(url))
    }

    /// A URL of another scheme than `file` names no local file; its path
    /// names an unrelated one, which no call may open, create, copy or delete.
    @Test(arguments: ["https", "http", "ftp", "myapp"])
    func aURLThatIsNotAFileURLIsRefusedAndItsPathLeftAlone(scheme: String) throws {
        let directory = TemporaryDirectory()
        let local = storeURL(in: directory)
        let remote = try #require(URL(string: "\(scheme)://example.com\(local.path)"))
        #expect(remote.path == local.path)

        let notAFileURL: (StrataError?) -> Bool = { error in
            if case let .storage(path, reason)? = error {
                return path == remote.absoluteString && reason.contains("not a file URL")
            }
            return false
        }
        // Nothing there: opening creates nothing.
        var error = openingError(SQLiteStore(fileURL: remote))
        #expect(notAFileURL(error), "\(String(describing: error))")
        #expect(!exists(local), "no file was created at the URL's path")

        // A store at the path: it is not opened, migrated, deleted or replaced.
        try makeStoreFile(notes: 3, in: directory)
        let before = contents(local)
        error = openingError(SQLiteStore(fileURL: remote))
        #expect(notAFileURL(error), "\(String(describing: error))")
        error = #expect(throws: StrataError.self) { try SQLiteStore(fileURL: remote).deleteFiles() }
        #expect(notAFileURL(error), "\(String(describing: error))")

        let other = TemporaryDirectory()
        let stack = try makeStack(noteSchema, .file, in: other)
        try writeNotes(1, to: stack)
        error = #expect(throws: StrataError.self) { try stack.replaceStore(withContentsOf: remote) }
        #expect(notAFileURL(error), "\(String(describing: error))")
        #expect(try noteNumbers(stack) == [0], "the stack keeps its store")
        let exported = try #require(
            URL(string: "\(scheme)://example.com\(other.file("copy.sqlite").path)"))
        error = #expect(throws: StrataError.self) { try stack.exportStore(to: exported) }
        if case let .storage(path, reason)? = error {
            #expect(path == exported.absoluteString && reason.contains("not a file URL"))
        } else {
            Issue.record("expected .storage, got \(String(describing: error))")
        }
        #expect(!exists(other.file("copy.sqlite")))
        #expect(contents(local) == before, "the file at the URL's path is unchanged")
    }

    @Test
    func aURLWithoutASchemeIsAPath() throws {
        let directory = TemporaryDirectory()
        let url = try #require(URL(string: storeURL(in: directory).path))
        #expect(url.scheme == nil)
        let stack = DataStack(noteSchema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        try writeNotes(2, to: stack)
        #expect(try noteNumbers(stack) == [0, 1])
        #expect(exists(storeURL(in: directory)))
    }

    // MARK: Deleting, exporting, wiping

    @Test
    func deleteFilesRemovesTheDatabaseAndItsWALAndSharedMemory() async throws {
        let directory = TemporaryDirectory()
        let store = SQLiteStore(fileURL: storeURL(in: directory))
        #expect(store.fileURLs.map(\.lastPathComponent)
                == ["store.sqlite", "store.sqlite-wal", "store.sqlite-shm"])
        try store.deleteFiles()  // nothing there yet: not an error
        try makeStoreFile(notes: 2, in: directory)
        // Stand-ins for the files a crashed process leaves behind.
        for url in store.fileURLs.dropFirst() {
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data([1, 2, 3])))
        }
        #expect(store.fileURLs.allSatisfy(exists))
        try store.deleteFiles()
        #expect(!store.fileURLs.contains(where: exists))
        #expect(exists(directory.url), "only the store's files go, not its folder")
    }

    @Test
    func deleteFilesWhileAStackIsClosedLetsANewStoreStartEmpty() async throws {
        let directory = TemporaryDirectory()
        try makeStoreFile(notes: 4, in: directory)
        try SQLiteStore(fileURL: storeURL(in: directory)).deleteFiles()
        let stack = try makeStack(noteSchema, .file, in: directory)
        #expect(try stack.fetchCount(From<Note>()) == 0)
    }

    /// SQLite goes on writing to a file deleted while it is open, and a
    /// commit there would be lost with it: a stack whose file was deleted, or
    /// replaced by another stack's new store, refuses to write, and reading
    /// or writing the store at the path loses nothing.
    @Test
    func aStackWhoseFileWasDeletedOrReplacedRefusesToWrite() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(noteSchema, .file, in: directory)
        let follower = try makeStack(noteSchema, .file, in: directory)
        try writeNotes(2, to: stack)
        try SQLiteStore(fileURL: storeURL(in: directory)).deleteFiles()
        let movedAway: (StrataError) -> Bool = {
            if case .storage(_, let reason) = $0 { reason.contains("deleted or replaced") } else { false }
        }
        let error = #expect(throws: StrataError.self) { try writeNotes(1, to: stack) }
        #expect(error.map(movedAway) == true, "\(String(describing: error))")
        #expect(try noteNumbers(stack) == [0, 1], "its reads show what it had")

        let replacement = try makeStack(noteSchema, .file, in: directory)
        try writeNotes(3, to: replacement)
        #expect(throws: StrataError.self) { try writeNotes(1, to: follower) }
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in _ = try tx.fetchCount(From<Note>()) })
        }
        try stack.removeStorage()
        try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory)))
        try writeNotes(1, to: stack)
        #expect(try noteNumbers(replacement) == [0, 0, 1, 2], "every commit that succeeded is in the file")
    }

    // SQLite only: a server store refuses to export to a file (use pg_dump).
    @Test(arguments: StoreKind.sqlite)
    func exportedStoreOpensWithTheSameObjects(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let exportURL = directory.file("export.sqlite")
        do {
            let stack = try makeStack(noteSchema, kind, in: directory)
            try writeNotes(20, to: stack)
            try stack.exportStore(to: exportURL)
            // Later commits are not in the copy.
            try stack.perform(synchronous: { tx in tx.create(Into<Note>()).number = 99 })
        }
        #expect(exists(exportURL))
        let copy = DataStack(noteSchema)
        try copy.addStorageAndWait(SQLiteStore(fileURL: exportURL))
        #expect(try noteNumbers(copy) == Array(0..<20))
        let notes = try copy.fetchAll(From<Note>().orderBy(.ascending(\.$number)))
        #expect(notes.map { $0.tags.map(\.label) } == (0..<20).map { ["tag \($0)"] })
    }

    @Test
    func exportRefusesToOverwriteAFile() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(noteSchema, .file, in: directory)
        try writeNotes(1, to: stack)
        let target = directory.file("taken.sqlite")
        let existing = Data("keep me".utf8)
        try existing.write(to: target)
        let error = #expect(throws: StrataError.self) { try stack.exportStore(to: target) }
        if case let .storage(path, _)? = error {
            #expect(path == target.path)
        } else {
            Issue.record("expected .storage, got \(String(describing: error))")
        }
        #expect(contents(target) == existing)
    }

    @Test(arguments: StoreKind.allCases)
    func wipeAllDataEmptiesEveryEntityAndCountsWhatItDeleted(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let noteCount = Int(random.next() % 30) + 1
        let folderCount = Int(random.next() % 5) + 1
        let itemCount = Int(random.next() % 30)
        do {
            let stack = try makeStack(noteSchema, kind, in: directory)
            try writeNotes(noteCount, to: stack)  // as many tags as notes
            try stack.perform(synchronous: { tx in
                let folders = (0..<folderCount).map { _ in tx.create(Into<Folder>()) }
                for index in 0..<itemCount {
                    tx.create(Into<Item>()).folder = folders[index % folderCount]
                }
            })
            let deleted = try stack.wipeAllData()
            #expect(deleted == 2 * noteCount + folderCount + itemCount, "seed \(random.seed)")
            #expect(try stack.fetchCount(From<Note>()) == 0)
            #expect(try stack.fetchCount(From<Tag>()) == 0)
            #expect(try stack.fetchCount(From<Folder>()) == 0)
            #expect(try stack.fetchCount(From<Item>()) == 0)
            #expect(try stack.wipeAllData() == 0, "wiping an empty store deletes nothing")
            // The store is still usable.
            try writeNotes(1, to: stack)
            #expect(try noteNumbers(stack) == [0])
        }
        if kind == .file {
            let reopened = try makeStack(noteSchema, .file, in: directory)
            #expect(try noteNumbers(reopened) == [0])
            #expect(try reopened.fetchCount(From<Item>()) == 0)
        }
    }

    // MARK: In-memory stores

    @Test
    func inMemoryStoreLeavesNoFilesOnceItsStackIsReleased() async throws {
        let marker = "marker \(UUID().uuidString)"
        weak var released: DataStack?
        var files: [URL] = []
        do {
            let stack = DataStack(noteSchema)
            try stack.addStorageAndWait(InMemoryStore())
            try stack.perform(synchronous: { tx in tx.create(Into<Note>()).title = marker })
            #expect(try stack.fetchOne(From<Note>())?.title == marker)
            // A transaction holds the writer while the main context reads.
            let tx = try stack.beginUnsafe()
            tx.create(Into<Note>()).title = "pending"
            try tx.flush()
            #expect(try stack.fetchCount(From<Note>()) == 1)
            try tx.commitAndWait()
            files = memoryStoreFiles(containing: marker)
            #expect(files.count == 3, "the store's data is in a file of the RAM folder")
            #expect(files.allSatisfy(exists), "its database, WAL and shared memory exist while it is open")
            released = stack
        }
        #expect(released == nil, "the stack is released, closing its connections")
        #expect(!files.contains(where: exists), "the store's files are gone: \(files.map(\.path))")
    }

    @Test
    func inMemoryStoresAreIndependent() async throws {
        let first = DataStack(noteSchema)
        try first.addStorageAndWait(InMemoryStore())
        var second: DataStack? = DataStack(noteSchema)
        try second?.addStorageAndWait(InMemoryStore())
        try writeNotes(3, to: first)
        try writeNotes(1, to: try #require(second))
        #expect(try noteNumbers(first) == [0, 1, 2])
        #expect(try noteNumbers(try #require(second)) == [0])

        // A transaction holding one store's writer does not hold up the other.
        let tx = try first.beginUnsafe()
        tx.create(Into<Note>()).number = 3
        try tx.flush()
        try second?.perform(synchronous: { tx in tx.create(Into<Note>()).number = 1 })
        #expect(try noteNumbers(try #require(second)) == [0, 1])
        #expect(try noteNumbers(first) == [0, 1, 2], "not committed yet")
        try tx.commitAndWait()

        // Releasing one leaves the other intact and writable.
        weak let released = second
        second = nil
        #expect(released == nil)
        #expect(try noteNumbers(first) == [0, 1, 2, 3])
        try first.perform(synchronous: { tx in tx.create(Into<Note>()).number = 4 })
        #expect(try noteNumbers(first) == [0, 1, 2, 3, 4])

        // A new in-memory store starts empty.
        let third = DataStack(noteSchema)
        try third.addStorageAndWait(InMemoryStore())
        #expect(try third.fetchCount(From<Note>()) == 0)
    }

    // MARK: Default location

    @Test
    func defaultDirectoryFollowsXDGDataHomeAndTheProgramName() {
        let directory = SQLiteStore.defaultDirectory.standardizedFileURL
        let program = ProcessInfo.processInfo.processName
        #expect(directory.lastPathComponent == (program.isEmpty ? "Strata" : program))
        #if !canImport(Darwin)
        let base: URL
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent(".local/share", isDirectory: true)
        }
        #expect(directory.deletingLastPathComponent().standardizedFileURL.path == base.standardizedFileURL.path)
        #endif
        #expect(SQLiteStore().fileURL.lastPathComponent == "\(directory.lastPathComponent).sqlite")
        #expect(SQLiteStore().fileURL.deletingLastPathComponent().standardizedFileURL.path == directory.path)
        #expect(SQLiteStore(fileName: "zoo.sqlite").fileURL.path == directory.appendingPathComponent("zoo.sqlite").path)
    }
}
