import Foundation

/// A place a ``DataStack`` keeps its objects: ``SQLiteStore`` or ``InMemoryStore``.
public protocol StorageInterface: Sendable {
    /// Where and how the store is opened, and which entities it holds.
    var settings: StoreSettings { get }
}

extension StorageInterface {
    /// The schema configuration whose entities the store holds, or `nil` for
    /// the default configuration: every entity of the schema.
    public var configuration: String? { settings.configuration }
}

/// How a store is opened. Built by ``SQLiteStore`` and ``InMemoryStore``.
public struct StoreSettings: Sendable {
    enum Location: Sendable, Equatable {
        case file(URL)
        case memory(name: String)
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
    /// How long a connection waits for a lock held by another process, in milliseconds.
    public var busyTimeoutMilliseconds: Int32
    /// How much of the commit log the store keeps (``HistoryRetention/default``
    /// unless set); applied by the commits of the stacks that open it so.
    public var historyRetention: HistoryRetention = .default

    /// Whether the store is an ``InMemoryStore``: never synced, lost with the process.
    var isInMemory: Bool {
        if case .memory = location { return true }
        return false
    }

    /// A path for messages, or `:memory:`.
    var displayPath: String {
        switch location {
        case .file(let url): return url.path
        case .memory(let name): return ":memory:\(name)"
        }
    }

    /// The SQLite file to open: for an in-memory store, its file in the RAM
    /// folder of ``MemoryStoreFiles``, which exists while the store is open.
    var openPath: String {
        switch location {
        case .file(let url): return url.path
        case .memory(let name): return MemoryStoreFiles.databasePath(forStore: name)
        }
    }
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
