import Foundation
@testable import Strata
import StrataPostgreSQL
import Testing
import ThrowawayPostgreSQL

/// Where a test's store lives; use as `@Test(arguments: StoreKind.allCases)`.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    case file
    /// A schema of the tests' PostgreSQL server (``PostgreSQLServer``), named
    /// after the test's folder, so that reopening finds the same store.
    case postgreSQL

    var testDescription: String { rawValue }

    /// The SQLite kinds only.
    static var sqlite: [StoreKind] { enabled([.inMemory, .file]) }

    /// Every kind, PostgreSQL left out when `STRATA_POSTGRESQL=off` (the
    /// PostgreSQL-only suites then show as skipped, saying so).
    static var allCases: [StoreKind] { enabled([.inMemory, .file, .postgreSQL]) }

    /// `kinds` without PostgreSQL when its suites are turned off, and only
    /// those `STRATA_TEST_STORE_KINDS` names (say `file,postgreSQL`) when it
    /// is set; when it names none of `kinds`, the first of them, so that no
    /// test is left with nothing to run.
    static func enabled(_ kinds: [StoreKind]) -> [StoreKind] {
        let available = PostgreSQLServer.isEnabled ? kinds : kinds.filter { $0 != .postgreSQL }
        guard let selected else { return available }
        let kept = available.filter(selected.contains)
        return kept.isEmpty ? Array(available.prefix(1)) : kept
    }

    /// The kinds `STRATA_TEST_STORE_KINDS` names, if it is set. `.ci/run`'s
    /// thread sanitizer stage leaves the in-memory kind out: its suites run
    /// on the file and PostgreSQL kinds there, and on every kind in the
    /// plain and checked runs.
    private static let selected: Set<StoreKind>? = {
        guard let names = ProcessInfo.processInfo.environment["STRATA_TEST_STORE_KINDS"] else { return nil }
        let kinds = names.split(separator: ",").map { name -> StoreKind in
            guard let kind = StoreKind(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                fatalError("STRATA_TEST_STORE_KINDS names \(name): use inMemory, file or postgreSQL")
            }
            return kind
        }
        return Set(kinds)
    }()
}

/// A unique folder under the temporary directory, removed with everything in it on deinit.
/// It is created when first asked for, so that a test whose process ends in
/// a trap (an exit test's child, which never runs `deinit`) leaves nothing
/// behind unless its store had files.
final class TemporaryDirectory: @unchecked Sendable {
    private let location: URL

    /// The folder, created if it is not there yet.
    var url: URL {
        try! FileManager.default.createDirectory(at: location, withIntermediateDirectories: true)
        return location
    }

    init(function: String = #function) {
        let safe = function.filter { $0.isLetter || $0.isNumber }.prefix(40)
        location = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-tests-\(safe)-\(UUID().uuidString)", isDirectory: true)
    }

    /// A path inside the folder (not created).
    func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: location)
    }
}

/// The store file tests use in `directory`.
func storeURL(in directory: TemporaryDirectory) -> URL {
    directory.url.appendingPathComponent("store.sqlite")
}

/// The storage for `kind`: a fresh in-memory store, the file at
/// ``storeURL(in:)``, or the PostgreSQL schema of ``postgreSQLStore(in:)``.
func makeStorage(
    _ kind: StoreKind, in directory: TemporaryDirectory, options: LocalStorageOptions = .none
) throws -> any StorageInterface {
    switch kind {
    case .inMemory:
        var store = InMemoryStore()
        store.settings.options = options
        return store
    case .file: return SQLiteStore(fileURL: storeURL(in: directory), options: options)
    case .postgreSQL: return try postgreSQLStore(in: directory, options: options)
    }
}

/// Everything the store of `kind` in `directory` holds, to compare before
/// and after something that must change nothing: the file's bytes, or every
/// table of the PostgreSQL schema with its columns and rows, in order.
func storeContents(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> Data {
    switch kind {
    case .inMemory:
        Issue.record("an in-memory store has no contents to compare after it closed")
        return Data()
    case .file:
        return try Data(contentsOf: storeURL(in: directory))
    case .postgreSQL:
        let connection = try postgreSQLStore(in: directory).settings.openConnection(.inspector)
        defer { connection.close() }
        var text = ""
        for table in try connection.tableNames().sorted() {
            let columns = try connection.columnNames(of: table).sorted()
            text += "\(table) \(columns) \(try connection.indexes(of: table).sorted { $0.key < $1.key })\n"
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            for row in try connection.query("SELECT \(list) FROM \"\(table)\" ORDER BY \(list)", [], {
                statement in (0..<columns.count).map { statement.value(at: Int32($0)) }
            }) {
                text += "  \(row)\n"
            }
        }
        return Data(text.utf8)
    }
}

/// The PostgreSQL store of `directory`: a schema of the tests' server named
/// after the folder (created on first open).
func postgreSQLStore(
    in directory: TemporaryDirectory, configuration: String? = nil, options: LocalStorageOptions = .none
) throws -> PostgreSQLStore {
    let digits = directory.url.lastPathComponent.unicodeScalars.reduce(UInt64(14_695_981_039_346_656_037)) {
        ($0 ^ UInt64($1.value)) &* 1_099_511_628_211
    }
    return PostgreSQLStore(
        connectionString: try PostgreSQLServer.shared().connectionString,
        schema: "strata_test_" + String(digits, radix: 16) + (configuration.map { "_" + $0.lowercased() } ?? ""),
        configuration: configuration, options: options)
}

/// Where a test's store is, as a value a child process can be given: exit
/// tests capture only `Codable` values, so a child cannot be handed the
/// storage itself, only what it needs to open the same store again.
enum StoreAddress: Codable, Sendable {
    case file(path: String)
    case postgreSQL(connectionString: String, schema: String)

    /// The store ``makeStorage(_:in:)`` opens for `kind` in `directory`. An
    /// in-memory store lives in one process and has no address.
    init(_ kind: StoreKind, in directory: TemporaryDirectory) throws {
        switch kind {
        case .inMemory:
            preconditionFailure("an in-memory store cannot be shared with another process")
        case .file:
            self = .file(path: storeURL(in: directory).path)
        case .postgreSQL:
            let store = try postgreSQLStore(in: directory)
            self = .postgreSQL(connectionString: store.connectionString, schema: store.schema)
        }
    }

    /// A storage value for the store at this address. A file store waits
    /// up to two minutes for the write lock instead of the default five
    /// seconds: the processes and stacks that share it take turns, and on a
    /// loaded machine (SQLite's busy handler is not fair) one of them could
    /// otherwise be refused with `SQLITE_BUSY` and fail the test for a lock
    /// it would have had later; the timeout itself is tested apart
    /// (`WriteLockWaitTests`).
    var storage: any StorageInterface {
        switch self {
        case .file(let path):
            var store = SQLiteStore(fileURL: URL(fileURLWithPath: path))
            store.settings.busyTimeoutMilliseconds = 120_000
            return store
        case .postgreSQL(let connectionString, let schema):
            return PostgreSQLStore(connectionString: connectionString, schema: schema)
        }
    }
}

/// A stack for `schema` with a store of `kind` added.
@MainActor
func makeStack(_ schema: Schema, _ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
    let stack = DataStack(schema)
    try stack.addStorageAndWait(try makeStorage(kind, in: directory))
    return stack
}

/// A small seeded PRNG (SplitMix64), so random cases are reproducible from the seed.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private(set) var state: UInt64
    let seed: UInt64

    init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// A generator with a fresh seed; print `seed` in failure messages. To
    /// run a failure again, set `STRATA_TEST_SEED` to the seed it printed.
    static func random() -> SplitMix64 {
        let given = ProcessInfo.processInfo.environment["STRATA_TEST_SEED"].flatMap { UInt64($0) }
        return SplitMix64(seed: given ?? UInt64.random(in: 0 ... .max))
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes.
    mutating func bytes(_ count: Int) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        while bytes.count < count {
            var word = next()
            for _ in 0..<8 where bytes.count < count {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return Data(bytes)
    }
}
