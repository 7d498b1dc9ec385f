import Foundation
@testable import Strata
import Testing

/// What the async `perform` promises: the value after the merge of its own
/// commit, from any caller; errors typed; no store, no queueing.
@Suite("DataStack: async perform")
struct AsyncPerformTests {
    /// Returned performs, counted on the main actor.
    @MainActor
    final class Tally {
        var returned = 0
        var lagging: [String] = []
    }

    @Test(arguments: [UInt64(3), 4])
    func callersOffTheMainActorResumeAfterTheirCommitIsMerged(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let (stack, monitor) = try await MainActor.run {
            let stack = try makeStack(monitorSchema, .file, in: directory)
            return (stack, try stack.monitorList(From<MonItem>()))
        }
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    var random = SplitMix64(seed: seed &+ UInt64(writer))
                    for step in 0..<5 {
                        let rank = Int(random.next() % 100)
                        let id = try await stack.perform { tx in
                            let item = tx.create(Into<MonItem>())
                            item.rank = rank
                            return item.objectID
                        }
                        await MainActor.run {
                            tally.returned += 1
                            // Every perform that returned had its commit merged: the
                            // monitor, updated by the merge, lists at least that many.
                            let listed = monitor.numberOfObjects()
                            if listed < tally.returned || monitor.indexPath(of: try! stack.fetchExisting(id)!) == nil {
                                tally.lagging.append("writer \(writer) step \(step): listed \(listed)")
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let (returned, lagging, listed) = await MainActor.run {
            (tally.returned, tally.lagging, monitor.numberOfObjects())
        }
        #expect(returned == 20 && listed == 20)
        #expect(lagging.isEmpty, "seed \(seed): \(lagging)")
    }

    @Test
    func withoutAStoreItThrowsStoreNotAddedAtOnce() async {
        let stack = DataStack(monitorSchema)
        let error = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in tx.create(Into<MonItem>()).rank = 1 }
        }
        guard case .storeNotAdded? = error else {
            Issue.record("expected storeNotAdded, got \(String(describing: error))")
            return
        }
    }

    @Test
    func aThrowingBodyOffTheMainActorComesBackAsUserErrorAndSavesNothing() async throws {
        struct Refused: Error, Equatable { let step: Int }
        let directory = TemporaryDirectory()
        let stack = try await MainActor.run { try makeStack(monitorSchema, .inMemory, in: directory) }
        let error = await Task.detached {
            await #expect(throws: StrataError.self) {
                try await stack.perform { tx in
                    tx.create(Into<MonItem>()).rank = 1
                    throw Refused(step: 2)
                }
            }
        }.value
        guard case .userError(let wrapped)? = error else {
            Issue.record("expected userError, got \(String(describing: error))")
            return
        }
        #expect(wrapped as? Refused == Refused(step: 2))
        #expect(try await MainActor.run { try stack.fetchCount(From<MonItem>()) } == 0)
    }
}
