import Foundation
import Testing

@testable import Strata

/// Rule 8 of Docs/Observing.md over random commits: a `ListPublisher`
/// publishes once per commit that changes what its list shows and never
/// otherwise, its snapshot is the list a monitor of the same query shows,
/// `updatedItemIDs` names what that commit inserted, moved or updated, and
/// `snapshots` yields the current snapshot then each published one.
@MainActor
@Suite("Observing.md Rule 8: list publishers against a monitor of the same query")
struct ListPublishingRulesTests {
    /// The IDs a monitor's batch inserted, moved or updated, and whether it refetched.
    final class Changed: ListObjectObserver {
        typealias ListEntityType = MonItem
        var ids: Set<ObjectID<MonItem>> = []
        var batches = 0
        var refetched = false
        func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { batches += 1 }
        func listMonitorDidRefetch(_ monitor: ListMonitor<MonItem>) {
            batches += 1
            refetched = true
        }
        func listMonitor(
            _ monitor: ListMonitor<MonItem>, didInsertObject object: MonItem,
            toIndexPath indexPath: IndexPath
        ) {
            ids.insert(object.objectID)
        }
        func listMonitor(
            _ monitor: ListMonitor<MonItem>, didMoveObject object: MonItem,
            fromIndexPath: IndexPath, toIndexPath: IndexPath
        ) {
            ids.insert(object.objectID)
        }
        func listMonitor(
            _ monitor: ListMonitor<MonItem>, didUpdateObject object: MonItem,
            atIndexPath indexPath: IndexPath
        ) {
            ids.insert(object.objectID)
        }
    }

    @Test(arguments: [UInt64(301), 302, 303])
    func aPublisherPublishesWhatItsMonitorShows(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try MonWorkload.seed(stack, count: 40, random: &random)
        let shapes = ObservingCallbackRulesTests.shapes
        var lanes:
            [(
                ListPublisher<MonItem>, ListMonitor<MonItem>, Changed,
                AsyncStream<ListSnapshot<MonItem>>
            )] = []
        var published: [[ListSnapshot<MonItem>]] = []
        var counts: [Int] = []
        var rebuiltWithChanges = 0
        for (index, shape) in shapes.enumerated() {
            let publisher = try stack.publishList(shape.query)
            let monitor = try stack.monitorList(shape.query)
            let changed = Changed()
            monitor.addObserver(changed)
            published.append([publisher.snapshot])
            counts.append(0)
            publisher.addObserver(changed) { publisher in
                published[index].append(publisher.snapshot)
                counts[index] += 1
            }
            lanes.append((publisher, monitor, changed, publisher.snapshots))
        }
        for commit in 0..<60 {
            for index in lanes.indices {
                counts[index] = 0
                lanes[index].2.ids = []
                lanes[index].2.batches = 0
                lanes[index].2.refetched = false
            }
            let touched = try stack.perform(synchronous: { tx in
                try randomCommit(tx, &random)
                return tx.insertedObjectIDs(MonItem.self).union(tx.updatedObjectIDs(MonItem.self))
            })
            for (index, (publisher, monitor, changed, _)) in lanes.enumerated() {
                let context = "seed \(seed), commit \(commit), \(shapes[index])"
                #expect(
                    counts[index] == (changed.batches > 0 ? 1 : 0),
                    "\(context): \(changed.batches) batches")
                let snapshot = publisher.snapshot
                #expect(snapshot == monitor.makeSnapshot(), "\(context)")
                #expect(snapshot.sectionIDs == monitor.sectionNames(), "\(context)")
                #expect(
                    snapshot.map(\.rowID) == monitor.objectsInAllSections().map(\.rowID),
                    "\(context)")
                if changed.batches > 0 && changed.refetched {
                    // Told as a refetch (sections of one name split or
                    // joined): every item the commit inserted or updated
                    // is named, and only items the snapshot lists.
                    let listed = Set(snapshot)
                    let expected = touched.intersection(listed)
                    #expect(expected.isSubset(of: snapshot.updatedItemIDs), "\(context)")
                    #expect(snapshot.updatedItemIDs.isSubset(of: listed), "\(context)")
                    rebuiltWithChanges += expected.isEmpty ? 0 : 1
                } else if changed.batches > 0 {
                    #expect(snapshot.updatedItemIDs == changed.ids, "\(context)")
                }
            }
        }
        // The run met the case: a commit told as a refetch with changed items shown.
        #expect(rebuiltWithChanges > 0, "seed \(seed)")
        // Each stream: the first snapshot, then every published one, in order.
        for (index, lane) in lanes.enumerated() {
            var iterator = lane.3.makeAsyncIterator()
            var streamed: [ListSnapshot<MonItem>] = []
            for _ in published[index].indices {
                guard let next = await iterator.next() else { break }
                streamed.append(next)
            }
            #expect(streamed == published[index], "seed \(seed), \(shapes[index])")
            #expect(streamed.map(\.updatedItemIDs) == published[index].map(\.updatedItemIDs))
        }
    }

    /// Rule 7 and Rule 8: a refetch that throws leaves the old list and
    /// publishes nothing; one that succeeds publishes once, with no updated items.
    @Test
    func aFailedRefetchPublishesNothingAndASuccessfulOneOnce() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for rank in [3, 1, 2] { tx.create(Into<MonItem>()).rank = rank }
        })
        let publisher = try stack.publishList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let stream = publisher.snapshots
        let first = publisher.snapshot
        var calls = 0
        let owner = Changed()
        publisher.addObserver(owner) { _ in calls += 1 }
        #expect(throws: StrataError.self) {
            try publisher.refetch(From<MonItem>().sectionBy("noSuchField"))
        }
        #expect(calls == 0 && publisher.snapshot == first)
        try publisher.refetch(From<MonItem>().orderBy(.descending(\.$rank)).sectionBy(\.$flag))
        #expect(calls == 1)
        #expect(
            publisher.snapshot.sectionIDs == ["false"] && publisher.snapshot.updatedItemIDs.isEmpty)
        var iterator = stream.makeAsyncIterator()
        let streamed = [await iterator.next(), await iterator.next()]
        #expect(streamed == [first, publisher.snapshot])
        #expect(streamed[1]?.map(\.rowID) == first.map(\.rowID).reversed())
    }
}
