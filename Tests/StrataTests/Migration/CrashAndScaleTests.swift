import Foundation
@testable import Strata
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A large table that migrates V1 → V2 by inference: `name` is renamed
// `label`, `weight` is added with a default.

final class BulkRowV1: ManagedObject {
    @Field.Stored("number", .indexed) var number: Int = 0
    @Field.Stored("name") var name: String = ""
}

final class BulkRowV2: ManagedObject {
    @Field.Stored("number", .indexed) var number: Int = 0
    @Field.Stored("label", renamingIdentifier: "name") var label: String = ""
    @Field.Stored("weight") var weight: Double = 1.5
}

let bulkSchemaV1 = Schema("V1", entities: [Entity<BulkRowV1>("Row")])
let bulkSchemaV2 = Schema("V2", entities: [Entity<BulkRowV2>("Row")])
let bulkHistory = SchemaHistory([bulkSchemaV1, bulkSchemaV2], chain: ["V1", "V2"])

/// Creates a V1 store at `url` holding rows 1...count named "row <number>",
/// written by one `INSERT … SELECT` so that large stores take a fraction of a
/// second; the row IDs are the numbers, and the sequence says they are handed out.
/// The WAL is folded into the file, so that copying the file copies the store.
@MainActor
func writeBulkV1Store(at url: URL, count: Int) async throws {
    do {
        let stack = DataStack(bulkSchemaV1)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
    }
    try await Task.sleep(for: .milliseconds(1))
    let connection = try Connection(path: url.path, readOnly: false)
    defer { connection.close() }
    try connection.execute("BEGIN")
    try connection.run(
        """
        WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < ?)
        INSERT INTO "Row" ("_pk", "number", "name") SELECT x, x, 'row ' || x FROM n
        """, [.integer(Int64(count))])
    try connection.run(
        "INSERT OR REPLACE INTO _strata_sequence (entity, last) VALUES ('Row', ?)",
        [.integer(Int64(count))])
    try connection.execute("COMMIT")
    try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
}

/// What the store at `path` holds, read with raw SQL so that neither version's stack opens it.
struct BulkStoreState: Equatable, CustomStringConvertible {
    var version: String
    var columns: [String]
    var rows: Int
    /// Rows whose values are exactly what the version should hold for their number.
    var correctRows: Int
    var leftoverTables: Int

    var description: String {
        "\(version) \(columns) rows \(rows) correct \(correctRows) leftovers \(leftoverTables)"
    }

    static func read(at path: String) throws -> BulkStoreState {
        let connection = try Connection(path: path, readOnly: true)
        defer { connection.close() }
        func integer(_ sql: String) throws -> Int {
            guard case .integer(let value)? = try connection.scalar(sql) else { return -1 }
            return Int(value)
        }
        guard case .text(let version)? = try connection.scalar(
            "SELECT value FROM _strata_meta WHERE key = 'version'")
        else { throw BulkStoreError.noVersion }
        let columns = try connection.query("SELECT name FROM pragma_table_info('Row')") {
            $0.value(at: 0)
        }.compactMap { value -> String? in
            if case .text(let name) = value { return name }
            return nil
        }
        let correct = version == "V1"
            ? "name = 'row ' || number AND _pk = number"
            : "label = 'row ' || number AND weight = 1.5 AND _pk = number"
        return BulkStoreState(
            version: version, columns: columns,
            rows: try integer("SELECT count(*) FROM \"Row\""),
            correctRows: try integer("SELECT count(*) FROM \"Row\" WHERE \(correct)"),
            leftoverTables: try integer(
                "SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_strata\\_migrating\\_%' ESCAPE '\\'"))
    }
}

enum BulkStoreError: Error { case noVersion }

/// What the child of the crash test does, in a process of its own.
enum MigrationCrashChild {
    /// Migrates a copy of the store at `path` to time a migration, then
    /// migrates the store itself while another thread kills the process at
    /// `fraction` of that time. If the migration ends first, the process dies then.
    @MainActor
    static func killDuringMigration(path: String, fraction: Double) throws {
        let calibration = path + ".calibrate"
        try FileManager.default.copyItem(atPath: path, toPath: calibration)
        let start = ContinuousClock.now
        try DataStack(schemaHistory: bulkHistory)
            .addStorageAndWait(SQLiteStore(fileURL: URL(fileURLWithPath: calibration)))
        let elapsed = ContinuousClock.now - start
        let microseconds = Double(elapsed.components.seconds) * 1e6
            + Double(elapsed.components.attoseconds) / 1e12
        let delay = UInt32(max(0, microseconds * fraction))
        Thread.detachNewThread {
            usleep(delay)
            kill(getpid(), SIGKILL)
        }
        try DataStack(schemaHistory: bulkHistory)
            .addStorageAndWait(SQLiteStore(fileURL: URL(fileURLWithPath: path)))
        kill(getpid(), SIGKILL)
    }
}

@Suite("Migration: crashes and scale")
struct CrashAndScaleTests {
    static let crashCount = 200_000
    static let scaleCount = 100_000

    @Test(arguments: [0.1, 0.4, 0.7, 0.95, 1.2])
    @MainActor
    func killedDuringMigrationLeavesV1OrV2AndNothingBetween(fraction: Double) async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let count = Self.crashCount
        try await writeBulkV1Store(at: url, count: count)
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [path = url.path as String, fraction = fraction as Double] in
            try await MigrationCrashChild.killDuringMigration(path: path, fraction: fraction)
        }

        // The next open recovers the WAL: read what it finds before any stack touches it.
        let forecast = try DataStack(schemaHistory: bulkHistory)
            .requiredMigrations(for: SQLiteStore(fileURL: url))
        let state = try BulkStoreState.read(at: url.path)
        let v1 = BulkStoreState(
            version: "V1", columns: ["_pk", "number", "name"], rows: count, correctRows: count,
            leftoverTables: 0)
        let v2 = BulkStoreState(
            version: "V2", columns: ["_pk", "number", "label", "weight"], rows: count,
            correctRows: count, leftoverTables: 0)
        #expect(state == v1 || state == v2, "killed at \(fraction): found \(state)")
        #expect(forecast == (state.version == "V1"
            ? [MigrationStep(sourceVersion: "V1", destinationVersion: "V2")] : []))

        if state.version == "V1" {
            // The untouched V1 store still opens as V1 …
            let stack = DataStack(bulkSchemaV1)
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
            #expect(try stack.fetchCount(From<BulkRowV1>()) == count)
            #expect(try stack.fetchOne(From<BulkRowV1>().where(\.$number == 777))?.name == "row 777")
        }
        // … and in either case the store opens with the current version, whole.
        let stack = DataStack(schemaHistory: bulkHistory)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        #expect(try stack.fetchCount(From<BulkRowV2>()) == count)
        let sample = try #require(try stack.fetchOne(From<BulkRowV2>().where(\.$number == count)))
        #expect(sample.label == "row \(count)" && sample.weight == 1.5)
    }

    @Test
    @MainActor
    func largeInferredMigrationCarriesEveryRow() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let count = Self.scaleCount
        try await writeBulkV1Store(at: url, count: count)
        let stack = DataStack(schemaHistory: bulkHistory)
        let storage = SQLiteStore(fileURL: url)
        #expect(try stack.requiredMigrations(for: storage)
            == [MigrationStep(sourceVersion: "V1", destinationVersion: "V2")])
        try stack.addStorageAndWait(storage)

        #expect(try stack.fetchCount(From<BulkRowV2>()) == count)
        // A sample through objects: both ends, and every 997th row between.
        let numbers = [1, count] + Array(stride(from: 997, to: count, by: 997))
        let rows = try stack.fetchAll(From<BulkRowV2>().where(numbers ~= \.$number))
        #expect(rows.count == numbers.count)
        for row in rows {
            #expect(row.label == "row \(row.number)", "renamed field of row \(row.number)")
            #expect(row.weight == 1.5, "added field of row \(row.number)")
            #expect(row.objectID.rowID == Int64(row.number), "row ID of row \(row.number)")
        }
        // Every row, through SQL (a second connection reads the committed store).
        let state = try BulkStoreState.read(at: url.path)
        #expect(state == BulkStoreState(
            version: "V2", columns: ["_pk", "number", "label", "weight"], rows: count,
            correctRows: count, leftoverTables: 0))
    }

    @Test
    @MainActor
    func largeMigrationKeepsHandingOutNewRowIDs() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try await writeBulkV1Store(at: url, count: 10_000)
        let stack = DataStack(schemaHistory: bulkHistory)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        try stack.perform(synchronous: { tx in tx.create(Into<BulkRowV2>()).number = 10_001 })
        let created = try #require(try stack.fetchOne(From<BulkRowV2>().where(\.$number == 10_001)))
        #expect(created.objectID.rowID == 10_001, "the sequence was carried over")
    }
}
