import Foundation
@testable import Strata
import Testing

/// Records a monitor's callbacks as one batch of ``ListChanges``, for any animal type.
@MainActor
final class ZooRecorder<Animal: ZooAnimal>: ListSectionObserver {
    typealias ListEntityType = Animal
    var changes = ListChanges()
    var refetched = false
    var events = 0

    func listMonitorDidRefetch(_ monitor: ListMonitor<Animal>) { refetched = true }
    func listMonitor(_ monitor: ListMonitor<Animal>, didInsertObject object: Animal, toIndexPath indexPath: IndexPath) {
        changes.inserts.append(indexPath)
        events += 1
    }
    func listMonitor(_ monitor: ListMonitor<Animal>, didDeleteObject object: Animal, fromIndexPath indexPath: IndexPath) {
        changes.deletes.append(indexPath)
        events += 1
    }
    func listMonitor(_ monitor: ListMonitor<Animal>, didUpdateObject object: Animal, atIndexPath indexPath: IndexPath) {
        changes.updates.append(indexPath)
        events += 1
    }
    func listMonitor(_ monitor: ListMonitor<Animal>, didMoveObject object: Animal, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        changes.moves.append(ListChanges.Move(from: fromIndexPath, to: toIndexPath))
        events += 1
    }
    func listMonitor(_ monitor: ListMonitor<Animal>, didInsertSection sectionInfo: ListSectionInfo<Animal>, toSectionIndex sectionIndex: Int) {
        changes.insertedSections.append(sectionIndex)
    }
    func listMonitor(_ monitor: ListMonitor<Animal>, didDeleteSection sectionInfo: ListSectionInfo<Animal>, fromSectionIndex sectionIndex: Int) {
        changes.deletedSections.append(sectionIndex)
    }

    func reset() {
        changes = ListChanges()
        refetched = false
        events = 0
    }
}

/// One monitored list of the tree, checked after every commit.
@MainActor
private struct WatchedList {
    let check: (_ context: String) throws -> Void
    let snapshot: () -> SectionedList<Int64>
    let reset: () -> Void
}

@MainActor
@Suite("Inheritance: monitors and change sets of a base entity follow every subentity")
struct InheritanceMonitorTests {
    /// A monitor of `query` whose replayed changes and fresh fetch are checked after each commit.
    private func watch<Animal: ZooAnimal>(
        _ query: From<Animal>, sectioned: Bool, on stack: DataStack, chunk: Int
    ) throws -> (WatchedList, ListMonitor<Animal>, ZooRecorder<Animal>) {
        let sectionBy: SectionBy<Animal>? = sectioned ? SectionBy(\.$legs) { "legs \($0)" } : nil
        let monitor = try ListMonitor(main: stack.main(), query: query, sectionBy: sectionBy, chunkCapacity: chunk)
        let recorder = ZooRecorder<Animal>()
        monitor.addObserver(recorder)
        var before = monitor.sectionedRowIDs()
        let list = WatchedList(
            check: { context in
                monitor.members.checkInvariants()
                let now = monitor.sectionedRowIDs()
                if !recorder.refetched {
                    let applied = try? recorder.changes.apply(to: before, insertingFrom: now)
                    #expect(applied.map(ListMonitorModelTests.plain) == ListMonitorModelTests.plain(now), "\(context)")
                }
                before = now
                let fresh = try stack.fetchAll(query.orderBy(monitor.orderForFetch))
                #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), "\(context)")
                #expect(monitor.objectsInAllSections().map { ZooKind.of($0) } == fresh.map { ZooKind.of($0) }, "\(context)")
                if !query.options.includesSubentities {
                    #expect(monitor.objectsInAllSections().allSatisfy { type(of: $0) == Animal.self }, "\(context)")
                }
                if sectioned {
                    var runs: [String] = []
                    for legs in fresh.map(\.legs) where runs.last != "legs \(legs)" { runs.append("legs \(legs)") }
                    #expect(monitor.sectionNames() == runs, "\(context)")
                }
            },
            snapshot: { monitor.sectionedRowIDs() },
            reset: { recorder.reset() })
        return (list, monitor, recorder)
    }

    nonisolated static let seeds: [UInt64] = [11, 12, 13, 14]

    /// Random commits of every kind of animal — made by the monitored stack,
    /// or by another stack on the same file whose commits arrive through the
    /// log — keep monitors of the base and of subentities exact: the changes
    /// they emit, applied to the old list, give a fresh fetch.
    @Test(arguments: seeds, [false, true])
    func randomCommitsKeepMonitorsOfEveryEntityOfTheTreeExact(seed: UInt64, fromAnotherStack: Bool) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .file, in: directory)
        let writer = fromAnotherStack ? try makeStack(zooSchema(), .file, in: directory) : stack
        try ZooWorkload.seed(writer, count: 40, random: &random)
        _ = try stack.fetchCount(From<ZooKeeper>())  // follows the writer's commits
        let chunk = seed % 2 == 1 ? 3 : ListMembers.defaultChunkCapacity
        var held: [AnyObject] = []
        var lists: [WatchedList] = []
        func add<Animal: ZooAnimal>(_ query: From<Animal>, sectioned: Bool) throws {
            let (list, monitor, recorder) = try watch(query, sectioned: sectioned, on: stack, chunk: chunk)
            held += [monitor, recorder]
            lists.append(list)
        }
        try add(From<ZooAnimal>().orderBy(.ascending(\.$legs), .ascending(\.$name)), sectioned: true)
        try add(From<ZooAnimal>().where(\.$legs >= 2).orderBy(.descending(\.$name)), sectioned: false)
        try add(From<ZooCat>().orderBy(.ascending(\.$lives)), sectioned: false)
        try add(From<ZooCat>().where(\.$keeper ~ \.$name == "k0").orderBy(.ascending(\.$legs)), sectioned: true)
        try add(From<ZooDog>().orderBy(.ascending(\.$breed)), sectioned: false)
        // Without subentities: only the entity's own objects are members.
        try add(From<ZooAnimal>().orderBy(.ascending(\.$legs), .ascending(\.$name))
            .tweak { $0.includesSubentities = false }, sectioned: true)
        try add(From<ZooCat>().where(\.$legs >= 1).orderBy(.descending(\.$legs))
            .tweak { $0.includesSubentities = false }, sectioned: false)
        for commit in 0..<50 {
            for list in lists { list.reset() }
            try writer.perform(synchronous: { tx in
                try ZooWorkload.change(tx, &random, operations: Int(random.next() % 4) + 1)
                if commit % 12 == 0, let keeper = try tx.fetchOne(From<ZooKeeper>()) {
                    keeper.name = keeper.name == "k0" ? "k1" : "k0"  // the other side of a path changes
                }
            })
            if fromAnotherStack { _ = try stack.fetchCount(From<ZooKeeper>()) }
            for (index, list) in lists.enumerated() {
                try list.check("seed \(seed), other stack \(fromAnotherStack), commit \(commit), monitor \(index)")
            }
        }
        withExtendedLifetime(held) {}
    }

    /// A `Where` or a sort key through a relationship whose target is a base
    /// entity reads every subentity's rows: a commit that changes only a
    /// dog, a cat or a lion (which a change set names by its own entity)
    /// must still reach a monitor whose path ends at `ZooAnimal`.
    @Test(arguments: seeds)
    func pathsIntoATreeFollowCommitsToEverySubentity(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .file, in: directory)
        try ZooWorkload.seed(stack, count: 20, random: &random)
        try stack.perform(synchronous: { tx in
            for _ in 0..<3 { tx.create(Into<ZooKeeper>()).name = "k\(random.next() % 3)" }
        })
        var held: [AnyObject] = []
        var lists: [WatchedList] = []
        func add<Animal: ManagedObject>(_ query: From<Animal>, check: @escaping (ListMonitor<Animal>, String) throws -> Void) throws {
            let monitor = try ListMonitor(main: stack.main(), query: query, sectionBy: nil, chunkCapacity: 3)
            held.append(monitor)
            lists.append(WatchedList(check: { try check(monitor, $0) }, snapshot: { monitor.sectionedRowIDs() }, reset: {}))
        }
        func exact<Object: ManagedObject>(_ query: From<Object>) -> (ListMonitor<Object>, String) throws -> Void {
            { monitor, context in
                let fresh = try stack.fetchAll(query.orderBy(monitor.orderForFetch))
                #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), "\(context)")
            }
        }
        let keepers = From<ZooKeeper>().where(\.$favorite ~ \.$name == "Rex").orderBy(.ascending(\.$name))
        try add(keepers, check: exact(keepers))
        let byFavorite = From<ZooKeeper>().orderBy(.ascending(\.$favorite ~ \.$legs), .ascending(\.$name))
        try add(byFavorite, check: exact(byFavorite))
        let keepersOfRex = From<ZooKeeper>().where(.any(\.$animals, \.$name == "Rex")).orderBy(.ascending(\.$name))
        try add(keepersOfRex, check: exact(keepersOfRex))
        // A path that leads back into the monitored tree: a cat is a member
        // when its keeper's favorite animal (a cat too, perhaps) has four legs.
        let cats = From<ZooCat>().where(\.$keeper ~ \.$favorite ~ \.$legs == 4).orderBy(.ascending(\.$name))
        try add(cats, check: exact(cats))
        for commit in 0..<40 {
            try stack.perform(synchronous: { tx in
                let animals = try tx.fetchAll(From<ZooAnimal>())
                let keepers = try tx.fetchAll(From<ZooKeeper>())
                if commit % 3 == 0, let keeper = keepers.randomElement(using: &random) {
                    keeper.favorite = animals.randomElement(using: &random)
                } else if let animal = animals.randomElement(using: &random) {
                    ZooWorkload.randomize(animal, &random)
                }
            })
            for (index, list) in lists.enumerated() {
                try list.check("seed \(seed), commit \(commit), monitor \(index)")
            }
        }
        withExtendedLifetime(held) {}
    }

    @Test
    func anObjectMonitorAndChangeSetQuestionsOfTheBaseSeeASubentitysObject() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        let (dogID, keeperID) = try stack.perform(synchronous: { tx in
            let keeper = tx.create(Into<ZooKeeper>())
            let dog: ZooAnimal = tx.create(Into<ZooDog>())
            dog.keeper = keeper
            return (dog.objectID, keeper.objectID)
        })
        let monitor = try stack.monitorObject(dogID)
        let keeperMonitor = try stack.monitorObject(keeperID, observingRelated: \.$animals)
        let observer = ZooObjectObserver()
        monitor.addObserver(observer)
        let keeperObserver = KeeperObserver()
        keeperMonitor.addObserver(keeperObserver)
        let stream = try stack.changeSets(touching: ["ZooAnimal"])
        var iterator = stream.makeAsyncIterator()
        try stack.perform(synchronous: { tx in (tx.edit(dogID) as? ZooDog)?.breed = "pug" })
        #expect(observer.updates == [["breed"]])
        #expect(keeperObserver.updates == [["animals"]], "a member of the base relationship changed")
        let changeSet = await iterator.next()
        #expect(changeSet?.entityNames == ["ZooDog"])
        #expect(changeSet?.updatedIDs(entity: "ZooAnimal") == [dogID.erased])
        #expect(changeSet?.updatedIDs(Entity<ZooAnimal>("ZooAnimal")) == [dogID])
        #expect(changeSet?.changedFields(of: dogID.erased) == ["breed"])
        #expect(changeSet?.insertedIDs(entity: "ZooCat").isEmpty == true)
        try stack.perform(synchronous: { tx in tx.delete(dogID) })
        #expect(observer.deleted && monitor.isObjectDeleted)
        #expect(keeperObserver.updates.count == 2)
    }

    /// A base entity's snapshot names each object by its concrete entity,
    /// as `objectID` and `fetchObjectIDs` do, so the IDs compare equal and
    /// a subentity object's ID is found in it.
    @Test(arguments: StoreKind.sqlite)
    func aBaseEntitysSnapshotNamesEachObjectsOwnEntity(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        let dogID = try stack.perform(synchronous: { tx in
            tx.create(Into<ZooDog>()).name = "Tom"
            tx.create(Into<ZooCat>()).name = "Felix"
            let rex = tx.create(Into<ZooDog>())
            rex.name = "Rex"
            return rex.objectID
        })
        let query = From<ZooAnimal>().orderBy(.ascending(\.$name))
        let publisher = try stack.publishList(query)
        #expect(Array(publisher.snapshot) == (try stack.fetchObjectIDs(query)))
        #expect(publisher.snapshot.map(\.entityName) == ["ZooCat", "ZooDog", "ZooDog"])
        let rex: ZooAnimal = try #require(try stack.fetchExisting(dogID))
        #expect(publisher.snapshot.indexPath(of: rex.objectID) == IndexPath(item: 1, section: 0))
    }
}

@MainActor
private final class ZooObjectObserver: ObjectObserver {
    typealias ObjectEntityType = ZooAnimal
    var updates: [Set<String>] = []
    var deleted = false

    func objectMonitor(_ monitor: ObjectMonitor<ZooAnimal>, didUpdateObject object: ZooAnimal, changedPersistentKeys: Set<String>) {
        updates.append(changedPersistentKeys)
    }
    func objectMonitor(_ monitor: ObjectMonitor<ZooAnimal>, didDeleteObject object: ZooAnimal) { deleted = true }
}

@MainActor
private final class KeeperObserver: ObjectObserver {
    typealias ObjectEntityType = ZooKeeper
    var updates: [Set<String>] = []

    func objectMonitor(_ monitor: ObjectMonitor<ZooKeeper>, didUpdateObject object: ZooKeeper, changedPersistentKeys: Set<String>) {
        updates.append(changedPersistentKeys)
    }
}
