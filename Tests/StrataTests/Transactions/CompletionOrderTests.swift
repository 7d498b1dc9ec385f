import Foundation
@testable import Strata
import Testing

/// What each completion saw, on the main actor.
@MainActor
final class CompletionLog {
    var seen: [String] = []
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
        for _ in 0..<2_000 where log.seen.count < 5 { try await Task.sleep(for: .milliseconds(1)) }
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
        for _ in 0..<2_000 where log.seen.count < 3 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(log.seen == ["1 ok at 1", "2 failed at 1", "3 ok at 2"])
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
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
