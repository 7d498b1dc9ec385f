import Foundation
import Testing

@testable import Strata
@testable import StrataPostgreSQL
import ThrowawayPostgreSQL

/// What the server-side fold costs, with and without its ASCII fast path,
/// against a plain `translate()` over the whole lower-case table. Prints its
/// figures; run with `STRATA_POSTGRESQL_BENCHMARK=1`.
@Suite(
    .enabled(
        if: PostgreSQLServer.isEnabled
            && ProcessInfo.processInfo.environment["STRATA_POSTGRESQL_BENCHMARK"] != nil))
struct PostgreSQLFunctionsBenchmarkTests {
    @Test func foldOfAHundredThousandRows() throws {
        let connection = try PostgreSQLServer.shared().connectionString
        let session = try PostgreSQLSession(connectionString: connection)
        let fast = "strata_bench_fast", slow = "strata_bench_slow"
        try session.execute(
            """
            DROP SCHEMA IF EXISTS \(fast) CASCADE; DROP SCHEMA IF EXISTS \(slow) CASCADE;
            CREATE SCHEMA \(fast); CREATE SCHEMA \(slow); SET search_path TO \(fast)
            """)
        try session.createFunctions(in: fast)
        try session.execute(PostgreSQLFunctions.textFunctions(in: slow, asciiFastPath: false))
        // Half ASCII, a quarter with lower-case accented letters, a quarter
        // with upper-case non-ASCII letters.
        try session.execute(
            """
            CREATE TABLE t AS SELECT CASE i % 4
                WHEN 0 THEN 'Hello World Number ' || i WHEN 1 THEN 'plain ascii text ' || i
                WHEN 2 THEN 'héllo wörld straße ' || i ELSE 'Émile Ørsted ΣΟΦΙΑ ' || i END AS s
            FROM generate_series(1, 100000) AS i;
            ANALYZE t
            """)
        let tables = UnicodeFoldTables.current
        let from = String(String.UnicodeScalarView(tables.singleLowercase.map(\.from)))
        let to = String(String.UnicodeScalarView(tables.singleLowercase.map(\.to)))
        let naiveCase =
            "translate(lower(s COLLATE \"C\"), \(PostgreSQLFunctions.literal(from)), \(PostgreSQLFunctions.literal(to)))"
        let queries = [
            ("s = ?", "SELECT count(*) FROM t WHERE s = ?"),
            ("lower(s) = ?", "SELECT count(*) FROM t WHERE lower(s) = ?"),
            ("fold 1, fast path", "SELECT count(*) FROM t WHERE \(fast).strata_fold(s, 1) = ?"),
            ("fold 2, fast path", "SELECT count(*) FROM t WHERE \(fast).strata_fold(s, 2) = ?"),
            ("fold 3, fast path", "SELECT count(*) FROM t WHERE \(fast).strata_fold(s, 3) = ?"),
            ("fold 1, no fast path", "SELECT count(*) FROM t WHERE \(slow).strata_fold(s, 1) = ?"),
            ("fold 2, no fast path", "SELECT count(*) FROM t WHERE \(slow).strata_fold(s, 2) = ?"),
            ("fold 3, no fast path", "SELECT count(*) FROM t WHERE \(slow).strata_fold(s, 3) = ?"),
            ("translate() of the whole table", "SELECT count(*) FROM t WHERE \(naiveCase) = ?"),
        ]
        for (name, sql) in queries {
            var times: [Double] = []
            // The whole-table translate() takes half a minute: once is enough.
            for _ in 0..<(name.hasPrefix("translate") ? 1 : 3) {
                let statement = try session.statement(sql)
                try statement.bind([.text("x")])
                let start = ContinuousClock.now
                _ = try statement.step()
                let elapsed = ContinuousClock.now - start
                times.append(
                    Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds)
                        / 1e18)
            }
            print("\(name): \(Int(times.sorted()[times.count / 2] * 1000)) ms (100,000 rows)")
        }
        try session.execute("DROP SCHEMA \(fast) CASCADE; DROP SCHEMA \(slow) CASCADE")
    }
}
