import Foundation
@testable import Strata
import Testing

/// The SQLite connection's statement handling: what it leaves behind when a
/// caller stops early, and the transaction statements it keeps prepared.
@Suite("Connection: statements")
struct ConnectionTests {
    private struct Stop: Error {}

    /// A connection with a table of `rows` rows.
    private func connection(rows: Int, in directory: TemporaryDirectory) throws -> Connection {
        let connection = try Connection(path: directory.file("store.sqlite").path, readOnly: false)
        try connection.execute("CREATE TABLE t (n INTEGER)")
        for n in 0..<rows { try connection.run("INSERT INTO t (n) VALUES (?)", [.integer(Int64(n))]) }
        return connection
    }

    /// A query whose row closure throws still resets its statement: one left
    /// stepping would keep reading the table, and dropping it would fail
    /// ("database table is locked").
    @Test(arguments: [0, 1, 2, 7])
    func aQueryThatThrowsLeavesNoStatementReading(stopAt row: Int) throws {
        let directory = TemporaryDirectory()
        let connection = try connection(rows: 8, in: directory)
        defer { connection.close() }
        var read = 0
        #expect(throws: Stop.self) {
            _ = try connection.query("SELECT n FROM t ORDER BY n") { statement -> Int64 in
                if read == row { throw Stop() }
                read += 1
                return statement.int64(at: 0)
            }
        }
        #expect(read == row)
        try connection.execute("DROP TABLE t")
        #expect(try connection.scalar("SELECT count(*) FROM sqlite_master WHERE name = 't'") == .integer(0))
    }

    /// `BEGIN` and `COMMIT` run prepared, many times over, leave no
    /// transaction open, and a write between them lands.
    @Test func preparedTransactionStatementsBeginAndEndEachTime() throws {
        let directory = TemporaryDirectory()
        let connection = try connection(rows: 0, in: directory)
        defer { connection.close() }
        for n in 0..<20 {
            try connection.executePrepared(connection.dialect.beginWrite)
            #expect(connection.isInTransaction)
            try connection.run("INSERT INTO t (n) VALUES (?)", [.integer(Int64(n))])
            try connection.commit()
            #expect(!connection.isInTransaction)
        }
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(20))
        // A COMMIT with no transaction fails as `sqlite3_exec`'s did, and leaves the connection usable.
        #expect(throws: (any Error).self) { try connection.commit() }
        try connection.run("INSERT INTO t (n) VALUES (20)")
        #expect(try connection.scalar("SELECT count(*) FROM t") == .integer(21))
    }
}
