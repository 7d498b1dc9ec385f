import CSQLite
import Foundation
import Strata

/// The work both sides share between scenarios: opening a store and
/// inserting records, once through Strata and once through the C API.
@MainActor
enum Fixtures {
    // MARK: Strata

    /// A stack on a new SQLite store at `url` (WAL, synchronous NORMAL: Strata's defaults).
    static func strataStack(at url: URL, schema: Schema = benchSchema) throws -> DataStack {
        let stack = DataStack(schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        return stack
    }

    /// Creates one object per record in one synchronous transaction.
    static func strataInsert(_ records: [BenchRecord], into stack: DataStack) throws {
        try stack.perform(synchronous: { tx in
            for record in records {
                let object = tx.create(Into<Bench>())
                object.name = record.name
                object.age = record.age
                object.score = record.score
                object.email = record.email
            }
        })
    }

    // MARK: Raw SQLite

    /// A connection to a new database at `url` with the ``Bench`` table, in
    /// WAL mode with synchronous NORMAL, like Strata's store.
    static func rawDatabase(at url: URL) throws -> RawDatabase {
        let database = try RawDatabase(url)
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; \(RawSchema.createTable)")
        return database
    }

    /// Inserts every record in one transaction with one prepared statement.
    static func rawInsert(_ records: [BenchRecord], into database: RawDatabase) throws {
        try database.execute("BEGIN")
        let insert = try database.prepare(RawSchema.insert)
        let transient = strata_sqlite_transient()
        for record in records {
            sqlite3_bind_text(insert.handle, 1, record.name, -1, transient)
            sqlite3_bind_int64(insert.handle, 2, Int64(record.age))
            sqlite3_bind_double(insert.handle, 3, record.score)
            if let email = record.email {
                sqlite3_bind_text(insert.handle, 4, email, -1, transient)
            } else {
                sqlite3_bind_null(insert.handle, 4)
            }
            _ = try insert.step()
            try insert.reset()
        }
        try database.execute("COMMIT")
    }

    /// Counts the rows of the raw ``Bench`` table.
    static func rawCount(_ database: RawDatabase) throws -> Int {
        let count = try database.prepare("SELECT count(*) FROM Bench")
        guard try count.step() else { return 0 }
        return Int(sqlite3_column_int64(count.handle, 0))
    }
}
