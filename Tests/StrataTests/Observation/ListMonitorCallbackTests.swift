import Foundation
@testable import Strata
import Testing

/// The exact callback sequences a sectioned monitor sends, as CoreStore's tests pin them.
@MainActor
@Suite("ListMonitor: callback sequences")
struct ListMonitorCallbackTests {
    /// A monitor of items sectioned by group (g0, g1, ...) and sorted by rank.
    private func makeMonitor(
        _ items: [(group: Int, rank: Int)], kind: StoreKind, in directory: TemporaryDirectory
    ) throws -> (DataStack, ListMonitor<MonItem>, RecordingObserver, [ObjectID<MonItem>]) {
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            items.map { group, rank -> ObjectID<MonItem> in
                let item = tx.create(Into<MonItem>())
                item.group = group
                item.rank = rank
                return item.objectID
            }
        })
        let monitor = try stack.monitorList(
            From<MonItem>().orderBy(.ascending(\.$rank)).sectionBy(\.$group) { "g\($0)" })
        let observer = RecordingObserver()
        monitor.addObserver(observer)
        return (stack, monitor, observer, ids)
    }

    @Test(arguments: StoreKind.allCases)
    func insertIntoANewSectionInsertsTheSectionFirst(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, observer, _) = try makeMonitor([(0, 1), (0, 2)], kind: kind, in: directory)
        try stack.perform(synchronous: { tx in
            let item = tx.create(Into<MonItem>())
            item.group = 1
            item.rank = 5
        })
        #expect(observer.events == ["willChange", "insertSection 1", "insert 1.0", "didChange"])
        #expect(monitor.sectionNames() == ["g0", "g1"])
    }

    /// CoreStore's insert test holds the inserted section's info equal to the
    /// monitor's own info at that index, read inside the callback.
    @Test(arguments: StoreKind.allCases)
    func anInsertedSectionsInfoEqualsTheMonitorsInfoAtItsIndex(kind: StoreKind) throws {
        @MainActor final class SectionInfoChecker: ListSectionObserver {
            typealias ListEntityType = MonItem
            var matches: [Bool] = []
            func listMonitor(
                _ monitor: ListMonitor<MonItem>, didInsertSection sectionInfo: ListSectionInfo<MonItem>,
                toSectionIndex sectionIndex: Int
            ) {
                matches.append(sectionInfo == monitor.sectionInfo(at: sectionIndex))
                matches.append(sectionInfo != monitor.sectionInfo(at: sectionIndex == 0 ? 1 : 0))
            }
        }
        let directory = TemporaryDirectory()
        let (stack, monitor, _, _) = try makeMonitor([(1, 1), (1, 2)], kind: kind, in: directory)
        let checker = SectionInfoChecker()
        monitor.addObserver(checker)
        try stack.perform(synchronous: { tx in
            for (group, rank) in [(0, 3), (2, 4), (2, 5)] {
                let item = tx.create(Into<MonItem>())
                item.group = group
                item.rank = rank
            }
        })
        #expect(checker.matches == [true, true, true, true])
        #expect(monitor.sectionInfo(at: 1) == monitor.sectionInfo(at: 1))
        #expect(monitor.sections() == monitor.sections() && monitor.sections().count == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func anUpdateThatKeepsThePlaceIsAnUpdateAtTheOldIndexPath(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        // The monitor must be kept: a released monitor stops following commits.
        let (stack, monitor, observer, ids) = try makeMonitor([(0, 1), (0, 2), (1, 3)], kind: kind, in: directory)
        try stack.perform(synchronous: { tx in tx.edit(ids[1])?.flag = true })
        #expect(observer.events == ["willChange", "update 0.1", "didChange"])
        #expect(monitor.numberOfObjects() == 3)
    }

    @Test(arguments: StoreKind.allCases)
    func aSortOrSectionChangeIsOneMove(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, observer, ids) = try makeMonitor(
            [(0, 10), (0, 20), (1, 30), (1, 40)], kind: kind, in: directory)
        // Rank 10 in g0 goes to g1 between ranks 30 and 40: one move, from 0.0 to 1.1.
        try stack.perform(synchronous: { tx in
            let item = try #require(tx.edit(ids[0]))
            item.group = 1
            item.rank = 35
        })
        #expect(observer.events == ["willChange", "move 0.0->1.1", "didChange"])
        #expect(monitor.objectsInAllSections().map(\.objectID) == [ids[1], ids[2], ids[0], ids[3]])
    }

    @Test(arguments: StoreKind.allCases)
    func aDeleteThatEmptiesASectionDeletesTheObjectThenTheSection(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, observer, ids) = try makeMonitor([(0, 1), (1, 2), (2, 3)], kind: kind, in: directory)
        try stack.perform(synchronous: { tx in tx.delete(ids[1]) })
        #expect(observer.events == ["willChange", "delete 1.0", "deleteSection 1", "didChange"])
        #expect(monitor.sectionNames() == ["g0", "g2"])
        #expect(monitor.numberOfObjects(in: 1) == 1)
        // The deleted section's info holds the object it had.
        #expect(observer.deletedSectionRows == [1: [ids[1].rowID]])
    }

    @Test(arguments: StoreKind.allCases)
    func aSectionEmptiedByMovesReportsTheObjectsItHad(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, observer, ids) = try makeMonitor(
            [(0, 1), (1, 2), (1, 3), (2, 4)], kind: kind, in: directory)
        try stack.perform(synchronous: { tx in
            tx.edit(ids[1])?.group = 0
            tx.edit(ids[2])?.group = 2
        })
        #expect(observer.events.contains("deleteSection 1"), "\(observer.events)")
        #expect(observer.deletedSectionRows == [1: [ids[1].rowID, ids[2].rowID]])
        #expect(monitor.sectionNames() == ["g0", "g2"])
    }

    @Test(arguments: StoreKind.allCases)
    func refetchSendsWillAndDidRefetchOnly(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (_, monitor, observer, _) = try makeMonitor([(0, 1), (1, 2)], kind: kind, in: directory)
        let refetches = RefetchCounter()
        monitor.addObserver(refetches)
        try monitor.refetch(From<MonItem>().where(\.$group == 1).orderBy(.ascending(\.$rank)))
        #expect(observer.events.isEmpty)
        #expect(refetches.events == ["willRefetch", "didRefetch"])
        #expect(monitor.numberOfObjects() == 1 && monitor.numberOfSections() == 1)
    }

    /// A refetch whose fetch fails still closes the `willRefetch` it opened:
    /// observers get `didRefetch` with the old list in place, then the error.
    @Test(arguments: StoreKind.allCases)
    func aFailedRefetchStillSendsDidRefetchWithTheOldList(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (_, monitor, observer, ids) = try makeMonitor([(0, 1), (1, 2)], kind: kind, in: directory)
        let refetches = RefetchCounter()
        monitor.addObserver(refetches)
        #expect(throws: StrataError.self) {
            try monitor.refetch(From<MonItem>().where(Where(sql: "no_such_column = 1")))
        }
        #expect(refetches.events == ["willRefetch", "didRefetch"])
        #expect(observer.events.isEmpty)
        #expect(monitor.objectsInAllSections().map(\.objectID) == ids && monitor.sectionNames() == ["g0", "g1"])
    }

    @Test(arguments: StoreKind.allCases)
    func anUnsectionedListKeepsItsOneSectionWhenItEmptiesAndFills(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let monitor = try stack.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let observer = RecordingObserver()
        monitor.addObserver(observer)
        #expect(monitor.numberOfSections() == 1 && monitor.numberOfObjects(in: 0) == 0)
        #expect(monitor.sectionInfo(at: 0).objects.isEmpty)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).objectID })
        #expect(observer.events == ["willChange", "insert 0.0", "didChange"])
        #expect(monitor.numberOfSections() == 1 && monitor.numberOfObjects(in: 0) == 1)
        observer.reset()
        try stack.perform(synchronous: { tx in tx.delete(id) })
        #expect(observer.events == ["willChange", "delete 0.0", "didChange"])
        #expect(monitor.numberOfSections() == 1 && monitor.numberOfObjects(in: 0) == 0)
        // A re-fetch of an empty list keeps the section too.
        try monitor.refetch(From<MonItem>().where(\.$rank > 1_000))
        #expect(monitor.numberOfSections() == 1)
    }

    @Test
    func aMonitorIgnoresChangeSetsItsFetchAlreadyReflects() throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, observer, _) = try makeMonitor([(0, 1)], kind: .file, in: directory)
        // Commit off the main actor: the change set waits in the inbox while a
        // new monitor fetches, so that monitor's fetch already reflects it.
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { @Sendable in
            _ = try? stack.perform(
                synchronous: { tx in tx.create(Into<MonItem>()).rank = 9 }, waitForAllObservers: false)
            done.signal()
        }
        done.wait()
        let late = try stack.monitorList(
            From<MonItem>().orderBy(.ascending(\.$rank)).sectionBy(\.$group) { "g\($0)" })
        let lateObserver = RecordingObserver()
        late.addObserver(lateObserver)
        stack.mergePendingChangeSets()
        #expect(late.numberOfObjects() == 2)
        #expect(lateObserver.events.isEmpty)
        #expect(observer.events == ["willChange", "insert 0.1", "didChange"])
        #expect(monitor.numberOfObjects() == 2)
    }

    // MARK: The re-fetch path reports moves as the in-memory one does

    /// A monitor of items by rank, limited (so that every commit re-fetches
    /// and diffs) or not; the one whose rank changes is the move, even when
    /// it keeps its place, and its neighbours are left alone.
    @Test(arguments: StoreKind.allCases, [false, true])
    func aSortKeyChangeIsTheOneMoveOnEitherPath(kind: StoreKind, limited: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            [10, 20, 30, 40, 50].map { rank -> ObjectID<MonItem> in
                let item = tx.create(Into<MonItem>())
                item.rank = rank
                return item.objectID
            }
        })
        var query = From<MonItem>().orderBy(.ascending(\.$rank))
        if limited { query = query.tweak { $0.fetchLimit = 3 } }
        let monitor = try stack.monitorList(query)
        let observer = RecordingObserver()
        monitor.addObserver(observer)
        try stack.perform(synchronous: { tx in tx.edit(ids[0])?.rank = 25 })
        #expect(observer.events == ["willChange", "move 0.0->0.1", "didChange"])
        observer.reset()
        try stack.perform(synchronous: { tx in tx.edit(ids[2])?.rank = 31 })
        #expect(observer.events == ["willChange", "move 0.2->0.2", "didChange"])
        observer.reset()
        try stack.perform(synchronous: { tx in tx.edit(ids[1])?.label = "no key" })
        #expect(observer.events == ["willChange", "update 0.0", "didChange"])
        #expect(monitor.objectsInAllSections().map(\.rank) == (limited ? [20, 25, 31] : [20, 25, 31, 40, 50]))
    }

    /// A commit too large for the in-memory update (over half the list)
    /// re-fetches; the one sort-key change among many label edits is the move.
    @Test(arguments: StoreKind.allCases)
    func aLargeCommitsSortKeyChangeIsTheMove(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            (0..<40).map { index -> ObjectID<MonItem> in
                let item = tx.create(Into<MonItem>())
                item.rank = index * 10
                return item.objectID
            }
        })
        let monitor = try stack.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let observer = RecordingObserver()
        monitor.addObserver(observer)
        try stack.perform(synchronous: { tx in
            tx.edit(ids[0])?.rank = 15
            for index in 5..<40 { tx.edit(ids[index])?.label = "edited" }
        })
        #expect(observer.changes.moves == [ListChanges.Move(
            from: IndexPath(item: 0, section: 0), to: IndexPath(item: 1, section: 0))])
        #expect(observer.changes.updates.count == 35)
        #expect(!observer.events.contains("update 0.0"))
    }

    // MARK: Removing an observer inside a callback

    /// Removes itself from the monitor in `listMonitorWillChange`, as a screen
    /// that stops observing on its way out would.
    @MainActor
    private final class RemovingObserver: ListObjectObserver {
        typealias ListEntityType = MonItem
        var events: [String] = []
        func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) {
            events.append("willChange")
            monitor.removeObserver(self)
        }
        func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { events.append("didChange") }
        func listMonitor(_ monitor: ListMonitor<MonItem>, didInsertObject object: MonItem, toIndexPath indexPath: IndexPath) {
            events.append("insert")
        }
    }

    /// An observer removed by its own callback gets nothing more of the batch;
    /// the others get all of it.
    @Test(arguments: StoreKind.allCases)
    func anObserverRemovedInACallbackGetsNothingMore(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, observer, _) = try makeMonitor([(0, 1)], kind: kind, in: directory)
        let removing = RemovingObserver()
        monitor.addObserver(removing)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
        #expect(removing.events == ["willChange"])
        #expect(observer.events == ["willChange", "insert 0.1", "didChange"])
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 3 })
        #expect(removing.events == ["willChange"])
    }
}

@MainActor
private final class RefetchCounter: ListObserver {
    typealias ListEntityType = MonItem
    var events: [String] = []
    func listMonitorWillRefetch(_ monitor: ListMonitor<MonItem>) { events.append("willRefetch") }
    func listMonitorDidRefetch(_ monitor: ListMonitor<MonItem>) { events.append("didRefetch") }
}

@Suite("SectionBy: default names")
struct SectionByNameTests {
    @Test
    func optionalValuesAreUnwrappedAndNilIsEmpty() {
        #expect(defaultSectionName(Optional("home")) == "home")
        #expect(defaultSectionName(String?.none) == "")
        #expect(defaultSectionName(42) == "42")
    }
}

@MainActor
@Suite("ListMonitor: raw SQL")
struct ListMonitorRawSQLTests {
    @Test
    func aRawSQLMonitorFollowsChangesToOtherTables() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let ownerID = try stack.perform(synchronous: { tx in
            let owner = tx.create(Into<MonOwner>())
            owner.name = "o0"
            for rank in 0..<3 {
                let item = tx.create(Into<MonItem>())
                item.rank = rank
                item.owner = owner
            }
            return owner.objectID
        })
        let monitor = try stack.monitorList(From<MonItem>().where(
            Where(sql: "owner IN (SELECT _pk FROM MonOwner WHERE name = ?)", arguments: [.text("o1")])))
        #expect(monitor.numberOfObjects() == 0)
        // Only the owner changes; the items' own rows do not.
        try stack.perform(synchronous: { tx in tx.edit(ownerID)?.name = "o1" })
        #expect(monitor.numberOfObjects() == 3)
    }
}

@MainActor
@Suite("ListMonitor: paths")
struct ListMonitorPathTests {
    @Test
    func aPathBackToTheSameEntityFollowsChangesToOtherMembers() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let (buddyID, _) = try stack.perform(synchronous: { tx in
            let buddy = tx.create(Into<MonItem>())
            buddy.rank = 10
            let item = tx.create(Into<MonItem>())
            item.buddy = buddy
            return (buddy.objectID, item.objectID)
        })
        let monitor = try stack.monitorList(From<MonItem>().where(\.$buddy ~ \.$rank > 50))
        #expect(monitor.numberOfObjects() == 0)
        // Only the buddy changes; the member-to-be does not appear in the change set.
        try stack.perform(synchronous: { tx in tx.edit(buddyID)?.rank = 60 })
        #expect(monitor.numberOfObjects() == 1)
    }

    @Test
    func aPathMonitorFollowsTheEntitiesOnItsPath() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let owner = tx.create(Into<MonOwner>())
            owner.name = "o1"
            tx.create(Into<MonItem>()).owner = owner
        })
        let monitor = try stack.monitorList(From<MonItem>().where(\.$owner ~ \.$name == "o1"))
        #expect(monitor.entitiesRead == ["MonOwner"])
        let observer = RecordingObserver()
        monitor.addObserver(observer)
        try stack.perform(synchronous: { tx in
            let owner = try #require(try tx.fetchOne(From<MonOwner>()))
            owner.name = "o2"
        })
        #expect(monitor.numberOfObjects() == 0)
        #expect(observer.events.first == "willChange")
    }
}
