import Foundation
@testable import Strata
import Testing

/// What the child processes of the following tests do, each with a stack of
/// its own on the store file at `path`.
enum FollowingChild {
    @MainActor
    static func commitRandomly(path: String, seed: UInt64, commits: Int) throws {
        let stack = DataStack(monitorSchema)
        stack.defaultAuthor = "child \(seed)"
        try stack.addStorageAndWait(SQLiteStore(fileURL: URL(fileURLWithPath: path)))
        var random = SplitMix64(seed: seed)
        for _ in 0..<commits {
            try stack.perform(synchronous: { tx in try randomCommit(tx, &random) })
        }
    }

    /// Reads the counter, adds one and writes it back, `times` times, each in a transaction.
    @MainActor
    static func increment(path: String, times: Int) throws {
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: URL(fileURLWithPath: path)))
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
    @Test(arguments: [2, 4])
    func processesCommittingTogetherReachEveryMonitor(processes: Int) async throws {
        var random = SplitMix64(seed: 0x9A0C + UInt64(processes))
        let directory = TemporaryDirectory()
        let stack = try openStack(in: directory, author: "parent")
        stack.pollingInterval = .milliseconds(5)
        try MonWorkload.seed(stack, count: 30, random: &random)
        let watcher = try Watcher(stack, random: &random)
        let path = storeURL(in: directory).path
        let seeds = (0..<processes).map { _ in random.next() }
        let parentSeed = random.next()
        // This process commits too, between polls, while the children run.
        let parentCommits = Task { @MainActor in
            var random = SplitMix64(seed: parentSeed)
            for _ in 0..<20 {
                try stack.perform(synchronous: { tx in try randomCommit(tx, &random) })
                try await Task.sleep(for: .milliseconds(3))
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for seed in seeds {
                group.addTask(executorPreference: ThreadPerJobExecutor.shared) {
                    await #expect(processExitsWith: .success) { [path = path as String, seed = seed as UInt64] in
                        try await FollowingChild.commitRandomly(path: path, seed: seed, commits: 40)
                    }
                }
            }
        }
        try await parentCommits.value
        _ = try stack.fetchCount(From<MonOwner>())
        let current = try stack.currentGeneration()
        #expect(stack.mergedGeneration == current)
        #expect(try stack.history().map(\.generation) == Array(1...current), "one record per commit, none missing")
        // A commit that changed nothing (an owner renamed to its own name) writes nothing.
        #expect(current > UInt64(processes * 20) && current <= 1 + UInt64(processes * 40) + 20)
        try watcher.check(rows: try itemRows(at: storeURL(in: directory)), "\(processes) processes, seeds \(seeds)")
        let batches = watcher.lists.map(\.checker.batches).reduce(0, +)
        #expect(batches > 0, "the lists followed the children's commits as they came")
        let authors = Set(try stack.history().compactMap(\.author))
        #expect(authors == Set(seeds.map { "child \($0)" } + ["parent"]))
    }

    @Test
    func readModifyWriteInFourProcessesLosesNoUpdate() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        try stack.perform(synchronous: { tx in tx.create(Into<TxCounter>()).value = 0 })
        let held = try #require(try stack.fetchOne(From<TxCounter>()))
        let monitor = try stack.monitorObject(held)
        let path = url.path
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask(executorPreference: ThreadPerJobExecutor.shared) {
                    await #expect(processExitsWith: .success) { [path = path as String] in
                        try await FollowingChild.increment(path: path, times: 150)
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
