import Foundation

/// A place a ``DataStack`` keeps its objects: ``SQLiteStore``, ``InMemoryStore``,
/// or `PostgreSQLStore` (module `StrataPostgreSQL`).
public protocol StorageInterface: Sendable {
    /// Where and how the store is opened, and which entities it holds.
    var settings: StoreSettings { get }
}

extension StorageInterface {
    /// The schema configuration whose entities the store holds, or `nil` for
    /// the default configuration: every entity of the schema.
    public var configuration: String? { settings.configuration }
}

/// How a store is opened. Built by ``SQLiteStore``, ``InMemoryStore`` and `PostgreSQLStore`.
public struct StoreSettings: Sendable {
    enum Location: Sendable {
        case file(URL)
        case memory(name: String)
        /// A store on a database server (PostgreSQL).
        case server(any ServerStoreEngine)
    }

    let location: Location
    /// The schema configuration whose entities the store holds; `nil` for
    /// the default configuration, which holds every entity.
    public let configuration: String?
    /// What to do when the store does not match the schema.
    public var options: LocalStorageOptions
    /// Whether the store is opened with `SQLITE_OPEN_READONLY`.
    public var isReadOnly: Bool
    /// The `synchronous` pragma: `.normal` (the default in WAL mode) or `.full`.
    /// An ``InMemoryStore`` never syncs (`synchronous = OFF`), whatever this says.
    public var synchronous: SynchronousMode
    /// How long a transaction waits for the store's write lock while another
    /// stack or process holds it, in milliseconds (5,000 unless set), before
    /// it fails with a busy error: SQLite's busy timeout, and on PostgreSQL
    /// the transaction's `lock_timeout`. (Opening a PostgreSQL store waits
    /// without limit while another server creates or migrates it.)
    ///
    /// ```swift
    /// var store = PostgreSQLStore(connectionString: url)
    /// store.settings.busyTimeoutMilliseconds = 2_000
    /// ```
    public var busyTimeoutMilliseconds: Int32
    /// How much of the commit log the store keeps (``HistoryRetention/default``
    /// unless set); applied by the commits of the stacks that open it so.
    public var historyRetention: HistoryRetention = .default

    /// Settings for a store on a database server (the PostgreSQL store's).
    package init(
        server: any ServerStoreEngine, configuration: String?, options: LocalStorageOptions,
        isReadOnly: Bool, historyRetention: HistoryRetention
    ) {
        self.init(
            location: .server(server), configuration: configuration, options: options,
            isReadOnly: isReadOnly, synchronous: .normal, busyTimeoutMilliseconds: 5_000)
        self.historyRetention = historyRetention
    }

    init(
        location: Location, configuration: String?, options: LocalStorageOptions, isReadOnly: Bool,
        synchronous: SynchronousMode, busyTimeoutMilliseconds: Int32
    ) {
        self.location = location
        self.configuration = configuration
        self.options = options
        self.isReadOnly = isReadOnly
        self.synchronous = synchronous
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    /// Whether the store is an ``InMemoryStore``: never synced, lost with the process.
    var isInMemory: Bool {
        if case .memory = location { return true }
        return false
    }

    /// The store's server, when it is on one.
    var server: (any ServerStoreEngine)? {
        if case .server(let engine) = location { return engine }
        return nil
    }

    /// How the store's engine spells what the engines spell differently.
    var dialect: SQLDialect { server?.dialect ?? .sqlite }

    /// A path for messages, or `:memory:`, or the server store's description.
    var displayPath: String {
        switch location {
        case .file(let url): return url.path
        case .memory(let name): return ":memory:\(name)"
        case .server(let engine): return engine.displayName
        }
    }

    /// Whether `other` names the same store: the same file (however its path
    /// is spelled), the same in-memory store, or the same server store; of
    /// the same configuration, opened read-only or not alike.
    func isSameStore(as other: StoreSettings) -> Bool {
        isReadOnly == other.isReadOnly && rowsKey == other.rowsKey
    }

    /// What names the rows the store reads and writes, however its path is
    /// spelled: its configuration and its ``placeKey``. Two stores with the
    /// same key hold the same rows, whether opened read-only or not.
    var rowsKey: String {
        (configuration.map { "configuration:" + $0 } ?? "default") + "|" + placeKey
    }

    /// What names where the store is, whatever its configuration and however
    /// its path is spelled: its file's resolved path, its in-memory store's
    /// name or its server store's. A place holds the store of one configuration.
    var placeKey: String {
        switch location {
        case .file(let url): return "file:" + url.standardizedFileURL.resolvingSymlinksInPath().path
        case .memory(let name): return "memory:" + name
        case .server(let engine): return "server:" + engine.displayName
        }
    }

    /// The SQLite file to open: for an in-memory store, its file in the RAM
    /// folder of ``MemoryStoreFiles``, which exists while the store is open.
    var openPath: String {
        switch location {
        case .file(let url): return url.path
        case .memory(let name): return MemoryStoreFiles.databasePath(forStore: name)
        case .server(let engine): return engine.displayName
        }
    }

    /// Opens a connection to the store: SQLite on its file, or the server's.
    /// `role` says what the connection is for (a server store's writer
    /// prepares the store's schema when it connects).
    func openConnection(_ role: ConnectionRole, create: Bool = true) throws -> Connection {
        let readOnly = role != .writer || isReadOnly
        if let server {
            return Connection(
                server: try server.connect(role), dialect: server.dialect, path: displayPath,
                readOnly: readOnly)
        }
        return try Connection(
            path: openPath, readOnly: readOnly, create: create, busyTimeout: busyTimeoutMilliseconds)
    }
}

/// What a connection to a store is for.
package enum ConnectionRole: Sendable {
    /// The store's writer: transactions, and opening and migrating the store.
    case writer
    /// The main context's reader, which follows other stacks' commits.
    case reader
    /// A read-only look of its own (history, a migration check, an export).
    case inspector
}

/// Options for opening a local store.
public struct LocalStorageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// No special behaviour: a mismatched store throws ``StrataError/schemaMismatch(path:storeVersion:schemaVersion:)``.
    public static let none: LocalStorageOptions = []
    /// Deletes the store's data and recreates it when its schema does not match.
    public static let recreateStoreOnModelMismatch = LocalStorageOptions(rawValue: 1 << 0)
    /// Refuses to migrate a store that needs more than one step along the
    /// ``MigrationChain``: adding it throws
    /// ``StrataError/progressiveMigrationPrevented(path:versions:)`` and leaves it unchanged.
    public static let preventProgressiveMigration = LocalStorageOptions(rawValue: 1 << 1)
}

/// SQLite's `synchronous` setting for a store.
public enum SynchronousMode: String, Sendable, Hashable {
    /// Durable across application crashes; the last commits may be lost on power failure (WAL).
    case normal = "NORMAL"
    /// Durable across power failure too, at the cost of an fsync per commit.
    case full = "FULL"
}
