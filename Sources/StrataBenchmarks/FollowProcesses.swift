import CSQLite
import Foundation
import Strata

/// The follow benchmark's writer process:
/// `StrataBenchmarks --follow-writer <store> <commits> <seed>`, the store a
/// path or `postgresql:<schema>` (``FollowStore``).
///
/// Opens its own DataStack on the store the benchmark made, then makes
/// `commits` commits, one row each, each after a seeded random pause of 5–40
/// ms so that the commits do not fall into step with the follower's polling.
/// Commit `n` writes `sequence = n` and `sent` = the shared clock just before
/// the transaction begins; every fifth inserts a new row, the others update
/// the existing rows in turn.
@MainActor
enum FollowWriter {
    static let flag = "--follow-writer"

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 3, let commits = Int(arguments[1]), let seed = UInt64(arguments[2]) else {
            throw BenchmarkError(description: "usage: \(flag) <store> <commits> <seed>")
        }
        let stack = DataStack(followBenchSchema)
        stack.defaultAuthor = "follow-writer"
        try stack.addStorageAndWait(try FollowStore(argument: arguments[0]).storage())
        let rows = try stack.fetchObjectIDs(From<FollowBench>().orderBy(.ascending(\.$slot)))
        guard !rows.isEmpty else { throw BenchmarkError(description: "the follow store has no rows") }
        var random = SeededGenerator(seed: seed)
        for sequence in 0..<commits {
            try await Task.sleep(for: .milliseconds(5 + Int(random.next() % 36)))
            let sent = sharedClockNanoseconds()
            try stack.perform(synchronous: { tx in
                let row: FollowBench
                if sequence % 5 == 4 {
                    row = tx.create(Into<FollowBench>())
                    row.slot = rows.count + sequence
                } else if let existing = tx.edit(rows[sequence % rows.count]) {
                    row = existing
                } else {
                    throw BenchmarkError(description: "row \(sequence % rows.count) is gone")
                }
                row.sequence = sequence
                row.sent = sent
            })
        }
    }
}

/// The follow benchmark's raw-SQLite follower process:
/// `StrataBenchmarks --follow-raw <store path> <commits> <interval µs> <output path>`.
///
/// What a hand-written follower would do with the C API: every interval
/// (the same sleep loop as Strata's watcher: sleep, then look), step a
/// prepared `PRAGMA data_version`; when it moved, read the rows of the new
/// commits and take each one's latency. Creates `<output path>.ready` once
/// it has read the first data version, and writes one latency in
/// nanoseconds a line to `<output path>` when it has seen every commit.
enum RawFollower {
    static let flag = "--follow-raw"

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 4, let commits = Int(arguments[1]), let micros = Int64(arguments[2]) else {
            throw BenchmarkError(description: "usage: \(flag) <store path> <commits> <interval µs> <output path>")
        }
        let interval = Duration.microseconds(micros)
        let database = try RawDatabase(URL(fileURLWithPath: arguments[0]))
        let version = try database.prepare("PRAGMA data_version")
        let select = try database.prepare(
            #"SELECT "sequence", "sent" FROM "FollowBench" WHERE "sequence" > ? ORDER BY "sequence""#)
        func dataVersion() throws -> Int64 {
            try version.reset()
            guard try version.step() else { throw BenchmarkError(description: "no data_version") }
            return sqlite3_column_int64(version.handle, 0)
        }

        var known = try dataVersion()
        let output = URL(fileURLWithPath: arguments[3])
        try Data().write(to: output.appendingPathExtension("ready"))
        var last: Int64 = -1
        var latencies: [Int64] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while last < commits - 1 {
            guard ContinuousClock.now < deadline else {
                throw BenchmarkError(description: "raw follower: saw \(last + 1) of \(commits) commits")
            }
            try await Task.sleep(for: interval)
            let current = try dataVersion()
            guard current != known else { continue }
            known = current
            try select.reset()
            sqlite3_bind_int64(select.handle, 1, last)
            var sent: [(sequence: Int64, sent: Int64)] = []
            while try select.step() {
                sent.append((sqlite3_column_int64(select.handle, 0), sqlite3_column_int64(select.handle, 1)))
            }
            let now = sharedClockNanoseconds()
            for row in sent {
                latencies.append(now - row.sent)
                last = max(last, row.sequence)
            }
        }
        try latencies.map(String.init).joined(separator: "\n")
            .write(to: output, atomically: true, encoding: .utf8)
    }
}
