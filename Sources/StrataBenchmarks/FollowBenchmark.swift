import Foundation
import Strata

/// The follow benchmark's model: a row a writer process stamps with the
/// commit that last wrote it and the time it sent that commit.
final class FollowBench: ManagedObject {
    @Field.Stored("slot") var slot: Int = 0
    @Field.Stored("sequence") var sequence: Int = -1
    /// ``sharedClockNanoseconds()`` in the writer just before its commit began.
    @Field.Stored("sent") var sent: Int64 = 0
}

let followBenchSchema = Schema("V1", entities: [Entity<FollowBench>("FollowBench")])

/// Cross-process latency: how long another process's commit takes to reach
/// a ListMonitor's observer here, with the default polling interval and a
/// short one.
///
/// Per interval: this process opens a fresh store with a DataStack, writes
/// ``slots`` rows, and keeps a ListMonitor of every row, newest commit first,
/// with an observer. It starts two children of this executable: the writer
/// (`--follow-writer`), which opens its own DataStack on the file and makes
/// ``commits`` commits spaced by a seeded random 5–40 ms, each stamping one
/// row (every fifth commit inserts it, the others update one) with its
/// sequence number and send time; and a raw follower (`--follow-raw`), which
/// polls `PRAGMA data_version` at the same interval through the C API and
/// reads the new rows when it moved. Both followers take, for every commit,
/// the time they saw it minus its send time, on the system-wide monotonic
/// clock. This process's main actor only sleeps while it waits.
///
/// On PostgreSQL (`pgLatency`) the store is a new schema, and both followers
/// wait for the commits' notifications instead of polling: Strata's stack
/// through its commit listener, the raw follower (`--follow-raw-postgresql`)
/// `LISTEN`ing on its socket (``RawPostgreSQLFollower``).
@MainActor
enum FollowBenchmark {
    static let commits = 200
    static let slots = 50
    static let seed: UInt64 = 2026
    /// Far beyond 200 commits at 40 ms at most: reaching it is a failure.
    static let timeout = Duration.seconds(60)

    /// On SQLite files; the raw follower polls `PRAGMA data_version` as often as Strata polls.
    static func run(in workspace: Workspace) async throws {
        try await run(label: "follow", intervals: [.milliseconds(20), .milliseconds(5)], in: workspace) {
            .file(workspace.newFile("follow"))
        }
    }

    /// On PostgreSQL, in a new schema; both followers wait for `NOTIFY`
    /// (a stack on a server store is not polled).
    static func runPostgreSQL(in workspace: Workspace) async throws {
        try await run(label: "pg follow", intervals: [nil], in: workspace) {
            .postgreSQL(schema: workspace.newSchema("follow"))
        }
    }

    /// One run per polling interval; `nil`: the stack's default, named as not polled.
    private static func run(
        label: String, intervals: [Duration?], in workspace: Workspace, newStore: () -> FollowStore
    ) async throws {
        for interval in intervals {
            let store = newStore()
            let (strata, raw) = try await measure(interval: interval, store: store, in: workspace)
            let how = interval.map { "poll \($0.milliseconds.formatted()) ms" } ?? "NOTIFY"
            var name = "\(label) \(commits) commits, \(how)"
            name += String(repeating: " ", count: max(1, 32 - name.count))
            print("\(name)strata \(strata.line)   \(store.rawName) p50 \(format(raw.percentile(0.5), 1))   "
                  + "p90 \(format(raw.percentile(0.9), 1))   p99 \(format(raw.percentile(0.99), 1)) ms   "
                  + "\(format(strata.percentile(0.5) / raw.percentile(0.5), 2))x")
        }
    }

    /// The latencies both followers saw for one writer run at `interval`.
    private static func measure(
        interval: Duration?, store: FollowStore, in workspace: Workspace
    ) async throws -> (strata: LatencySummary, raw: LatencySummary) {
        let stack = DataStack(followBenchSchema)
        if let interval { stack.pollingInterval = interval }
        try stack.addStorageAndWait(try store.storage())
        try stack.perform(synchronous: { tx in
            for slot in 0..<slots { tx.create(Into<FollowBench>()).slot = slot }
        })
        let monitor = try stack.monitorList(From<FollowBench>().orderBy(.descending(\.$sequence)))
        let observer = FollowObserver()
        monitor.addObserver(observer)

        let deadline = ContinuousClock.now + timeout
        let rawOutput = workspace.newFile("follow").appendingPathExtension("raw-latencies")
        let rawFollower = try launchSelf([
            store.rawFollowerFlag, store.argument, "\(commits)",
            "\(Int64((interval ?? .milliseconds(20)).milliseconds * 1_000))",
            rawOutput.path,
        ])
        // The writer starts once the raw follower has read its first data version.
        let ready = rawOutput.appendingPathExtension("ready")
        while !FileManager.default.fileExists(atPath: ready.path) {
            try await wait(for: [rawFollower], until: deadline, "the raw follower did not start")
        }
        let writer = try launchSelf([FollowWriter.flag, store.argument, "\(commits)", "\(seed)"])
        let children = [writer, rawFollower]
        while observer.lastSequence < commits - 1 || children.contains(where: \.isRunning) {
            try await wait(for: children, until: deadline, "\(commits) commits were not all followed")
        }
        for child in children where child.terminationStatus != 0 {
            throw BenchmarkError(description: "a follow child process failed with status \(child.terminationStatus)")
        }
        guard observer.missed == 0, observer.refetches == 0 else {
            throw BenchmarkError(description:
                "the monitor missed \(observer.missed) commits and re-fetched \(observer.refetches) times")
        }
        let rawLatencies = try String(contentsOf: rawOutput, encoding: .utf8)
            .split(separator: "\n").compactMap { Int64($0) }
        guard observer.latencies.count == commits, rawLatencies.count == commits else {
            throw BenchmarkError(description:
                "followed \(observer.latencies.count) and \(rawLatencies.count) of \(commits) commits")
        }
        withExtendedLifetime(monitor) {}
        return (LatencySummary(observer.latencies), LatencySummary(rawLatencies))
    }

    /// Sleeps a little, without holding the main actor; throws when a child
    /// failed or the deadline passed (then stops the children).
    private static func wait(
        for children: [Process], until deadline: ContinuousClock.Instant, _ what: String
    ) async throws {
        let failed = children.first { !$0.isRunning && $0.terminationStatus != 0 }
        guard failed == nil, ContinuousClock.now < deadline else {
            for child in children where child.isRunning { child.terminate() }
            throw BenchmarkError(description: failed.map {
                "a follow child process failed with status \($0.terminationStatus)"
            } ?? "timed out after \(timeout): \(what)")
        }
        try await Task.sleep(for: .milliseconds(25))
    }

    /// Starts this executable again with `arguments`; its output goes to ours.
    private static func launchSelf(_ arguments: [String]) throws -> Process {
        guard let executable = Bundle.main.executableURL else {
            throw BenchmarkError(description: "cannot find the benchmark executable")
        }
        fflush(nil)
        let child = Process()
        child.executableURL = executable
        child.arguments = arguments
        try child.run()
        return child
    }
}

/// Takes, in `listMonitorDidChange`, the latency of every commit the change
/// brought: the list is sorted newest commit first, so the new rows are at
/// its top.
@MainActor
final class FollowObserver: ListObserver {
    typealias ListEntityType = FollowBench
    private(set) var lastSequence = -1
    private(set) var latencies: [Int64] = []
    /// Commits whose row a later commit rewrote before this observer saw it.
    private(set) var missed = 0
    /// Times the monitor re-fetched instead of applying the change sets.
    private(set) var refetches = 0

    func listMonitorDidChange(_ monitor: ListMonitor<FollowBench>) {
        let now = sharedClockNanoseconds()
        var newest = lastSequence
        var seen = 0
        for index in 0..<monitor.numberOfObjects() {
            let row = monitor[index]
            guard row.sequence > lastSequence else { break }
            latencies.append(now - row.sent)
            newest = max(newest, row.sequence)
            seen += 1
        }
        missed += newest - lastSequence - seen
        lastSequence = newest
    }

    func listMonitorDidRefetch(_ monitor: ListMonitor<FollowBench>) {
        refetches += 1
        listMonitorDidChange(monitor)
    }
}
