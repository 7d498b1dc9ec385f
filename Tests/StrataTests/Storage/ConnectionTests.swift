import CSQLite
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

    /// A commit's writes bind texts and blobs in place instead of letting
    /// SQLite copy them (`Statement.execute(_:rowID:)`): over random rows of
    /// every storage class (inline and heap texts, empty ones, NULs inside,
    /// blobs), inserted and then partly updated through the same two
    /// statements, every stored value equals the one given byte for byte,
    /// and no statement keeps a binding after it ran.
    @Test func writesBindTextsInPlaceAndKeepNoBinding() throws {
        let directory = TemporaryDirectory()
        let connection = try connection(rows: 0, in: directory)
        defer { connection.close() }
        try connection.execute("CREATE TABLE w (a, b, c, _pk INTEGER PRIMARY KEY)")
        var random = SplitMix64.random()
        let pieces = ["", "a", "é", "e\u{301}", "\u{0}", "🙂", "abcdefghijklmnop", "Straße"]
        func value() -> StoredValue {
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return .null
            case 1: return .integer(Int64.random(in: .min ... .max, using: &random))
            case 2: return .real(Double.random(in: -1e9...1e9, using: &random))
            case 3:
                return .text((0..<Int.random(in: 0...8, using: &random))
                    .map { _ in pieces.randomElement(using: &random)! }.joined())
            default: return .blob(random.bytes(Int.random(in: 0...40, using: &random)))
            }
        }
        let insert = try connection.statement("INSERT INTO w (a, b, c, _pk) VALUES (?, ?, ?, ?)")
        let update = try connection.statement("UPDATE w SET a = ?, c = ? WHERE _pk = ?")
        var model: [Int64: [StoredValue]] = [:]
        for rowID in Int64(1)...300 {
            let row = [value(), value(), value()]
            try insert.execute(row, rowID: rowID)
            model[rowID] = row
        }
        for _ in 0..<300 {
            let rowID = Int64.random(in: 1...300, using: &random)
            let (a, c) = (value(), value())
            try update.execute([a, c], rowID: rowID)
            model[rowID]![0] = a
            model[rowID]![2] = c
        }
        for statement in [insert, update] {
            let expanded = try #require(sqlite3_expanded_sql(statement.handle))
            defer { sqlite3_free(expanded) }
            #expect(!String(cString: expanded).contains("'"), "a text is still bound")
            #expect(String(cString: expanded).contains("NULL"))
        }
        let stored = try connection.query("SELECT _pk, a, b, c FROM w ORDER BY _pk") { row in
            (row.int64(at: 0), [row.value(at: 1), row.value(at: 2), row.value(at: 3)])
        }
        #expect(stored.count == 300)
        for (rowID, values) in stored {
            let expected = try #require(model[rowID])
            for (column, value) in values.enumerated() {
                let same: Bool
                switch (value, expected[column]) {
                case (.text(let left), .text(let right)): same = Array(left.utf8) == Array(right.utf8)
                case (.blob(let left), .blob(let right)): same = left == right
                case (let left, let right): same = left.isIdentical(to: right)
                }
                #expect(same, "row \(rowID) column \(column): \(value) for \(expected[column]), seed \(random.seed)")
            }
        }
    }
}
