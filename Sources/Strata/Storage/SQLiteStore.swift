import Foundation

/// A store in an SQLite file (WAL journal).
///
/// ```swift
/// try stack.addStorageAndWait(SQLiteStore(fileName: "zoo.sqlite"))
/// try stack.addStorageAndWait(SQLiteStore())   // the default file
/// ```
///
/// A store holds the entities of one schema configuration: every entity
/// (`configuration: nil`, the default), or those declared in a named one,
/// so that a stack can keep, say, a cache beside the user's data:
///
/// ```swift
/// try stack.addStorageAndWait(SQLiteStore(fileName: "user.sqlite", configuration: "User"))
/// try stack.addStorageAndWait(InMemoryStore(configuration: "Cache"))
/// ```
public struct SQLiteStore: StorageInterface {
    /// The store's file.
    public let fileURL: URL
    /// How the store is opened: options, synchronous mode, busy timeout, read-only.
    public var settings: StoreSettings

    /// A store at `fileURL` holding the entities of `configuration` (`nil`:
    /// every entity). `fileURL` names a local file (`URL(fileURLWithPath:)`);
    /// a URL of another scheme (`https://…`) is refused with
    /// ``StrataError/storage(path:reason:)`` when the store is opened.
    public init(
        fileURL: URL, configuration: String? = nil, options: LocalStorageOptions = .none,
        isReadOnly: Bool = false, synchronous: SynchronousMode = .normal
    ) {
        self.fileURL = fileURL
        self.settings = StoreSettings(
            location: .file(fileURL), configuration: configuration, options: options,
            isReadOnly: isReadOnly, synchronous: synchronous, busyTimeoutMilliseconds: 5_000)
    }

    /// A store named `fileName` in ``defaultDirectory`` holding the entities
    /// of `configuration` (`nil`: every entity).
    public init(
        fileName: String, configuration: String? = nil, options: LocalStorageOptions = .none,
        isReadOnly: Bool = false, synchronous: SynchronousMode = .normal
    ) {
        self.init(
            fileURL: Self.defaultDirectory.appendingPathComponent(fileName), configuration: configuration,
            options: options, isReadOnly: isReadOnly, synchronous: synchronous)
    }

    /// A store at `fileURL` opened with `localStorageOptions`: CoreStore's
    /// spelling of ``init(fileURL:configuration:options:isReadOnly:synchronous:)``.
    ///
    /// ```swift
    /// SQLiteStore(fileURL: url, localStorageOptions: .recreateStoreOnModelMismatch)
    /// ```
    public init(fileURL: URL, configuration: String? = nil, localStorageOptions: LocalStorageOptions) {
        self.init(fileURL: fileURL, configuration: configuration, options: localStorageOptions)
    }

    /// A store named `fileName` in ``defaultDirectory`` opened with
    /// `localStorageOptions`: CoreStore's spelling of
    /// ``init(fileName:configuration:options:isReadOnly:synchronous:)``.
    ///
    /// ```swift
    /// SQLiteStore(fileName: "zoo.sqlite", configuration: "Zoo", localStorageOptions: .recreateStoreOnModelMismatch)
    /// ```
    public init(fileName: String, configuration: String? = nil, localStorageOptions: LocalStorageOptions) {
        self.init(fileName: fileName, configuration: configuration, options: localStorageOptions)
    }

    /// The options the store is opened with: CoreStore's name for
    /// `settings.options`.
    public var localStorageOptions: LocalStorageOptions {
        get { settings.options }
        set { settings.options = newValue }
    }

    /// The size in bytes of the store's main file, or `nil` when it does not
    /// exist yet, as CoreStore's `fileSize()`. The WAL file (`-wal`), where
    /// recent commits wait for a checkpoint, is not counted.
    ///
    /// ```swift
    /// if let bytes = SQLiteStore(fileName: "zoo.sqlite").fileSize() { print(bytes) }
    /// ```
    public func fileSize() -> UInt64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL.path),
              let size = attributes[.size] as? NSNumber
        else { return nil }
        return size.uint64Value
    }

    /// The default store, at ``defaultFileURL``.
    public init(options: LocalStorageOptions = .none) {
        self.init(fileURL: Self.defaultFileURL, options: options)
    }

    /// The default store's file, `<program name>.sqlite` in ``defaultDirectory``:
    /// where `SQLiteStore()` and `stack.addStorageAndWait()` keep their data,
    /// as CoreStore's `SQLiteStore.defaultFileURL`.
    ///
    /// ```swift
    /// let firstLaunch = !FileManager.default.fileExists(atPath: SQLiteStore.defaultFileURL.path)
    /// ```
    public static var defaultFileURL: URL {
        defaultDirectory.appendingPathComponent("\(programName).sqlite", isDirectory: false)
    }

    /// Where stores named by file name live: on Linux `$XDG_DATA_HOME/<program>`,
    /// else `~/.local/share/<program>`; on Apple systems Application Support/<program>.
    public static var defaultDirectory: URL {
        #if canImport(Darwin)
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #else
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent(".local/share", isDirectory: true)
        }
        #endif
        return base.appendingPathComponent(programName, isDirectory: true)
    }

    private static var programName: String {
        let name = ProcessInfo.processInfo.processName
        return name.isEmpty ? "Strata" : name
    }

    /// The store's files: the database, its `-wal` and its `-shm`.
    public var fileURLs: [URL] {
        [fileURL, URL(fileURLWithPath: fileURL.path + "-wal"), URL(fileURLWithPath: fileURL.path + "-shm")]
    }

    /// Deletes the store's files. Do this only while no stack has the store open.
    ///
    /// - Throws: ``StrataError/storage(path:reason:)`` when a file exists but
    ///   cannot be removed, or, with nothing deleted, when `fileURL` is not a
    ///   file URL or it, its `-wal` or its `-shm` names a folder.
    public func deleteFiles() throws(StrataError) {
        try Self.checkFileURL(fileURL)
        // `removeItem` takes a folder with everything in it, and a store's
        // files are never folders: a URL naming one (a mistaken
        // `SQLiteStore(fileURL: documentsFolder)`) deletes nothing.
        for url in fileURLs {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                throw .storage(path: url.path, reason: "a folder, not a store file: nothing was deleted")
            }
        }
        for url in fileURLs where FileManager.default.fileExists(atPath: url.path) {
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw .storage(path: url.path, reason: "cannot delete: \(error.localizedDescription)")
            }
        }
    }

    /// Refuses a URL of another scheme than `file` (`https://host/data/zoo.sqlite`,
    /// say a download's address): its `path` (`/data/zoo.sqlite`) would name an
    /// unrelated local file, which the store would create, overwrite or delete.
    /// A URL without a scheme (`URL(string: "/data/zoo.sqlite")`) is a path.
    static func checkFileURL(_ url: URL) throws(StrataError) {
        guard let scheme = url.scheme, !url.isFileURL else { return }
        throw .storage(
            path: url.absoluteString,
            reason: "a \(scheme) URL is not a file URL; give a local file (URL(fileURLWithPath:))")
    }
}

/// A store in memory, gone when its stack is released. Ideal for tests and previews.
///
/// ```swift
/// try stack.addStorageAndWait(InMemoryStore())
/// ```
///
/// It is a WAL database like ``SQLiteStore``'s, so the main context reads
/// committed data while a transaction writes, but its file lives in a RAM
/// file system (on Linux `/dev/shm` when it is writable, else the temporary
/// directory) and is never synced. Its files are deleted once the stack, its
/// transactions, the objects fetched from it and the monitors and publishers
/// made from it are released; files left by a
/// process that crashed are deleted by the next one that opens an `InMemoryStore`.
/// Each `InMemoryStore()` is a new, empty store.
public struct InMemoryStore: StorageInterface {
    /// How the store is opened: options, synchronous mode, busy timeout, read-only.
    public var settings: StoreSettings

    /// A new, empty in-memory store holding the entities of `configuration`
    /// (`nil`: every entity).
    public init(configuration: String? = nil) {
        settings = StoreSettings(
            location: .memory(name: "strata-\(UUID().uuidString)"), configuration: configuration,
            options: .none, isReadOnly: false, synchronous: .normal, busyTimeoutMilliseconds: 5_000)
    }
}
