import Foundation
@testable import Strata
import Testing

/// What the child processes of the following tests do, each with a stack of
/// its own on the store at `address`.
enum FollowingChild {
    /// Commits at random while watching the store, then, once every writer
    /// has stopped, checks that its monitors and objects equal the store.
    @MainActor
    static func commitRandomly(
        at address: StoreAddress, seed: UInt64, commits: Int, writers: StoppedWriters
    ) async throws {
        let watcher: Watcher
        // Every read in a snapshot of its own, as on a main actor whose jobs
        // outlast the kept snapshot's age: reads made while a merge notifies
        // see newer commits than it, the case that is hardest to follow.
        ObjectContext.keptSnapshotMaximumAge.store(0, ordering: .relaxed)
        do {
            // Also when this child fails: the others need not wait for it.
            defer { writers.markStopped("child \(seed)") }
            let stack = try openStack(at: address, author: "child \(seed)")
            stack.pollingInterval = .milliseconds(5)
            var random = SplitMix64(seed: seed)
            watcher = try Watcher(stack, random: &random)
            for _ in 0..<commits {
                try stack.perform(synchronous: { tx in try randomCommit(tx, &random) })
            }
        }
        #expect(await writers.allStopped(), "child \(seed): the other writers never stopped")
        try expectSettled(watcher, at: address, "child \(seed)")
    }

    /// Reads the counter, adds one and writes it back, `times` times, each in a transaction.
    @MainActor
    static func increment(at address: StoreAddress, times: Int) throws {
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(address.storage)
        for _ in 0..<times {
            try stack.perform(synchronous: { tx in
                let counter = try #require(try tx.fetchOne(From<TxCounter>()))
                counter.value = counter.value + 1
            })
        }
    }
}

@MainActor
@Suite("Main context: following other processes")
struct ProcessFollowingTests {
    /// Several processes on one SQLite file, and three app servers' worth on
    /// one PostgreSQL schema (issue #16: three processes × random commits).
    @Test(arguments: [(StoreKind.file, 2), (.file, 4), (.postgreSQL, 3)].filter {
        StoreKind.enabled([$0.0]) == [$0.0]
    })
    func processesCommittingTogetherReachEveryMonitor(kind: StoreKind, processes: Int) async throws {
        var random = SplitMix64(seed: 0x9A0C + UInt64(processes))
        let directory = TemporaryDirectory()
        let address = try StoreAddress(kind, in: directory)
        let stack = try openStack(at: address, author: "parent")
        stack.pollingInterval = .milliseconds(5)
        try MonWorkload.seed(stack, count: 30, random: &random)
        let watcher = try Watcher(stack, random: &random)
        let seeds = (0..<processes).map { _ in random.next() }
        let parentSeed = random.next()
        let writers = StoppedWriters(in: directory, count: processes + 1)
        let parentCommits = Task(executorPreference: ThreadPerJobExecutor.shared) {
            try await Self.commitBesideTheChildren(stack, seed: parentSeed, writers: writers)
        }
        await withTaskGroup(of: Void.self) { group in
            for seed in seeds {
                group.addTask(executorPreference: ThreadPerJobExecutor.shared) {
                    await #expect(processExitsWith: .success) {
                        [address = address as StoreAddress, seed = seed as UInt64, writers = writers as StoppedWriters] in
                        try await FollowingChild.commitRandomly(
                            at: address, seed: seed, commits: 40, writers: writers)
                    }
                    // A child that crashed never said it stopped: its siblings need not wait for it.
                    writers.markStopped("child \(seed)")
                }
            }
        }
        try await parentCommits.value
        let current = try stack.currentGeneration()
        #expect(try stack.history().map(\.generation) == Array(1...current), "one record per commit, none missing")
        // A commit that changed nothing (an owner renamed to its own name) writes nothing.
        #expect(current > UInt64(processes * 20) && current <= 1 + UInt64(processes * 40) + 20)
        try expectSettled(watcher, at: address, "\(kind), parent of \(processes) processes, seeds \(seeds)")
        let batches = watcher.lists.map(\.checker.batches).reduce(0, +)
        #expect(batches > 0, "the lists followed the children's commits as they came")
        let authors = Set(try stack.history().compactMap(\.author))
        #expect(authors == Set(seeds.map { "child \($0)" } + ["parent"]))
    }

    /// This process's share of the commits: once a child has committed,
    /// twenty random ones, while the children still run and the main actor
    /// follows theirs. Made off the main actor, on a thread of its own: the
    /// other suites keep the main actor busy (for minutes together under the
    /// thread sanitizer), and a writer that waited there for each turn
    /// would stop only after its children had given up waiting for it.
    @concurrent
    private nonisolated static func commitBesideTheChildren(
        _ stack: DataStack, seed: UInt64, writers: StoppedWriters
    ) async throws {
        defer { writers.markStopped("parent") }
        for _ in 0..<3_000 {
            if try stack.currentGeneration() >= 2 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        var random = SplitMix64(seed: seed)
        for _ in 0..<20 {
            try stack.perform(synchronous: { tx in try randomCommit(tx, &random) })
            try await Task.sleep(for: .milliseconds(3))
        }
    }

    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]))
    func readModifyWriteInFourProcessesLosesNoUpdate(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let address = try StoreAddress(kind, in: directory)
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(address.storage)
        try stack.perform(synchronous: { tx in tx.create(Into<TxCounter>()).value = 0 })
        let held = try #require(try stack.fetchOne(From<TxCounter>()))
        let monitor = try stack.monitorObject(held)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask(executorPreference: ThreadPerJobExecutor.shared) {
                    await #expect(processExitsWith: .success) { [address = address as StoreAddress] in
                        try await FollowingChild.increment(at: address, times: 150)
                    }
                }
            }
        }
        // Followed while the children ran, or at the latest at this read.
        #expect(try stack.fetchCount(From<TxCounter>()) == 1)
        #expect(held.value == 600, "every increment counted, and the held object shows the store")
        #expect(monitor.object?.value == 600)
        #expect(try stack.history().count == 601)
    }
}

/// Once every writer has stopped: the stack has merged every commit, and
/// its monitors and held objects equal the store's rows read afresh.
@MainActor
func expectSettled(_ watcher: Watcher, at address: StoreAddress, _ context: String) throws {
    // The main context's reads keep their snapshot until the main actor has
    // run the jobs that were waiting when it opened, and this may be one of
    // them, with a snapshot from before the last writer stopped: look now.
    for main in watcher.stack.mainContexts { main.endKeptSnapshot() }
    _ = try watcher.stack.fetchCount(From<MonOwner>())
    #expect(watcher.stack.mergedGeneration == (try watcher.stack.currentGeneration()), "\(context)")
    try watcher.check(rows: try itemRows(in: address.storage), context)
}

/// How the processes of a following test tell each other they have stopped
/// writing, so that each checks what it shows only once nobody writes any
/// more: a file each in the test's folder, which they all share.
struct StoppedWriters: Codable, Sendable {
    let folder: String
    let count: Int

    init(in directory: TemporaryDirectory, count: Int) {
        folder = directory.url.path
        self.count = count
    }

    /// Says that the writer called `name` has stopped (again is harmless).
    func markStopped(_ name: String) {
        _ = FileManager.default.createFile(atPath: folder + "/stopped " + name, contents: nil)
    }

    /// Waits, with the main actor free to follow the store meanwhile, until
    /// all `count` writers have stopped; `false` if they never do (a writer
    /// that crashed), rather than hanging the test.
    @MainActor
    func allStopped() async -> Bool {
        for _ in 0..<60_000 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            if names.filter({ $0.hasPrefix("stopped ") }).count >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
