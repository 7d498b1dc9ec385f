import Foundation
import Observation
import Strata
import Synchronization
import Testing

final class PubItem: ManagedObject {
    @Field.Stored("group") var group: Int = 0
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("name") var name: String? = nil
    @Field.Stored("flag") var flag: Bool = false
}

final class PubTag: ManagedObject {
    @Field.Stored("title") var title: String = ""
}

let publisherSchema = Schema("P1", entities: [Entity<PubItem>("PubItem"), Entity<PubTag>("PubTag")])

@MainActor
@Suite("ListPublisher: snapshots, closure observers and AsyncSequence")
struct ListPublisherTests {
    /// Counts a publisher's closure calls; the owner the closure is registered for.
    final class Counter {
        var calls = 0
        var snapshots: [ListSnapshot<PubItem>] = []
    }

    /// A flag a `@Sendable` observation callback can set.
    final class Flag: Sendable {
        private let value = Mutex(0)
        func raise() { value.withLock { $0 += 1 } }
        var count: Int { value.withLock { $0 } }
    }

    static let names: [String?] = [nil, "alpha", "Beta", "beta", "gamma", ""]

    static func seed(_ stack: DataStack, count: Int, _ random: inout SplitMix64) throws {
        try stack.perform(synchronous: { tx in
            for _ in 0..<count {
                let item = tx.create(Into<PubItem>())
                item.group = Int(random.next() % 4)
                item.rank = Int(random.next() % 50)
                item.flag = random.next() % 2 == 0
                item.name = names[Int(random.next() % UInt64(names.count))]
            }
        })
    }

    /// The section names a fresh fetch gives, one per run of equal names.
    static func runs(_ names: [String]) -> [String] {
        var runs: [String] = []
        for name in names where runs.last != name { runs.append(name) }
        return runs
    }

    // MARK: Snapshot contents

    @Test(arguments: StoreKind.allCases)
    func snapshotAfterFetchEqualsAFreshFetch(kind: StoreKind) throws {
        var random = SplitMix64(seed: 11)
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, kind, in: directory)
        try Self.seed(stack, count: 40, &random)

        let flat = try stack.publishList(From<PubItem>().where(\.$flag == true).orderBy(.descending(\.$rank)))
        let fresh = try stack.fetchObjectIDs(From<PubItem>().where(\.$flag == true).orderBy(.descending(\.$rank)))
        #expect(Array(flat.snapshot) == fresh)
        #expect(flat.snapshot.sectionIDs == (fresh.isEmpty ? [] : [""]))
        #expect(flat.snapshot.indexPath(of: fresh[3]) == IndexPath(item: 3, section: 0))
        #expect(flat.snapshot[IndexPath(item: 2, section: 0)] == fresh[2])

        let sectioned = try stack.publishList(
            From<PubItem>().orderBy(.ascending(\.$rank)).sectionBy(\.$group) { "g\($0)" })
        let all = try stack.fetchAll(From<PubItem>().orderBy(.ascending(\.$group), .ascending(\.$rank)))
        let snapshot = sectioned.snapshot
        #expect(Array(snapshot) == all.map(\.objectID))
        #expect(snapshot.sectionIDs == Self.runs(all.map { "g\($0.group)" }))
        #expect(snapshot.numberOfSections == snapshot.sectionIDs.count)
        for (section, name) in snapshot.sectionIDs.enumerated() {
            let expected = all.filter { "g\($0.group)" == name }.map(\.objectID)
            #expect(Array(snapshot.itemIDs(inSection: section)) == expected)
            #expect(snapshot.numberOfItems(inSection: section) == expected.count)
            for (item, id) in expected.enumerated() {
                #expect(snapshot.indexPath(of: id) == IndexPath(item: item, section: section))
                #expect(snapshot[IndexPath(item: item, section: section)] == id)
            }
        }
    }

    @Test
    func anEmptyUnsectionedListHasOneEmptySection() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        let publisher = try stack.publishList(From<PubItem>())
        #expect(publisher.snapshot == ListSnapshot<PubItem>(sections: [("", [])]))
        #expect(publisher.snapshot.isEmpty && publisher.snapshot.numberOfSections == 1)
        let sectioned = try stack.publishList(From<PubItem>().sectionBy(\.$group) { "g\($0)" })
        #expect(sectioned.snapshot.numberOfSections == 0, "a sectioned list has a section per name")
    }

    /// CoreStore's publisher tests read a sectioned list's snapshot through
    /// hasSections / hasItems / numberOfItems: empty, after an insert, a move
    /// between sections and a delete that empties a section.
    @Test(arguments: StoreKind.allCases)
    func aSectionedSnapshotAnswersWhatItHolds(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, kind, in: directory)
        let publisher = try stack.publishList(
            From<PubItem>().sectionBy(\.$flag).orderBy(.ascending(\.$rank)))
        var snapshot = publisher.snapshot
        #expect(!snapshot.hasSections() && !snapshot.hasItems() && snapshot.itemIDs.isEmpty)
        #expect(!snapshot.hasItems(inSection: 0) && snapshot.numberOfItems == 0)

        let ids = try stack.perform(synchronous: { tx in
            (1...5).map { rank -> ObjectID<PubItem> in
                let item = tx.create(Into<PubItem>())
                item.rank = rank
                item.flag = rank % 2 == 1
                return item.objectID
            }
        })
        snapshot = publisher.snapshot
        #expect(snapshot.hasSections() && snapshot.numberOfSections == 2 && snapshot.hasItems())
        #expect(snapshot.numberOfItems(inSection: 0) == 2 && snapshot.numberOfItems(inSection: 1) == 3)
        #expect(snapshot.itemIDs == [ids[1], ids[3], ids[0], ids[2], ids[4]])
        #expect(snapshot.numberOfItems == 5 && snapshot.itemIDs == Array(snapshot))
        #expect(!snapshot.hasItems(inSection: 2) && !snapshot.hasItems(inSection: -1))

        try stack.perform(synchronous: { tx in tx.edit(ids[1])?.flag = true })
        snapshot = publisher.snapshot
        #expect(snapshot.numberOfItems(inSection: 0) == 1 && snapshot.numberOfItems(inSection: 1) == 4)

        try stack.perform(synchronous: { tx in tx.delete(ids[3]) })
        snapshot = publisher.snapshot
        #expect(snapshot.numberOfSections == 1 && snapshot.sectionIDs == ["true"])
        #expect(snapshot.hasItems(inSection: 0) && snapshot.numberOfItems(inSection: 0) == 4)
    }

    /// As CoreStore's `updatedItemIdentifiers`: the items a commit inserted,
    /// moved or updated, which a data source reloads; not part of equality.
    @Test(arguments: StoreKind.allCases)
    func aSnapshotNamesTheItemsItsCommitChanged(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            (0..<4).map { rank -> ObjectID<PubItem> in
                let item = tx.create(Into<PubItem>())
                item.rank = rank * 10
                return item.objectID
            }
        })
        let publisher = try stack.publishList(From<PubItem>().where(\.$flag == false).orderBy(.ascending(\.$rank)))
        #expect(publisher.snapshot.updatedItemIDs.isEmpty, "the first snapshot")

        let added = try stack.perform(synchronous: { tx in
            tx.edit(ids[0])?.name = "renamed"   // an update
            tx.edit(ids[1])?.rank = 35          // a move
            tx.edit(ids[2])?.flag = true        // leaves the list
            let item = tx.create(Into<PubItem>())
            item.rank = 5
            return item.objectID
        })
        #expect(publisher.snapshot.updatedItemIDs == [ids[0], ids[1], added])
        #expect(publisher.snapshot.itemIDs == [ids[0], added, ids[3], ids[1]])
        #expect(publisher.snapshot == ListSnapshot(sections: [("", [ids[0], added, ids[3], ids[1]])]))

        try stack.perform(synchronous: { tx in tx.delete(ids[3]) })
        #expect(publisher.snapshot.updatedItemIDs.isEmpty, "a delete reloads nothing")
        try stack.perform(synchronous: { tx in tx.edit(ids[0])?.name = "again" })
        #expect(publisher.snapshot.updatedItemIDs == [ids[0]])
        try publisher.refetch(From<PubItem>().orderBy(.ascending(\.$rank)))
        #expect(publisher.snapshot.updatedItemIDs.isEmpty, "a refetch")
        #expect(publisher.snapshot.count == 4)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, SplitMix64.random().seed])
    func randomCommitsKeepEverySnapshotEqualToAFreshFetch(seed: UInt64) throws {
        print("ListPublisher random commits: seed \(seed)")
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .file, in: directory)
        try Self.seed(stack, count: 50, &random)

        struct Case {
            let text: String
            let publisher: ListPublisher<PubItem>
            let fetch: From<PubItem>
            let sectionName: ((PubItem) -> String)?
            let counter = Counter()
        }
        let cases = [
            Case(text: "flag, rank desc",
                 publisher: try stack.publishList(
                    From<PubItem>().where(\.$flag == true).orderBy(.descending(\.$rank))),
                 fetch: From<PubItem>().where(\.$flag == true).orderBy(.descending(\.$rank)),
                 sectionName: nil),
            Case(text: "all, by group, rank asc",
                 publisher: try stack.publishList(
                    From<PubItem>().orderBy(.ascending(\.$rank)).sectionBy(\.$group) { "g\($0)" }),
                 fetch: From<PubItem>().orderBy(.ascending(\.$group), .ascending(\.$rank)),
                 sectionName: { "g\($0.group)" }),
            Case(text: "rank < 30, by group, name ci",
                 publisher: try stack.publishList(
                    From<PubItem>().where(\.$rank < 30).orderBy(.ascending(\.$name, .caseInsensitive))
                        .sectionBy(\.$group) { "g\($0)" }),
                 fetch: From<PubItem>().where(\.$rank < 30)
                    .orderBy(.ascending(\.$group), .ascending(\.$name, .caseInsensitive)),
                 sectionName: { "g\($0.group)" }),
        ]
        for entry in cases {
            // The counter only: the entry holds the publisher, which holds the
            // closure, and a closure that held the entry would keep all three.
            entry.publisher.addObserver(entry.counter) { [counter = entry.counter] _ in counter.calls += 1 }
        }

        for commit in 0..<80 {
            let before = cases.map { $0.publisher.snapshot }
            for entry in cases { entry.counter.calls = 0 }
            try stack.perform(synchronous: { tx in
                let items = try tx.fetchAll(From<PubItem>())
                for _ in 0..<(Int(random.next() % (commit % 10 == 0 ? 30 : 4)) + 1) {
                    switch random.next() % 7 {
                    case 0:
                        let item = tx.create(Into<PubItem>())
                        item.group = Int(random.next() % 4)
                        item.rank = Int(random.next() % 50)
                    case 1:
                        if let victim = items.randomElement(using: &random), !victim.isDeletedObject {
                            tx.delete(victim)
                        }
                    case 2:
                        tx.create(Into<PubTag>()).title = "unrelated"
                    default:
                        guard let item = items.randomElement(using: &random), !item.isDeletedObject else { break }
                        switch random.next() % 4 {
                        case 0: item.group = Int(random.next() % 4)  // across sections
                        case 1: item.rank = Int(random.next() % 50)  // across sort positions, in and out of rank < 30
                        case 2: item.flag.toggle()
                        default: item.name = Self.names[Int(random.next() % UInt64(Self.names.count))]
                        }
                    }
                }
            })
            for (index, entry) in cases.enumerated() {
                let context = "seed \(seed), commit \(commit), publisher \(entry.text)"
                let snapshot = entry.publisher.snapshot
                let fresh = try stack.fetchAll(entry.fetch)
                #expect(Array(snapshot) == fresh.map(\.objectID), "\(context)")
                let names = entry.sectionName.map { fresh.map($0) } ?? fresh.map { _ in "" }
                #expect(snapshot.sectionIDs == Self.runs(names), "\(context)")
                #expect(entry.counter.calls <= 1, "\(context)")
                if snapshot != before[index] {
                    #expect(entry.counter.calls == 1, "\(context)")
                }
            }
        }
    }

    // MARK: Closure observers

    @Test
    func closureObserversAreCalledOncePerCommitThatChangesTheList() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        let publisher = try stack.publishList(From<PubItem>().where(\.$flag == true).orderBy(.ascending(\.$rank)))
        let counter = Counter()
        publisher.addObserver(counter) { counter.snapshots.append($0.snapshot) }

        let first = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<PubItem>())
            item.flag = true
            tx.create(Into<PubItem>()).flag = true
            return item.objectID
        })
        #expect(counter.snapshots.count == 1)
        #expect(counter.snapshots.last?.count == 2)

        // Unrelated: an object the list does not show, and another entity.
        try stack.perform(synchronous: { tx in tx.create(Into<PubItem>()).flag = false })
        try stack.perform(synchronous: { tx in tx.create(Into<PubTag>()).title = "x" })
        #expect(counter.snapshots.count == 1)

        // A move, then a shown object's field, then a delete: one call each.
        try stack.perform(synchronous: { tx in tx.edit(first)?.rank = 10 })
        #expect(counter.snapshots.count == 2)
        #expect(counter.snapshots.last?.last == first)
        try stack.perform(synchronous: { tx in tx.edit(first)?.name = "renamed" })
        #expect(counter.snapshots.count == 3)
        try stack.perform(synchronous: { tx in tx.delete(first) })
        #expect(counter.snapshots.count == 4)
        #expect(counter.snapshots.last?.contains(first) == false)
        #expect(counter.snapshots.last == publisher.snapshot)
    }

    @Test
    func notifyInitialCallsTheClosureAtOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<PubItem>()).rank = 1 })
        let publisher = try stack.publishList(From<PubItem>())
        let eager = Counter(), lazy = Counter()
        publisher.addObserver(eager, notifyInitial: true) { eager.snapshots.append($0.snapshot) }
        publisher.addObserver(lazy) { lazy.snapshots.append($0.snapshot) }
        #expect(eager.snapshots == [publisher.snapshot])
        #expect(lazy.snapshots.isEmpty)
    }

    @Test
    func removedOrReleasedObserversAreNotCalled() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        let publisher = try stack.publishList(From<PubItem>())
        let kept = Counter(), removed = Counter()
        var released: Counter? = Counter()
        let releasedCalls = Flag()
        publisher.addObserver(kept) { _ in kept.calls += 1 }
        publisher.addObserver(removed) { _ in removed.calls += 1 }
        publisher.addObserver(released!) { _ in releasedCalls.raise() }
        // Adding an owner again replaces its closure.
        publisher.addObserver(kept) { _ in kept.calls += 10 }

        try stack.perform(synchronous: { tx in _ = tx.create(Into<PubItem>()) })
        #expect(kept.calls == 10 && removed.calls == 1 && releasedCalls.count == 1)

        publisher.removeObserver(removed)
        released = nil
        try stack.perform(synchronous: { tx in _ = tx.create(Into<PubItem>()) })
        #expect(kept.calls == 20 && removed.calls == 1 && releasedCalls.count == 1)
    }

    /// As for a monitor's observers (Observing, Rule 2): a closure that
    /// removes another owner's closure stops it at once, for the publish
    /// under way too, whichever of the two was added first; the others run.
    /// For list and object publishers alike, and for closures released meanwhile.
    @Test(arguments: [false, true])
    func anObserverRemovedByAnotherClosureIsNotCalledAgain(objectPublisher: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<PubItem>()).objectID })
        let list = try stack.publishList(From<PubItem>())
        let object = try stack.publishObject(id)
        let first = Counter(), remover = Counter(), last = Counter()
        var calls: [String] = []
        func add(_ owner: Counter, _ name: String, _ body: @escaping @MainActor () -> Void = {}) {
            if objectPublisher {
                object.addObserver(owner) { _ in calls.append(name); body() }
            } else {
                list.addObserver(owner) { _ in calls.append(name); body() }
            }
        }
        func remove(_ owner: Counter) {
            if objectPublisher { object.removeObserver(owner) } else { list.removeObserver(owner) }
        }
        add(first, "first")
        add(remover, "remover") { remove(first); remove(last) }
        add(last, "last")
        try stack.perform(synchronous: { tx in tx.edit(id)!.rank += 1 })
        #expect(calls == ["first", "remover"], "last was removed before its turn")
        calls = []
        try stack.perform(synchronous: { tx in tx.edit(id)!.rank += 1 })
        #expect(calls == ["remover"])
        // The remover's closure holds both publishers (through `remove`):
        // removing it ends the cycle, which the leak checker would report.
        remove(remover)
    }

    @Test
    func publishersRunAfterEveryMonitor() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        let publisher = try stack.publishList(From<PubItem>())
        // Created after the publisher's own monitor, so it updates after it.
        let laterMonitor = try stack.monitorList(From<PubItem>())
        let counter = Counter()
        var seenByClosure: [Int] = []
        publisher.addObserver(counter) { publisher in
            seenByClosure.append(laterMonitor.numberOfObjects() - publisher.snapshot.count)
        }
        try stack.perform(synchronous: { tx in _ = tx.create(Into<PubItem>()) })
        try stack.perform(synchronous: { tx in _ = tx.create(Into<PubItem>()) })
        #expect(seenByClosure == [0, 0])
    }

    @Test
    func refetchPublishesTheNewList() throws {
        var random = SplitMix64(seed: 5)
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        try Self.seed(stack, count: 20, &random)
        let publisher = try stack.publishList(From<PubItem>().orderBy(.ascending(\.$rank)))
        let counter = Counter()
        publisher.addObserver(counter) { _ in counter.calls += 1 }

        try publisher.refetch(From<PubItem>().orderBy(.ascending(\.$rank)).sectionBy(\.$group) { "g\($0)" })
        let all = try stack.fetchAll(From<PubItem>().orderBy(.ascending(\.$group), .ascending(\.$rank)))
        #expect(counter.calls == 1)
        #expect(Array(publisher.snapshot) == all.map(\.objectID))
        #expect(publisher.snapshot.sectionIDs == Self.runs(all.map { "g\($0.group)" }))

        try publisher.refetch(From<PubItem>().where(\.$flag == true))
        #expect(counter.calls == 2)
        #expect(Array(publisher.snapshot) == (try stack.fetchObjectIDs(From<PubItem>().where(\.$flag == true))))
        #expect(publisher.snapshot.numberOfSections == 1)
    }

    // MARK: AsyncSequence and Observation

    @Test
    func snapshotsYieldTheCurrentSnapshotThenOnePerCommit() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        let publisher = try stack.publishList(From<PubItem>().orderBy(.ascending(\.$rank)))
        let stream = publisher.snapshots
        let writer = Task {
            for rank in 1...3 {
                try await stack.perform { tx in tx.create(Into<PubItem>()).rank = rank }
                // Unrelated to the list: yields nothing.
                try await stack.perform { tx in tx.create(Into<PubTag>()).title = "t\(rank)" }
            }
        }
        var collected: [ListSnapshot<PubItem>] = []
        for await snapshot in stream {
            collected.append(snapshot)
            if collected.count == 4 { break }
        }
        try await writer.value
        #expect(collected.map(\.count) == [0, 1, 2, 3])
        #expect(collected.last == publisher.snapshot)
        #expect(Array(collected[3]) == (try stack.fetchObjectIDs(From<PubItem>().orderBy(.ascending(\.$rank)))))
    }

    @Test
    func snapshotsFinishWhenThePublisherIsReleased() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        var publisher: ListPublisher<PubItem>? = try stack.publishList(From<PubItem>())
        weak let weakPublisher = publisher
        let stream = publisher!.snapshots
        publisher = nil
        #expect(weakPublisher == nil)
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1)
        // A commit after the release reaches nothing.
        try stack.perform(synchronous: { tx in _ = tx.create(Into<PubItem>()) })
    }

    @Test
    func observationTrackingFiresAfterACommitThatChangesTheList() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        let publisher = try stack.publishList(From<PubItem>().where(\.$flag == true))

        let unrelated = Flag()
        withObservationTracking { _ = publisher.snapshot } onChange: { unrelated.raise() }
        try stack.perform(synchronous: { tx in tx.create(Into<PubItem>()).flag = false })
        #expect(unrelated.count == 0)

        try stack.perform(synchronous: { tx in tx.create(Into<PubItem>()).flag = true })
        #expect(unrelated.count == 1)
        #expect(publisher.snapshot.count == 1)
    }

    /// An update to a shown object's field gives a snapshot equal to the last
    /// (IDs only); SwiftUI must still hear of it, as closures and streams do.
    @Test(arguments: StoreKind.allCases)
    func observationTrackingFiresAfterACommitThatOnlyChangesShownFields(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<PubItem>()).objectID })
        let publisher = try stack.publishList(From<PubItem>().orderBy(.ascending(\.$rank)))
        let before = publisher.snapshot
        let stream = publisher.snapshots
        for round in 1...2 {
            let tracked = Flag()
            withObservationTracking { _ = publisher.snapshot } onChange: { tracked.raise() }
            try stack.perform(synchronous: { tx in tx.edit(id)?.name = "renamed \(round)" })
            #expect(tracked.count == 1, "round \(round)")
            #expect(publisher.snapshot == before)
        }
        var yielded = 0
        for await snapshot in stream {
            #expect(snapshot == before)
            yielded += 1
            if yielded == 3 { break }
        }
    }

    @Test
    func snapshotsCrossIntoOtherTasks() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(publisherSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for rank in 0..<5 { tx.create(Into<PubItem>()).rank = rank }
        })
        let publisher = try stack.publishList(
            From<PubItem>().orderBy(.ascending(\.$rank)).sectionBy(\.$rank) { $0 < 2 ? "low" : "high" })
        let snapshot = publisher.snapshot
        let read = await Task.detached {
            (snapshot.sectionIDs, snapshot.count, snapshot.itemIDs(inSection: 1).map(\.rowID), snapshot)
        }.value
        #expect(read.0 == ["low", "high"])
        #expect(read.1 == 5)
        #expect(read.2 == Array(snapshot.itemIDs(inSection: 1)).map(\.rowID))
        #expect(read.3 == snapshot)
    }
}
