import CSQLite
import Foundation
import Strata

/// One record of the import benchmark, as decoded from JSON.
struct ImportRecord: Codable, Sendable {
    var code: String
    var name: String
    var age: Int
    var score: Double
}

/// The import benchmark's model: unique by `code`.
final class ImportBench: ManagedObject, ImportableUniqueObject {
    @Field.Stored("code", .unique) var code: String = ""
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0

    typealias ImportSource = ImportRecord
    typealias UniqueIDType = String

    static var uniqueIDKeyPath: KeyPath<ImportBench, Field.Stored<String>> { \.$code }

    static func uniqueID(from source: ImportRecord, in transaction: BaseDataTransaction) throws -> String? {
        source.code
    }

    func update(from source: ImportRecord, in transaction: BaseDataTransaction) throws {
        name = source.name
        age = source.age
        score = source.score
    }
}

let importSchema = Schema("V1", entities: [Entity<ImportBench>("ImportBench")])

extension Scenario {
    /// A unique import of `count` JSON records into a store that already holds
    /// the first half of them (so half update, half insert).
    ///
    /// Untimed: decoding the JSON (both sides start from the decoded records),
    /// and filling each side's store with the first half before every run.
    /// Timed: Strata's `importUniqueObjects` in one transaction, against raw
    /// SQLite's `INSERT … ON CONFLICT (code) DO UPDATE` with one prepared
    /// statement in one transaction.
    static func uniqueImport(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let sources = try JSONDecoder().decode(
            [ImportRecord].self, from: try JSONEncoder().encode(records.enumerated().map { index, record in
                ImportRecord(code: uniqueCode(index), name: record.name, age: record.age, score: record.score)
            }))
        let existing = Array(sources.prefix(sources.count / 2))
        // The second run of a record updates it: every existing one gets new values.
        let incoming = sources.map { source -> ImportRecord in
            var changed = source
            changed.age += 1
            return changed
        }
        let expected = sources.count
        return Scenario(
            name: "unique import \(countLabel(expected)) (half new)",
            strata: Side {
                let stack = try Fixtures.strataStack(at: workspace.newFile("strata-import"), schema: importSchema)
                try stack.perform(synchronous: { tx in
                    _ = try tx.importUniqueObjects(Into<ImportBench>(), sourceArray: existing)
                })
                return Run(
                    body: {
                        try stack.perform(synchronous: { tx in
                            _ = try tx.importUniqueObjects(Into<ImportBench>(), sourceArray: incoming)
                        })
                        return expected
                    },
                    finish: {
                        let count = try stack.fetchCount(From<ImportBench>())
                        guard count == expected else {
                            throw BenchmarkError(description: "imported \(count) objects, expected \(expected)")
                        }
                    })
            },
            raw: Side {
                let database = try RawDatabase(workspace.newFile("raw-import"))
                try database.execute("""
                    PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
                    CREATE TABLE ImportBench (_pk INTEGER PRIMARY KEY, code TEXT, name TEXT, age INTEGER, score);
                    CREATE UNIQUE INDEX ImportBench_code_unique ON ImportBench (code)
                    """)
                try rawUpsert(existing, into: database)
                return Run(
                    body: {
                        try rawUpsert(incoming, into: database)
                        return expected
                    },
                    finish: {
                        let count = try database.prepare("SELECT count(*) FROM ImportBench")
                        guard try count.step(), Int(sqlite3_column_int64(count.handle, 0)) == expected else {
                            throw BenchmarkError(description: "raw import count is wrong")
                        }
                    })
            })
    }
}

/// Upserts every record in one transaction with one prepared statement.
private func rawUpsert(_ records: [ImportRecord], into database: RawDatabase) throws {
    try database.execute("BEGIN")
    let upsert = try database.prepare(
        "INSERT INTO ImportBench (code, name, age, score) VALUES (?, ?, ?, ?) "
            + "ON CONFLICT (code) DO UPDATE SET name = excluded.name, age = excluded.age, score = excluded.score")
    let transient = strata_sqlite_transient()
    for record in records {
        sqlite3_bind_text(upsert.handle, 1, record.code, -1, transient)
        sqlite3_bind_text(upsert.handle, 2, record.name, -1, transient)
        sqlite3_bind_int64(upsert.handle, 3, Int64(record.age))
        sqlite3_bind_double(upsert.handle, 4, record.score)
        _ = try upsert.step()
        try upsert.reset()
    }
    try database.execute("COMMIT")
}
