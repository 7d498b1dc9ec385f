import CSQLite
import Strata

/// How many transactions the small-transaction scenario times.
private let transactionCount = 10_000

extension Scenario {
    /// What a server does all day: many small read-modify-write transactions,
    /// each fetching one object by a unique field and incrementing a counter.
    ///
    /// Untimed: the fetchOne scenario's stores (``UniqueBench`` rows with a
    /// unique, indexed `code`, one Strata store and one raw database filled
    /// with `records`), and 10,000 existing codes drawn from a seeded
    /// generator (some repeat). Each run reads the sum of the counters
    /// (`age`) before it, untimed, and checks afterwards that it grew by
    /// exactly the number of transactions, on both sides.
    ///
    /// Timed, per code:
    /// - Strata: `stack.perform(synchronous: { tx in ... })` on the main actor
    ///   that fetches the object with `tx.fetchOne(From<UniqueBench>().where(\.$code == code))`,
    ///   increments `age` and commits: with the commit log record, and the
    ///   merge into the main context before `perform` returns.
    /// - Raw: `BEGIN IMMEDIATE`, one `SELECT _pk, code, name, age, score ...
    ///   WHERE code = ?` (a Swift struct built from the row), one
    ///   `UPDATE ... SET age = ? WHERE _pk = ?`, `COMMIT`; all four statements
    ///   prepared once and kept across the run.
    ///
    /// Both connections are set up alike: WAL journal, `synchronous=NORMAL`
    /// (Strata's store: `PRAGMA journal_mode = WAL` and `PRAGMA synchronous =
    /// NORMAL` in `StoreOpener.configure`), a busy timeout of 5,000 ms, and
    /// no connection mutex (`SQLITE_OPEN_NOMUTEX`).
    static func smallTransactions(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let stack = try Fixtures.strataStack(at: workspace.newFile("strata-smalltx"), schema: uniqueBenchSchema)
        try strataInsertUnique(records, into: stack)
        let database = try RawDatabase(workspace.newFile("raw-smalltx"))
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; \(RawUniqueSchema.createTable)")
        sqlite3_busy_timeout(database.handle, 5_000)
        try rawInsertUnique(records, into: database)

        var generator = SeededGenerator(seed: 0x5EED_7A)
        let codes = (0..<transactionCount).map { _ in
            uniqueCode(Int.random(in: 0..<records.count, using: &generator))
        }
        func verify(_ sum: Int, before: Int) throws {
            guard sum - before == codes.count else {
                throw BenchmarkError(description: "counters grew by \(sum - before), expected \(codes.count)")
            }
        }
        func strataSum() throws -> Int {
            try stack.queryValue(From<UniqueBench>().select(Int.self, .sum(\.$age))) ?? 0
        }
        func rawSum() throws -> Int {
            let sum = try database.prepare("SELECT sum(age) FROM UniqueBench")
            guard try sum.step() else { return 0 }
            return Int(sqlite3_column_int64(sum.handle, 0))
        }

        return Scenario(
            name: "\(countLabel(codes.count)) small transactions",
            strata: Side {
                let before = try strataSum()
                return Run(
                    body: {
                        var sum = 0
                        for code in codes {
                            sum += try stack.perform(synchronous: { tx in
                                guard let object = try tx.fetchOne(From<UniqueBench>().where(\.$code == code)) else {
                                    throw BenchmarkError(description: "no object with code \(code)")
                                }
                                object.age += 1
                                return lookupChecksum(score: object.score)
                            })
                        }
                        return sum
                    },
                    finish: { try verify(strataSum(), before: before) })
            },
            raw: Side {
                let before = try rawSum()
                return Run(
                    body: {
                        var sum = 0
                        let begin = try database.prepare("BEGIN IMMEDIATE")
                        let commit = try database.prepare("COMMIT")
                        let select = try database.prepare(RawUniqueSchema.selectByCode)
                        let update = try database.prepare(RawUniqueSchema.updateAge)
                        let transient = strata_sqlite_transient()
                        for code in codes {
                            _ = try begin.step()
                            try begin.reset()
                            sqlite3_bind_text(select.handle, 1, code, -1, transient)
                            guard try select.step() else {
                                throw BenchmarkError(description: "no row with code \(code)")
                            }
                            let row = RawUniqueRow(
                                rowID: sqlite3_column_int64(select.handle, 0),
                                code: select.text(1) ?? "",
                                name: select.text(2) ?? "",
                                age: Int(sqlite3_column_int64(select.handle, 3)),
                                score: sqlite3_column_double(select.handle, 4))
                            try select.reset()
                            sqlite3_bind_int64(update.handle, 1, Int64(row.age + 1))
                            sqlite3_bind_int64(update.handle, 2, row.rowID)
                            _ = try update.step()
                            try update.reset()
                            _ = try commit.step()
                            try commit.reset()
                            sum += lookupChecksum(score: row.score)
                        }
                        return sum
                    },
                    finish: { try verify(rawSum(), before: before) })
            })
    }
}
