import CSQLite
import Foundation
@testable import Strata
@testable import StrataPostgreSQL
import Testing
import ThrowawayPostgreSQL

/// libpq underneath the PostgreSQL store: statements written with SQLite's
/// `?` placeholders, values in binary both ways, errors mapped to SQLite's codes.
@Suite(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
struct PostgreSQLSessionTests {
    /// A session in a schema of its own.
    private func session() throws -> PostgreSQLSession {
        try PostgreSQLServer.sessionInNewSchema().session
    }

    @Test func placeholdersOutsideQuotesAndCommentsAreNumbered() {
        let sql = #"SELECT '?', "a?b", ? -- what?"# + "\n, ? FROM t WHERE x = '''?' AND y = ?"
        #expect(ServerSQL.translated(sql, numberingPlaceholders: true)
            == #"SELECT '?', "a?b", $1 -- what?"# + "\n, $2 FROM t WHERE x = '''?' AND y = $3")
    }

    /// PostgreSQL cuts names past 63 bytes, so that two long ones could
    /// become one: a quoted name past them is sent as its stored name (46
    /// bytes of it and a hash of the whole), wherever it is in a statement but
    /// in literals and comments; shorter names, and every name on SQLite, are
    /// stored as they are.
    @Test func quotedNamesPastSixtyThreeBytesAreSentAsTheirStoredNames() {
        let long = "_strata_link_" + String(repeating: "e", count: 50) + "_field"
        let stored = "_strata_link_eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee_9cea5e7c739ef3fc"
        #expect(SQLDialect.postgreSQL.storedName(long) == stored, "the same in every process")
        #expect(SQLDialect.postgreSQL.storedName(long + "2").utf8.count == 63)
        #expect(SQLDialect.postgreSQL.storedName(long + "2") != stored)
        #expect(SQLDialect.postgreSQL.storedName(String(long.prefix(63))) == String(long.prefix(63)))
        #expect(SQLDialect.sqlite.storedName(long) == long)
        let utf8 = String(repeating: "é", count: 40)  // 80 bytes: cut between characters
        #expect(SQLDialect.postgreSQL.storedName(utf8).hasPrefix(String(repeating: "é", count: 23) + "_"))

        let quoted = "x\"" + long  // "x""…" in SQL
        let storedQuoted = SQLDialect.postgreSQL.storedName(quoted).replacingOccurrences(of: "\"", with: "\"\"")
        let sql = #"INSERT INTO "\#(long)" ("a""b") SELECT '"\#(long)"', $$"\#(long)"$$, ?"#
            + #" -- "\#(long)"# + "\n" + #"FROM "x""\#(long)" /* "\#(long)" /* ? */ */ WHERE y = ?"#
        let sent = #"INSERT INTO "\#(stored)" ("a""b") SELECT '"\#(long)"', $$"\#(long)"$$, $1"#
            + #" -- "\#(long)"# + "\n" + #"FROM "\#(storedQuoted)" /* "\#(long)" /* ? */ */ WHERE y = $2"#
        #expect(ServerSQL.translated(sql, numberingPlaceholders: true) == sent)
        #expect(ServerSQL.translated(#"DROP TABLE "\#(long)""#, numberingPlaceholders: false)
            == #"DROP TABLE "\#(stored)""#)
        #expect(ServerSQL.translated("SELECT '?'", numberingPlaceholders: false) == "SELECT '?'")
    }

    @Test func valuesOfEveryStorageClassRoundTrip() throws {
        let session = try session()
        try session.execute("""
            CREATE TABLE t (i BIGINT, r DOUBLE PRECISION, s TEXT COLLATE "C", b BYTEA)
            """)
        var generator = SplitMix64(seed: 15)
        var rows: [[StoredValue]] = []
        for _ in 0..<200 {
            let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in
                ["a", "ß", "é", "e\u{301}", "ı", "😀", "'", "?", "\u{1}"].randomElement(using: &generator)!
            })
            let row: [StoredValue] = [
                Bool.random(using: &generator) ? .integer(Int64.random(in: .min ... .max, using: &generator)) : .null,
                .real([0.0, -0.0, .infinity, -.infinity, 1e-300, Double.random(in: -1e9...1e9, using: &generator)]
                    .randomElement(using: &generator)!),
                .text(text),
                .blob(Data((0..<Int.random(in: 0...9, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })),
            ]
            let insert = try session.statement("INSERT INTO t VALUES (?, ?, ?, ?)")
            try insert.bind(row)
            #expect(try insert.step() == false)
            #expect(insert.changes == 1)
            rows.append(row)
        }
        let select = try session.statement("SELECT i, r, s, b FROM t")
        var read: [[StoredValue]] = []
        while try select.step() { read.append((0..<4).map { select.value(at: $0) }) }
        #expect(read.count == rows.count)
        for (written, back) in zip(rows, read) {
            #expect(written.count == back.count)
            for (a, b) in zip(written, back) { #expect(a.isIdentical(to: b), "\(a) read back as \(b)") }
        }
    }

    @Test func parametersTakeTheTypeTheServerInferred() throws {
        let session = try session()
        try session.execute("CREATE TABLE t (r DOUBLE PRECISION, n NUMERIC, flag BOOLEAN)")
        let insert = try session.statement("INSERT INTO t VALUES (?, ?, ?)")
        try insert.bind([.integer(3), .text("12.50"), .integer(1)])
        _ = try insert.step()
        let select = try session.statement("SELECT r, n, flag, n * 2, SUM(r) OVER () FROM t WHERE r = ?")
        try select.bind([.integer(3)])
        #expect(try select.step())
        #expect(select.value(at: 0) == .real(3))
        #expect(select.value(at: 1) == .real(12.5))
        #expect(select.value(at: 2) == .integer(1))
        #expect(select.value(at: 3) == .real(25))  // numeric with a scale: a real
        #expect(select.value(at: 4) == .real(3))
        #expect(try select.step() == false)
        // A fraction cannot be an integer parameter: a typed error, no rounding.
        let count = try session.statement("SELECT count(*) FROM t WHERE n > ? LIMIT ?")
        #expect(throws: DatabaseError.self) { try count.bind([.integer(1), .real(1.5)]) }
    }

    @Test func numericValuesDecodeExactly() throws {
        let session = try session()
        let cases: [(String, StoredValue)] = [
            ("0", .integer(0)), ("10000", .integer(10_000)), ("-123456789012", .integer(-123_456_789_012)),
            ("9223372036854775807", .integer(.max)), ("-9223372036854775808", .integer(.min)),
            ("9223372036854775808", .real(9_223_372_036_854_775_808)), ("0.5", .real(0.5)),
            ("-1234.0625", .real(-1234.0625)), ("1e-20", .real(1e-20)), ("'NaN'", .real(.nan)),
        ]
        for (literal, expected) in cases {
            let select = try session.statement("SELECT \(literal)::numeric")
            #expect(try select.step())
            #expect(select.value(at: 0).isIdentical(to: expected), "\(literal)")
        }
    }

    @Test func errorsCarryTheSQLStateAndSQLitesCode() throws {
        let session = try session()
        try session.execute("CREATE TABLE t (k BIGINT UNIQUE NOT NULL)")
        let insert = try session.statement("INSERT INTO t VALUES (?)")
        try insert.bind([.integer(1)])
        _ = try insert.step()
        for (value, state, code) in [(StoredValue.integer(1), "23505", Int32(2067)), (.null, "23502", 1299)] {
            let again = try session.statement("INSERT INTO t VALUES (?)")
            try again.bind([value])
            do {
                _ = try again.step()
                Issue.record("inserting \(value) should fail")
            } catch let error as DatabaseError {
                #expect(error.sqlState == state)
                #expect(error.code == code)
                #expect(error.sql == "INSERT INTO t VALUES (?)")
            }
        }
        #expect(throws: DatabaseError.self) { try session.statement("SELECT nothing FROM t") }
        // PostgreSQL's text cannot hold NUL, which SQLite's can: a typed error.
        let text = try session.statement("SELECT length(?::text)")
        try text.bind([.text("a\0b")])
        #expect(performing: { _ = try text.step() }, throws: { error in
            (error as? DatabaseError)?.code == SQLITE_MISMATCH
        })
    }

    @Test func notificationsArriveOnTheListeningSession() throws {
        let listener = try session()
        let sender = try session()
        try listener.execute("LISTEN strata_test")
        #expect(try listener.takeNotifications().isEmpty)
        try sender.execute("BEGIN; NOTIFY strata_test, 'one'; COMMIT; NOTIFY strata_test, 'two'")
        var received: [String] = []
        // However long the server takes to deliver them (no deadline: one
        // that never comes is a hang, which CI's watch reports by name).
        while received.count < 2 {
            received += try listener.takeNotifications().map(\.payload)
            if received.count < 2 { usleep(5_000) }
        }
        #expect(received == ["one", "two"])
    }

    @Test func aSessionReconnectsAfterTheServerClosedIt() throws {
        let session = try session()
        let other = try self.session()
        let pid = try session.statement("SELECT pg_backend_pid()")
        #expect(try pid.step())
        let backend = pid.value(at: 0)
        let kill = try other.statement("SELECT pg_terminate_backend(?::int)")
        try kill.bind([backend])
        _ = try kill.step()
        // Once the server's goodbye is on the socket, the next use notices it
        // and reconnects, rather than fail (a fresh connection: search_path
        // is back to public).
        #expect(session.hasInput(waitingAtMost: 10_000))
        try session.execute("SELECT 1")
        #expect(session.isConnected && session.connectionNumber == 2)
    }
}
