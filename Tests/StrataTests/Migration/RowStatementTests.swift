import Testing

@testable import Strata

/// A migration hook on a server store may read and write rows only; with no
/// authorizer there, the statement's words decide (`RowStatement`).
@Suite("Migration hooks on a server: rows only, told from the statement")
struct RowStatementTests {
    @Test(arguments: [
        "SELECT count(*) FROM \"Person\"", "select * from \"Person\" where \"name\" = 'DROP TABLE x'",
        "WITH a AS (SELECT 1) SELECT * FROM a", "VALUES (1)", "  -- a comment\n  SELECT 1",
        "/* INSERT */ SELECT 1",
    ])
    func readsMayBeQueried(_ sql: String) throws {
        try RowStatement.check(sql, writing: false)
        try RowStatement.check(sql, writing: true)
    }

    @Test(arguments: [
        "INSERT INTO \"Person\" (\"name\") VALUES (?)", "update \"Person\" SET \"age\" = 1",
        "DELETE FROM \"Person\"", "DELETE FROM \"_strata_link_Club_members\"",
        "WITH gone AS (DELETE FROM \"Person\" RETURNING _pk) SELECT count(*) FROM gone",
    ])
    func rowWritesMayBeExecutedOnly(_ sql: String) throws {
        try RowStatement.check(sql, writing: true)
        #expect {
            try RowStatement.check(sql, writing: false)
        } throws: { error in
            if case .sqlite(8, _, _)? = error as? StrataError { true } else { false }
        }
    }

    @Test(arguments: [
        "COMMIT", "begin", "SAVEPOINT s", "ROLLBACK", "DROP TABLE \"Person\"", "CREATE TABLE t (x)",
        "ALTER TABLE \"Person\" ADD COLUMN x BIGINT", "SET search_path TO other", "TRUNCATE \"Person\"",
        "SELECT * INTO copy FROM \"Person\"", "select * into \"copy\" from \"Person\"",
        "UPDATE _strata_meta SET value = 'V9'", "DELETE FROM \"_strata_log\"",
        "INSERT INTO _STRATA_SEQUENCE VALUES ('x', 1)", "/* SELECT */ DROP TABLE \"Person\"",
        "LOCK TABLE \"Person\"", "",
    ])
    func everythingElseIsRefused(_ sql: String) {
        for writing in [false, true] {
            #expect {
                try RowStatement.check(sql, writing: writing)
            } throws: { error in
                if case .sqlite(23, _, _)? = error as? StrataError { true } else { false }
            }
        }
    }
}
