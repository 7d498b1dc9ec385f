import CSQLite
import Foundation
import Strata

/// The idle cost of following: what a stack with a live ListMonitor costs
/// while nothing changes, beside a hand-written raw-SQLite poll.
///
/// One store of ``rows`` ``FollowBench`` rows. The main actor then awaits a
/// ``phase`` of about 3 s in several ways, and each is measured by the
/// process's CPU time (`getrusage`, user + system, all threads) per second:
///
/// - nothing alive: the floor;
/// - for 20 ms and 5 ms:
///   - a bare main-actor loop of `Task.sleep(for: interval)`, counting its
///     wake-ups: the timer alone, shaped like Strata's watcher;
///   - the same loop making, after each wake-up, the look Strata's watcher
///     makes, through the C API on a connection of its own (the point read
///     `SELECT value FROM _strata_meta WHERE key = 'generation'`, then the
///     data-version file control), its thread CPU time taken around the look;
///   - a ListMonitor of all the rows with an observer, `pollingInterval` set
///     to `interval`: Strata's watcher, which wakes as often as the loop.
///
/// A poll's cost is its phase's CPU per second over the floor, divided by the
/// loop's wake-ups per second. Last, the same look in a tight loop
/// (100,000 times, caches warm), for scale.
@MainActor
enum IdleBenchmark {
    static let rows = 1_000
    static let phase = Duration.seconds(3)
    static let pointReads = 100_000

    static func run(in workspace: Workspace) async throws {
        let url = workspace.newFile("idle")
        let stack = DataStack(followBenchSchema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        try stack.perform(synchronous: { tx in
            for slot in 0..<rows { tx.create(Into<FollowBench>()).slot = slot }
        })
        let look = try StoreLook(url)

        let floor = try await measure { try await Task.sleep(for: phase) }
        print(label("idle 3 s, nothing alive") + "cpu \(format(floor.perSecond, 2)) ms/s")

        for interval in [Duration.milliseconds(20), .milliseconds(5)] {
            let milliseconds = interval.milliseconds.formatted()
            var wakeUps = 0
            let loop = try await measure {
                try await sleepLoop(interval) { wakeUps += 1 }
            }
            let wakeUpsPerSecond = Double(wakeUps) / loop.wall.seconds
            // Microseconds of CPU per wake-up above the floor, for `perSecond` ms/s.
            func perWakeUp(_ perSecond: Double) -> String {
                format((perSecond - floor.perSecond) * 1_000 / wakeUpsPerSecond, 0)
            }
            print(label("idle 3 s, sleep loop \(milliseconds) ms")
                  + "cpu \(format(loop.perSecond, 2)) ms/s   \(format(wakeUpsPerSecond, 1)) wake-ups/s   "
                  + "\(perWakeUp(loop.perSecond)) µs a wake-up")

            var looks = 0
            var lookCPU = Duration.zero
            let raw = try await measure {
                try await sleepLoop(interval) {
                    let start = threadCPUTime()
                    try look.look()
                    lookCPU += threadCPUTime() - start
                    looks += 1
                }
            }

            stack.pollingInterval = interval
            let monitor = try stack.monitorList(From<FollowBench>().orderBy(.ascending(\.$slot)))
            guard monitor.numberOfObjects() == rows else {
                throw BenchmarkError(description: "the monitor shows \(monitor.numberOfObjects()) of \(rows) rows")
            }
            let observer = IdleObserver()
            monitor.addObserver(observer)
            try await Task.sleep(for: .milliseconds(100))  // the new interval reaches the watcher
            let strata = try await measure { try await Task.sleep(for: phase) }
            guard observer.changes == 0 else {
                throw BenchmarkError(description: "the idle monitor changed \(observer.changes) times")
            }
            withExtendedLifetime(monitor) {}
            let coldLook = lookCPU.milliseconds * 1_000 / Double(max(looks, 1))
            print(label("idle 3 s, ListMonitor 1k, \(milliseconds) ms")
                  + "strata \(format(strata.perSecond, 2)) ms/s   raw sqlite \(format(raw.perSecond, 2)) ms/s   "
                  + "\(format(strata.perSecond / raw.perSecond, 2))x   a poll: strata \(perWakeUp(strata.perSecond)) µs, "
                  + "raw \(perWakeUp(raw.perSecond)) µs (its look \(format(coldLook, 1)) µs)")
        }

        let cpuStart = processCPUTime()
        let wall = try ContinuousClock().measure {
            for _ in 0..<pointReads { try look.look() }
        }
        let cpu = processCPUTime() - cpuStart
        print(label("look (point read + version) x100k")
              + "raw sqlite \(format(wall.milliseconds * 1_000 / Double(pointReads), 2)) µs each   "
              + "cpu \(format(cpu.milliseconds * 1_000 / Double(pointReads), 2)) µs each")
    }

    /// Sleeps `interval` then runs `body`, over and over for a ``phase``.
    private static func sleepLoop(_ interval: Duration, _ body: () throws -> Void) async throws {
        let end = ContinuousClock.now + phase
        while ContinuousClock.now < end {
            try await Task.sleep(for: interval)
            try body()
        }
    }

    /// The wall time and the CPU time per second of wall time (ms/s) of `body`.
    private static func measure(
        _ body: () async throws -> Void
    ) async throws -> (wall: Duration, perSecond: Double) {
        let cpuStart = processCPUTime()
        let start = ContinuousClock.now
        try await body()
        let wall = ContinuousClock.now - start
        let cpu = processCPUTime() - cpuStart
        return (wall, cpu.milliseconds / wall.seconds)
    }

    private static func label(_ text: String) -> String {
        text.padding(toLength: 34, withPad: " ", startingAt: 0)
    }
}

/// The look at the store Strata's watcher makes, through the C API: the
/// point read of the commit generation, then the data-version file control.
final class StoreLook {
    private let database: RawDatabase
    private let select: RawStatement
    private(set) var sum: Int64 = 0

    init(_ url: URL) throws {
        database = try RawDatabase(url)
        select = try database.prepare("SELECT value FROM _strata_meta WHERE key = 'generation'")
    }

    func look() throws {
        try select.reset()
        guard try select.step() else { throw BenchmarkError(description: "no generation") }
        sum &+= sqlite3_column_int64(select.handle, 0)
        try select.reset()
        var version: UInt32 = 0
        _ = sqlite3_file_control(database.handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        sum &+= Int64(version)
    }
}

/// Counts changes the idle monitor reports: there must be none.
@MainActor
final class IdleObserver: ListObserver {
    typealias ListEntityType = FollowBench
    private(set) var changes = 0

    func listMonitorDidChange(_ monitor: ListMonitor<FollowBench>) { changes += 1 }
    func listMonitorDidRefetch(_ monitor: ListMonitor<FollowBench>) { changes += 1 }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double { milliseconds / 1_000 }
}
