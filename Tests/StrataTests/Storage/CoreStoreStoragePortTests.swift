import Foundation
import Testing

@testable import Strata

/// CoreStore's `StorageInterfaceTests`, ported: what a store value says
/// before it is added. CoreStore's `storeType` (an `NSPersistentStore`
/// type), `migrationMappingProviders` (Strata keeps them on the
/// ``SchemaHistory``) and the `SQLiteStore.legacy…` forms (an older default
/// folder of CoreStore's) have no counterpart and are not ported. Its
/// `storeOptions` become the store's ``StoreSettings`` and the journal mode
/// of the opened file: WAL, which CoreStore asks for with a pragma.
@MainActor
@Suite("CoreStore port: storage interfaces")
struct CoreStoreStoragePortTests {
    /// The settings every store starts with unless told otherwise.
    private func expectDefaultSettings(
        _ settings: StoreSettings, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(settings.isReadOnly == false, sourceLocation: sourceLocation)
        #expect(settings.synchronous == .normal, sourceLocation: sourceLocation)
        #expect(settings.busyTimeoutMilliseconds == 5_000, sourceLocation: sourceLocation)
        #expect(settings.historyRetention == .default, sourceLocation: sourceLocation)
    }

    /// The journal mode of the SQLite file at `path`, read by a connection of its own.
    private func journalMode(at path: String) throws -> StoredValue? {
        let connection = try Connection(path: path, readOnly: true, create: false)
        defer { connection.close() }
        return try connection.scalar("PRAGMA journal_mode")
    }

    // MARK: InMemoryStore

    /// `test_ThatDefaultInMemoryStores_ConfigureCorrectly`.
    @Test
    func aDefaultInMemoryStoreHoldsTheDefaultConfiguration() {
        let store = InMemoryStore()
        #expect(store.configuration == nil)
        #expect(store.settings.configuration == nil)
        #expect(store.settings.options == .none)
        #expect(store.settings.isInMemory)
        expectDefaultSettings(store.settings)
    }

    /// `test_ThatCustomInMemoryStores_ConfigureCorrectly`.
    @Test
    func anInMemoryStoreOfAConfigurationHoldsIt() {
        let store = InMemoryStore(configuration: "config1")
        #expect(store.configuration == "config1")
        #expect(store.settings.options == .none)
        #expect(store.settings.isInMemory)
        expectDefaultSettings(store.settings)
    }

    /// CoreStore gives an in-memory store no pragmas; Strata's is a WAL
    /// database in a RAM folder, as Storage.md documents, so that the main
    /// context reads while a transaction writes.
    @Test
    func anOpenInMemoryStoreIsAWALDatabase() throws {
        let store = InMemoryStore(configuration: "Config1")
        let stack = DataStack(configurationSchema)
        try stack.addStorageAndWait(store)
        #expect(try journalMode(at: store.settings.openPath) == .text("wal"))
        #expect(stack.storeURL == nil, "an in-memory store has no file URL")
    }

    // MARK: SQLiteStore

    /// `test_ThatSQLiteStoreDefaultDirectories_AreCorrect`: CoreStore's
    /// `defaultRootDirectory` is Strata's ``SQLiteStore/defaultDirectory``
    /// (named after the program, not a bundle); the default file is
    /// `<program name>.sqlite` in it, where CoreStore's takes the bundle name.
    @Test
    func theDefaultFileIsNamedAfterTheProgramInTheDefaultDirectory() {
        let program = ProcessInfo.processInfo.processName
        let name = program.isEmpty ? "Strata" : program
        #expect(SQLiteStore.defaultDirectory.lastPathComponent == name)
        #expect(SQLiteStore.defaultDirectory.hasDirectoryPath)
        let expected = SQLiteStore.defaultDirectory
            .appendingPathComponent(name, isDirectory: false)
            .appendingPathExtension("sqlite")
        #expect(SQLiteStore.defaultFileURL == expected)
        #expect(!SQLiteStore.defaultFileURL.hasDirectoryPath)
    }

    /// `test_ThatDefaultSQLiteStores_ConfigureCorrectly`.
    @Test
    func theDefaultSQLiteStoreIsTheDefaultFileOfTheDefaultConfiguration() {
        let store = SQLiteStore()
        #expect(store.configuration == nil)
        #expect(store.fileURL == SQLiteStore.defaultFileURL)
        #expect(store.settings.options == .none)
        #expect(!store.settings.isInMemory)
        expectDefaultSettings(store.settings)
        #expect(SQLiteStore(options: .recreateStoreOnModelMismatch).settings.options
            == [.recreateStoreOnModelMismatch])
    }

    /// `test_ThatFileURLSQLiteStores_ConfigureCorrectly`; the file is then
    /// opened in WAL mode, CoreStore's `journal_mode` pragma.
    @Test
    func aSQLiteStoreAtAFileURLKeepsItsURLConfigurationAndOptions() throws {
        let directory = TemporaryDirectory()
        let fileURL = directory.url
            .appendingPathComponent(UUID().uuidString, isDirectory: false)
            .appendingPathExtension("db")
        let store = SQLiteStore(
            fileURL: fileURL, configuration: "Config1", options: .recreateStoreOnModelMismatch)
        #expect(store.configuration == "Config1")
        #expect(store.fileURL == fileURL)
        #expect(store.settings.options == [.recreateStoreOnModelMismatch])
        #expect(store.localStorageOptions == store.settings.options)
        expectDefaultSettings(store.settings)
        #expect(store.fileSize() == nil)

        let stack = DataStack(configurationSchema)
        try stack.addStorageAndWait(store)
        #expect(stack.storeURL == fileURL)
        #expect(try journalMode(at: fileURL.path) == .text("wal"))
        #expect((store.fileSize() ?? 0) > 0)

        // CoreStore's `unsafeRemoveAllPersistentStoresAndWait()`: the stack has
        // no store after it, and a second call, with none, does nothing.
        stack.unsafeRemoveAllPersistentStoresAndWait()
        #expect(!stack.hasStore && stack.storeConfigurations.isEmpty)
        stack.unsafeRemoveAllPersistentStoresAndWait()
        #expect(!stack.hasStore)
        var changed = store
        changed.localStorageOptions = []
        #expect(changed.settings.options == [])
    }

    /// `test_ThatFileNameSQLiteStores_ConfigureCorrectly`, for random file
    /// names: the file is the name in the default directory, as a URL equal
    /// to one built from ``SQLiteStore/defaultDirectory``.
    @Test
    func aSQLiteStoreNamedByFileIsInTheDefaultDirectory() {
        var random = SplitMix64.random()
        for _ in 0..<20 {
            let fileName = UUID(uuid: random.uuid()).uuidString + ".db"
            let store = SQLiteStore(
                fileName: fileName, configuration: "config1", options: .recreateStoreOnModelMismatch)
            #expect(store.configuration == "config1")
            #expect(store.fileURL.deletingLastPathComponent() == SQLiteStore.defaultDirectory,
                    "seed \(random.seed): \(store.fileURL)")
            #expect(store.fileURL.lastPathComponent == fileName)
            #expect(store.settings.options == [.recreateStoreOnModelMismatch])
            expectDefaultSettings(store.settings)
        }
    }

    // MARK: Deleting files

    /// CoreStore erases a store's files only after reading its metadata, so
    /// never anything but a store. Strata's ``SQLiteStore/deleteFiles()`` is
    /// public: given a URL that names a folder (a mistaken
    /// `SQLiteStore(fileURL: documentsFolder)`), or whose `-wal` or `-shm`
    /// is one, it refuses with ``StrataError/storage(path:reason:)`` and
    /// deletes nothing, where `FileManager` would remove the folder with
    /// everything in it. Adding such a store is refused too.
    @Test(arguments: ["", "-wal", "-shm"])
    func deleteFilesRefusesAFolderAndDeletesNothing(folderSuffix: String) throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let folder = URL(fileURLWithPath: url.path + folderSuffix, isDirectory: true)
        let kept = folder.appendingPathComponent("keep.txt")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: kept)
        if !folderSuffix.isEmpty { try Data().write(to: url) }
        for spelling in [url, URL(fileURLWithPath: url.path, isDirectory: true)] {
            let error = #expect(throws: StrataError.self, "\(spelling)") {
                try SQLiteStore(fileURL: spelling).deleteFiles()
            }
            guard case .storage(let path, let reason)? = error else {
                Issue.record("expected .storage, got \(String(describing: error))")
                continue
            }
            #expect(path == folder.path && reason.contains("folder"), "\(path): \(reason)")
            #expect(FileManager.default.fileExists(atPath: kept.path), "the folder keeps its files")
            #expect(FileManager.default.fileExists(atPath: url.path), "nothing is deleted")
        }
        if folderSuffix.isEmpty {
            #expect(throws: StrataError.self) {
                try DataStack(configurationSchema).addStorageAndWait(SQLiteStore(fileURL: url))
            }
            #expect(FileManager.default.fileExists(atPath: kept.path))
        }
    }
}

extension SplitMix64 {
    /// Sixteen random bytes, as a `UUID`'s.
    mutating func uuid() -> uuid_t {
        let bytes = Array(self.bytes(16))
        return (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])
    }
}
