import Foundation
@testable import Strata
import Testing

/// What each completion saw, on the main actor.
@MainActor
final class CompletionLog {
    var seen: [String] = []

    /// Returns once `count` completions have been seen (``waitUntil(polling:_:)``).
    func wait(for count: Int) async throws {
        try await waitUntil { seen.count >= count }
    }
}

@MainActor
@Suite("Transactions: completions in commit order, each right after its own merge")
struct CompletionOrderTests {
    @Test(arguments: StoreKind.allCases)
    func completionsQueuedWhileTheMainActorIsBusySeeOnlyTheirOwnCommits(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let monitor = try stack.monitorList(From<MonItem>())
        let log = CompletionLog()
        for rank in 1...5 {
            stack.perform(asynchronous: { tx in tx.create(Into<MonItem>()).rank = rank }, completion: { result in
                let count = (try? stack.fetchCount(From<MonItem>())) ?? -1
                log.seen.append(
                    "\(rank): merged \(stack.mergedGeneration), listed \(monitor.numberOfObjects()), "
                        + "\(result.isSuccess ? "ok" : "failed"), counted \(count)")
            })
        }
        // The main actor stays busy until all five have committed.
        stack.transactionQueue.sync {}
        #expect(log.seen.isEmpty)
        try await log.wait(for: 5)
        // Each completion runs right after the merge of its own commit: the
        // monitor shows that commit and none after it. A count reads the
        // store, which already holds all five.
        #expect(log.seen == (1...5).map { "\($0): merged \($0), listed \($0), ok, counted 5" })
    }

    @Test
    func aFailedTransactionsCompletionKeepsItsPlace() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let log = CompletionLog()
        for rank in 1...3 {
            stack.perform(asynchronous: { tx in
                if rank == 2 { throw CancellationError() }
                tx.create(Into<MonItem>()).rank = rank
            }, completion: { result in
                log.seen.append("\(rank) \(result.isSuccess ? "ok" : "failed") at \(stack.mergedGeneration)")
            })
        }
        stack.transactionQueue.sync {}
        try await log.wait(for: 3)
        #expect(log.seen == ["1 ok at 1", "2 failed at 1", "3 ok at 2"])
    }

    /// CoreStore's `perform(asynchronous:success:failure:)`: exactly one of
    /// the two callbacks per transaction, in commit order, `success` with
    /// the body's value after its merge, `failure` with the body's error
    /// (wrapped) or `userCancelled`, and nothing saved on failure.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func successOrFailureIsCalledOnceEachInCommitOrder(seed: UInt64) async throws {
        struct Refusal: Error { let rank: Int }
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        var random = SplitMix64(seed: seed)
        let log = CompletionLog()
        var expected: [String] = []
        var savedRanks: [Int] = []
        for rank in 1...12 {
            let choice = random.next() % 3
            switch choice {
            case 0:
                savedRanks.append(rank)
                expected.append("saved \(rank) at \(savedRanks.count)")
            case 1: expected.append("cancelled")
            default: expected.append("refused \(rank)")
            }
            stack.perform(
                asynchronous: { tx -> Int in
                    tx.create(Into<MonItem>()).rank = rank
                    if choice == 1 { try tx.cancel() }
                    if choice == 2 { throw Refusal(rank: rank) }
                    return rank
                },
                success: { value in log.seen.append("saved \(value) at \(stack.mergedGeneration)") },
                failure: { error in
                    switch error {
                    case .userCancelled: log.seen.append("cancelled")
                    case .userError(let inner as Refusal): log.seen.append("refused \(inner.rank)")
                    default: log.seen.append("unexpected \(error)")
                    }
                })
        }
        try await log.wait(for: expected.count)
        #expect(log.seen == expected, "seed \(seed)")
        let ranks = try stack.fetchAll(From<MonItem>().orderBy(.ascending(\.$rank))).map(\.rank)
        #expect(ranks == savedRanks, "seed \(seed): nothing of a failed transaction was saved")
    }

    @Test
    func awaitedPerformsResumeEachRightAfterTheirOwnMerge() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        let log = CompletionLog()
        var tasks: [Task<Void, any Error>] = []
        for rank in 1...5 {
            tasks.append(Task { @MainActor in
                let id = try await stack.perform { tx in
                    let item = tx.create(Into<MonItem>())
                    item.rank = rank
                    return item.objectID
                }
                let own = try stack.history().first { $0.insertedIDs(entity: "MonItem").contains(id.erased) }
                log.seen.append(own?.generation == stack.mergedGeneration ? "own" : "merged \(stack.mergedGeneration)")
            })
        }
        // Let every task reach its `await`, then keep the main actor busy while they all commit.
        for _ in 0..<20 { await Task.yield() }
        stack.transactionQueue.sync {}
        for task in tasks { try await task.value }
        #expect(log.seen == Array(repeating: "own", count: 5))
    }

    /// The store removed while transactions have committed but are not merged
    /// yet, and others still wait in the queue: every completion is still
    /// called, once, in order; the committed ones after their merge, the others
    /// with `.storeNotAdded`. An awaiting `perform` resumes too.
    @Test(arguments: StoreKind.allCases)
    func completionsAroundARemovedStoreAreEachCalledOnceInOrder(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let log = CompletionLog()
        let reached = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        func note(_ rank: Int, _ result: Result<Void, StrataError>) {
            switch result {
            case .success: log.seen.append("\(rank) ok at \(stack.mergedGeneration)")
            case .failure(.storeNotAdded): log.seen.append("\(rank) no store")
            case .failure(let error): log.seen.append("\(rank) \(error)")
            }
        }
        for rank in 1...5 {
            stack.perform(asynchronous: { tx in
                if rank == 3 {
                    // Holds the queue, before taking the writer, until the store is gone.
                    reached.signal()
                    go.wait()
                }
                tx.create(Into<MonItem>()).rank = rank
            }, completion: { note(rank, $0) })
        }
        // Queued behind them, or refused at once if it comes after the removal.
        let awaited = CompletionLog()
        Task.detached {
            var outcome = "ok"
            do {
                try await stack.perform { tx in tx.create(Into<MonItem>()).rank = 6 }
            } catch {
                outcome = "\(error)"
            }
            await MainActor.run { awaited.seen.append(outcome) }
        }
        // The main actor stays busy: 1 and 2 commit, their merges wait.
        reached.wait()
        try stack.removeStorage()
        go.signal()
        try await log.wait(for: 5)
        try await awaited.wait(for: 1)
        #expect(log.seen == ["1 ok at 1", "2 ok at 2", "3 no store", "4 no store", "5 no store"])
        #expect(awaited.seen == ["\(StrataError.storeNotAdded)"], "the awaiting perform resumes")
    }

    /// A completion that removes the store, while later transactions'
    /// completions wait: each of them is still called once, in order.
    @Test(arguments: StoreKind.sqlite)
    func aCompletionThatRemovesTheStoreLeavesTheLaterOnesCalledOnce(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let log = CompletionLog()
        for rank in 1...4 {
            stack.perform(asynchronous: { tx in tx.create(Into<MonItem>()).rank = rank }, completion: { result in
                log.seen.append("\(rank) \(result.isSuccess ? "ok" : "failed")")
                if rank == 2 { try? stack.removeStorage() }
            })
        }
        stack.transactionQueue.sync {}
        try await log.wait(for: 4)
        #expect(log.seen == ["1 ok", "2 ok", "3 ok", "4 ok"])
        #expect(!stack.hasStore)
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
