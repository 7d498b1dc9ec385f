import CSQLite
import Foundation
import Strata

/// The cross-store scenario's model: ``Bench`` rows in two store files, the
/// default configuration's and "Archive"'s.
let crossStoreSchema = Schema("V1", entities: [Entity<Bench>("Bench", configurations: ["Archive"])])

extension Scenario {
    /// `count / 100` transactions, each inserting one record into each of
    /// two store files, interleaved round by round with raw SQLite.
    ///
    /// Strata: one transaction over both stores, atomic across a crash (the
    /// session extension records the second store's changes; the first store
    /// keeps them until the second has committed, then forgets them in a
    /// commit of its own). Raw: the best one can do without that guarantee —
    /// `BEGIN IMMEDIATE` on both files, one prepared insert each, COMMIT both.
    /// Untimed: creating the files.
    static func crossStore(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let transactions = max(1, records.count / 100)
        let pairs = Array(records.prefix(2 * transactions))
        func verify(_ counts: [Int]) throws {
            guard counts == [transactions, transactions] else {
                throw BenchmarkError(description: "stores hold \(counts), expected \(transactions) each")
            }
        }
        return Scenario(
            name: "\(countLabel(transactions)) commits over 2 stores",
            strata: Side {
                let stack = DataStack(crossStoreSchema)
                try stack.addStorageAndWait(SQLiteStore(fileURL: workspace.newFile("strata-cross-a")))
                try stack.addStorageAndWait(
                    SQLiteStore(fileURL: workspace.newFile("strata-cross-b"), configuration: "Archive"))
                return Run(
                    body: {
                        for index in 0..<transactions {
                            try stack.perform(synchronous: { tx in
                                for (offset, configuration) in [nil, "Archive"].enumerated() {
                                    let record = pairs[2 * index + offset]
                                    let object = tx.create(Into<Bench>(configuration))
                                    object.name = record.name
                                    object.age = record.age
                                }
                            })
                        }
                        return transactions
                    },
                    finish: {
                        try verify([
                            stack.fetchCount(From<Bench>(nil)), stack.fetchCount(From<Bench>("Archive")),
                        ])
                    })
            },
            raw: Side {
                let databases = try ["raw-cross-a", "raw-cross-b"].map {
                    try Fixtures.rawDatabase(at: workspace.newFile($0))
                }
                let inserts = try databases.map { try $0.prepare("INSERT INTO Bench (name, age) VALUES (?, ?)") }
                let transient = strata_sqlite_transient()
                return Run(
                    body: {
                        for index in 0..<transactions {
                            for database in databases { try database.execute("BEGIN IMMEDIATE") }
                            for (offset, insert) in inserts.enumerated() {
                                let record = pairs[2 * index + offset]
                                sqlite3_bind_text(insert.handle, 1, record.name, -1, transient)
                                sqlite3_bind_int64(insert.handle, 2, Int64(record.age))
                                _ = try insert.step()
                                try insert.reset()
                            }
                            for database in databases { try database.execute("COMMIT") }
                        }
                        return transactions
                    },
                    finish: { try verify(databases.map(Fixtures.rawCount)) })
            })
    }
}
