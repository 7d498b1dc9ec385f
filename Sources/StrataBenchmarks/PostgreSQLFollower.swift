import CLibPQ
import Foundation
import Strata

/// The follow benchmark's raw-libpq follower process, for a store on
/// PostgreSQL: `StrataBenchmarks --follow-raw-postgresql postgresql:<schema>
/// <commits> <interval µs> <output path>`.
///
/// What a hand-written follower would do with libpq: `LISTEN` on the
/// channel Strata's commits notify (`strata:<schema>`), wait on the
/// connection's socket (`poll`) rather than sleep an interval (which it
/// takes only to share ``RawFollower``'s arguments), and on a notification
/// read the rows of the new commits with a prepared `SELECT`, taking each
/// one's latency. Creates `<output path>.ready` once it listens, and writes
/// one latency in nanoseconds a line to `<output path>` when it has seen
/// every commit.
enum RawPostgreSQLFollower {
    static let flag = "--follow-raw-postgresql"

    @MainActor
    static func run(_ arguments: [String]) throws {
        guard arguments.count == 4, case .postgreSQL(let schema) = FollowStore(argument: arguments[0]),
              let commits = Int64(arguments[1])
        else {
            throw BenchmarkError(
                description: "usage: \(flag) postgresql:<schema> <commits> <interval µs> <output path>")
        }
        let connection = try RawPostgreSQL(try PostgreSQLFixtures.connectionString(), schema: schema)
        try connection.execute("LISTEN \(quotedIdentifier(SQLDialect.commitChannel(schema)))")
        let select = try connection.prepare(
            #"SELECT "sequence", "sent" FROM "FollowBench" WHERE "sequence" > $1 ORDER BY "sequence""#,
            types: [RawPostgreSQLType.int8])
        let parameters = RawParameters(capacity: 1)

        let output = URL(fileURLWithPath: arguments[3])
        try Data().write(to: output.appendingPathExtension("ready"))
        var last: Int64 = -1
        var latencies: [Int64] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while last < commits - 1 {
            guard ContinuousClock.now < deadline else {
                throw BenchmarkError(description: "raw PostgreSQL follower: saw \(last + 1) of \(commits) commits")
            }
            // Wait for the server to send something (a notification), at most a second.
            var socket = pollfd(fd: PQsocket(connection.handle), events: Int16(POLLIN), revents: 0)
            _ = poll(&socket, 1, 1_000)
            guard PQconsumeInput(connection.handle) == 1 else {
                throw BenchmarkError(description: "raw PostgreSQL follower: the connection failed")
            }
            var notified = false
            while let notification = PQnotifies(connection.handle) {
                notified = true
                PQfreemem(notification)
            }
            guard notified else { continue }
            parameters.removeAll()
            parameters.append(last)
            let result = try select.run(parameters)
            let now = sharedClockNanoseconds()
            for row in 0..<result.rowCount {
                latencies.append(now - result.int64(row, 1))
                last = max(last, result.int64(row, 0))
            }
        }
        try latencies.map(String.init).joined(separator: "\n")
            .write(to: output, atomically: true, encoding: .utf8)
    }
}
