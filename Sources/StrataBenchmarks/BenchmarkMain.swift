import Foundation
import ThrowawayPostgreSQL

/// Runs every scenario, Strata beside raw SQLite, and prints one line each.
///
/// ```
/// swift run -c release StrataBenchmarks              # 100,000 objects
/// swift run -c release StrataBenchmarks sizes        # insert … crossStore and monitor at 10k, 100k and 1M
/// swift run -c release StrataBenchmarks sizes fetch  # the same, only scenarios whose key contains "fetch"
/// swift run -c release StrataBenchmarks 10000        # another size
/// swift run -c release StrataBenchmarks 10000 fetch  # scenarios whose key contains "fetch"
///                                                    # (fetch, fetchOne, fetchClasses: raw into
///                                                    # classes against raw into structs)
/// swift run -c release StrataBenchmarks 100000 import # unique import of 100,000 records, half new
/// swift run -c release StrataBenchmarks 100000 wideIn # a 100,000-value `in` over 100,000 objects
/// swift run -c release StrataBenchmarks 1000000 migration  # migrations of 250,000 and 1,000,000 rows
/// swift run -c release StrataBenchmarks 100000 follow # another process's commits reaching a monitor
/// swift run -c release StrataBenchmarks 100000 idle   # CPU of a live monitor while nothing changes
/// swift run -c release StrataBenchmarks 100000 crossStore  # 1,000 commits over two store files
/// swift run -c release StrataBenchmarks 100000 smallTx # 10,000 read-modify-write transactions by a unique field
/// swift run -c release StrataBenchmarks 200000 bulk   # every bulk write below, on 200,000 rows:
///   bulkDelete 200000     # delete half the rows by an indexed range (bulkDeleteScan: unindexed)
///   bulkUpdate 200000     # set one field of half the rows by an indexed range (bulkUpdateScan:
///                         # unindexed; bulkIncrement: add 1 to it)
///   bulkCascade 200000    # delete 10k of 20k parents, 10 children each, by the cascade rule
///   bulkWipe 200000       # wipeAllData of 200,000 rows
/// swift run -c release StrataBenchmarks 100000 pg     # the PostgreSQL scenarios:
///   pgInsert, pgFetch     # insert and fetch 100,000 objects against raw libpq
///   pgLatency             # another process's commit reaching a monitor, through the server
///   pgWriters             # one, then three writer processes of read-modify-write commits
/// ```
///
/// The PostgreSQL scenarios run on the server `STRATA_POSTGRESQL_URL` names,
/// or on a throwaway one this process starts (``PostgreSQLServer``), each
/// store in a new schema; without a server binary, or with
/// `STRATA_POSTGRESQL=off`, they are left out with a line saying why.
///
/// Each scenario runs in a child process of its own (`--only <key>`), so one
/// scenario's leftover heap cannot slow the next one down. Inside it, Strata
/// and raw SQLite take turns round by round, the side that goes first
/// alternating (``Runner``), and each side's peak memory is recorded.
@main
struct BenchmarkMain {
    /// The scenarios, by key, in the order they run.
    @MainActor
    static let scenarios: [(key: String, make: @MainActor ([BenchRecord], Workspace) throws -> Scenario)] = [
        ("insert", Scenario.insertAll),
        ("fetch", Scenario.fetchAll),
        ("fetchOne", Scenario.fetchOneByUnique),
        ("fetchClasses", Scenario.fetchIntoClasses),
        ("import", Scenario.uniqueImport),
        ("wideIn", Scenario.wideIn),
        ("editMany", Scenario.editMany),
        ("crossStore", Scenario.crossStore),
        ("smallTx", Scenario.smallTransactions),
    ]

    /// The PostgreSQL scenarios run by ``Runner``, by key; with `pgLatency`
    /// and `pgWriters`, they run only when a server is there (``postgreSQLIsAvailable()``).
    @MainActor
    static let postgreSQLScenarios: [(key: String, make: @MainActor ([BenchRecord], Workspace) throws -> Scenario)] = [
        ("pgInsert", Scenario.postgreSQLInsert),
        ("pgFetch", Scenario.postgreSQLFetch),
    ]

    static let postgreSQLKeys = ["pgInsert", "pgFetch", "pgLatency", "pgWriters"]

    /// The bulk-write scenarios, by key: their variants run round by round (``BulkRunner``).
    @MainActor
    static let bulkScenarios: [(key: String, make: @MainActor (Int, Workspace) throws -> BulkScenario)] = [
        ("bulkDelete", { try .delete(count: $0, indexed: true, in: $1) }),
        ("bulkDeleteScan", { try .delete(count: $0, indexed: false, in: $1) }),
        ("bulkUpdate", { try .update(count: $0, increment: false, in: $1) }),
        ("bulkUpdateScan", { try .update(count: $0, increment: false, indexed: false, in: $1) }),
        ("bulkIncrement", { try .update(count: $0, increment: true, in: $1) }),
        ("bulkCascade", { try .cascade(count: $0, in: $1) }),
        ("bulkWipe", { try .wipe(count: $0, in: $1) }),
    ]

    static let settings = RunnerSettings(warmUps: 1, runs: 5)

    @MainActor
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("StrataBenchmarks: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Parses the arguments, then runs the scenarios in child processes or, with `--only`, one here.
    @MainActor
    private static func run() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        // The follow benchmark's helper processes.
        if arguments.first == FollowWriter.flag {
            try await FollowWriter.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == RawFollower.flag {
            try await RawFollower.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == RawPostgreSQLFollower.flag {
            try RawPostgreSQLFollower.run(Array(arguments.dropFirst()))
            return
        }
        if arguments.first == PostgreSQLWriter.flag {
            try PostgreSQLWriter.run(Array(arguments.dropFirst()))
            return
        }
        let count = arguments.lazy.compactMap { Int($0) }.first ?? 100_000
        if let index = arguments.firstIndex(of: "--only"), index + 1 < arguments.count {
            try await runInProcess(arguments[index + 1], count: count)
            return
        }
        arguments.removeAll { Int($0) != nil }
        if arguments.first == "sizes" {
            // Every scenario that takes a size, at each of three sizes; not the
            // PostgreSQL ones (a million inserts through the server take minutes).
            arguments.removeFirst()
            let filter = arguments.first
            for size in [10_000, 100_000, 1_000_000] {
                print("Strata benchmarks: \(size) objects, \(settings.description), one process per scenario")
                for key in scenarios.map(\.key) + ["monitor"] where filter.map(key.contains) ?? true {
                    try runInChildProcess(key, count: size)
                }
            }
            return
        }
        let filter = arguments.first
        if filter == "migration" {
            print("Strata migration benchmark: one run per size, one process per size")
        } else {
            print("Strata benchmarks: \(count) objects, \(settings.description), one process per scenario")
        }
        var keys = (scenarios.map(\.key) + bulkScenarios.map(\.key) + ["monitor", "follow", "idle"]
            + postgreSQLKeys).filter { filter.map($0.contains) ?? true }
        if keys.contains(where: postgreSQLKeys.contains), !postgreSQLIsAvailable() {
            keys.removeAll(where: postgreSQLKeys.contains)
            // Asked for by name, they fail; in the full run, the others go on.
            if keys.isEmpty, filter != nil { throw BenchmarkError(description: "no PostgreSQL server") }
        }
        for key in keys {
            try runInChildProcess(key, count: count)
        }
        // Only on request: a quarter of the count, then the count, a process each,
        // so that each size's peak memory is its own.
        if filter == "migration" {
            for size in [count / 4, count] { try runInChildProcess("migration", count: size) }
        }
    }

    /// Runs the scenario `key` here and prints its result line.
    @MainActor
    private static func runInProcess(_ key: String, count: Int) async throws {
        if key == "migration" {
            let workspace = try Workspace()
            defer { workspace.remove() }
            try MigrationBenchmark.run(count: count, in: workspace)
            return
        }
        if key == "monitor" {
            let workspace = try Workspace()
            defer { workspace.remove() }
            try MonitorBenchmark.run(count: count, in: workspace, settings: settings)
            return
        }
        if key == "follow" || key == "idle" {
            let workspace = try Workspace()
            defer { workspace.remove() }
            if key == "follow" {
                try await FollowBenchmark.run(in: workspace)
            } else {
                try await IdleBenchmark.run(in: workspace)
            }
            return
        }
        if key == "pgLatency" || key == "pgWriters" {
            let workspace = try Workspace()
            defer { workspace.remove() }
            if key == "pgLatency" {
                try await FollowBenchmark.runPostgreSQL(in: workspace)
            } else {
                try await PostgreSQLWriters.run(in: workspace, settings: settings)
            }
            return
        }
        if let bulk = bulkScenarios.first(where: { $0.key == key }) {
            let workspace = try Workspace()
            defer { workspace.remove() }
            try await BulkRunner(settings: settings).run(try bulk.make(count, workspace))
            return
        }
        guard let scenario = (scenarios + postgreSQLScenarios).first(where: { $0.key == key }) else {
            throw BenchmarkError(description: "no scenario '\(key)'")
        }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let records = BenchRecord.sample(count: count)
        let result = try await Runner(settings: settings).run(try scenario.make(records, workspace))
        print(result.line)
    }

    /// Whether the PostgreSQL scenarios can run: starts the throwaway server
    /// (or finds the one `STRATA_POSTGRESQL_URL` names) here, so that every
    /// child process shares it, and prints which; otherwise prints why not.
    @MainActor
    private static func postgreSQLIsAvailable() -> Bool {
        guard PostgreSQLServer.isEnabled else {
            print("PostgreSQL scenarios left out: STRATA_POSTGRESQL=off")
            return false
        }
        do {
            let server = try PostgreSQLServer.shared()
            let version = try PostgreSQLFixtures.serverVersion()
            print(server.dataDirectory == nil
                ? "PostgreSQL \(version): the server STRATA_POSTGRESQL_URL names"
                : "PostgreSQL \(version): a throwaway server on a Unix socket (fsync off)")
            return true
        } catch {
            print("PostgreSQL scenarios left out: \(error)")
            return false
        }
    }

    /// Runs this executable again with `--only key`; its output goes to ours.
    private static func runInChildProcess(_ key: String, count: Int) throws {
        guard let executable = Bundle.main.executableURL else {
            throw BenchmarkError(description: "cannot find the benchmark executable")
        }
        fflush(nil)  // Our own lines first: the child writes to the same stdout.
        let child = Process()
        child.executableURL = executable
        child.arguments = ["\(count)", "--only", key]
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw BenchmarkError(description: "scenario '\(key)' failed with status \(child.terminationStatus)")
        }
    }
}
