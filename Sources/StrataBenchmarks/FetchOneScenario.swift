import CSQLite
import Strata

/// A row as the raw side materializes it: the same fields as ``UniqueBench``.
struct RawUniqueRow {
    var rowID: Int64
    var code: String
    var name: String
    var age: Int
    var score: Double
}

/// How many lookups the fetchOne scenario times.
private let lookupCount = 10_000

extension Scenario {
    /// Looks up objects one at a time by a unique, indexed field.
    ///
    /// Untimed: filling one Strata store and one raw database with `records`
    /// as ``UniqueBench`` rows (code `SKU-<index>`, unique index on both sides),
    /// and drawing 10,000 existing codes from a seeded generator.
    /// Timed: for each code, Strata's
    /// `stack.fetchOne(From<UniqueBench>().where(\.$code == code))` on the
    /// main actor, reading one field of the object; against one prepared
    /// `SELECT ... WHERE code = ?` kept across all lookups, reset, bound and
    /// stepped per lookup, building a Swift struct per hit.
    static func fetchOneByUnique(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let stack = try Fixtures.strataStack(at: workspace.newFile("strata-unique"), schema: uniqueBenchSchema)
        try strataInsertUnique(records, into: stack)
        let database = try RawDatabase(workspace.newFile("raw-unique"))
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; \(RawUniqueSchema.createTable)")
        try rawInsertUnique(records, into: database)

        var generator = SeededGenerator(seed: 0x5EED)
        let codes = (0..<lookupCount).map { _ in uniqueCode(Int.random(in: 0..<records.count, using: &generator)) }
        func verify(_ hits: Int) throws {
            guard hits == codes.count else {
                throw BenchmarkError(description: "found \(hits) of \(codes.count) codes")
            }
        }

        return Scenario(
            name: "fetchOne by unique field x\(countLabel(codes.count))",
            strata: Side {
                var hits = 0
                return Run(
                    body: {
                        hits = 0
                        var sum = 0
                        for code in codes {
                            if let object = try stack.fetchOne(From<UniqueBench>().where(\.$code == code)) {
                                hits += 1
                                sum += lookupChecksum(score: object.score)
                            }
                        }
                        return sum
                    },
                    finish: { try verify(hits) })
            },
            raw: Side {
                var hits = 0
                return Run(
                    body: {
                        hits = 0
                        var sum = 0
                        let select = try database.prepare(RawUniqueSchema.selectByCode)
                        let statement = select.handle
                        let transient = strata_sqlite_transient()
                        for code in codes {
                            try select.reset()
                            sqlite3_bind_text(statement, 1, code, -1, transient)
                            if try select.step() {
                                let row = RawUniqueRow(
                                    rowID: sqlite3_column_int64(statement, 0),
                                    code: select.text(1) ?? "",
                                    name: select.text(2) ?? "",
                                    age: Int(sqlite3_column_int64(statement, 3)),
                                    score: sqlite3_column_double(statement, 4))
                                hits += 1
                                sum += lookupChecksum(score: row.score)
                            }
                        }
                        return sum
                    },
                    finish: { try verify(hits) })
            })
    }
}

/// What the lookup scenario adds up per hit: the record's index, recovered
/// from its score (`index * 0.25`), so a wrong row changes the sum.
func lookupChecksum(score: Double) -> Int {
    Int(score * 4)
}

/// Creates one ``UniqueBench`` per record in one synchronous transaction.
@MainActor
func strataInsertUnique(_ records: [BenchRecord], into stack: DataStack) throws {
    try stack.perform(synchronous: { tx in
        for (index, record) in records.enumerated() {
            let object = tx.create(Into<UniqueBench>())
            object.code = uniqueCode(index)
            object.name = record.name
            object.age = record.age
            object.score = record.score
        }
    })
}

/// Inserts every record into the raw ``UniqueBench`` table in one transaction.
func rawInsertUnique(_ records: [BenchRecord], into database: RawDatabase) throws {
    try database.execute("BEGIN")
    let insert = try database.prepare(RawUniqueSchema.insert)
    let transient = strata_sqlite_transient()
    for (index, record) in records.enumerated() {
        sqlite3_bind_text(insert.handle, 1, uniqueCode(index), -1, transient)
        sqlite3_bind_text(insert.handle, 2, record.name, -1, transient)
        sqlite3_bind_int64(insert.handle, 3, Int64(record.age))
        sqlite3_bind_double(insert.handle, 4, record.score)
        _ = try insert.step()
        try insert.reset()
    }
    try database.execute("COMMIT")
}
