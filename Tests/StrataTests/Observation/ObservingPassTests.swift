import Foundation
import Testing

@testable import Strata

/// Rule 1 of Docs/Observing.md: "When any callback runs, every object and
/// every monitor already shows the same commit, so a callback may read any of
/// them without seeing a half-applied state." Checked from each kind of
/// monitor callback, reading monitors made before it and after it.
@MainActor
@Suite("Observing.md Rule 1: a callback sees every monitor at the same commit")
struct ObservingPassTests {
    /// Reads the other monitors whenever its own monitor calls it.
    final class Reader: ListObjectObserver, ObjectObserver {
        typealias ListEntityType = MonItem
        typealias ObjectEntityType = MonItem
        var others: [ListMonitor<MonItem>] = []
        /// Each callback's view of the other monitors' counts.
        var seen: [String] = []

        func look(_ callback: String) {
            seen.append("\(callback): \(others.map { $0.numberOfObjects() })")
        }
        func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) { look("willChange") }
        func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { look("didChange") }
        func listMonitor(
            _ monitor: ListMonitor<MonItem>, didInsertObject object: MonItem,
            toIndexPath indexPath: IndexPath
        ) {
            look("insert")
        }
        func objectMonitor(
            _ monitor: ObjectMonitor<MonItem>, didUpdateObject object: MonItem,
            changedPersistentKeys: Set<String>
        ) {
            look("objectUpdate")
        }
    }

    @Test(arguments: StoreKind.sqlite)
    func everyCallbackReadsOtherMonitorsAtItsCommit(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let first = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<MonItem>())
            item.flag = true
            return item.objectID
        })
        let query = From<MonItem>().where(\.$flag == true).orderBy(.ascending(\.$rank))
        let before = try stack.monitorList(query)
        let listReader = Reader()
        let objectReader = Reader()
        let listed = try stack.monitorList(query)
        listed.addObserver(listReader)
        let watched = try stack.monitorObject(first)
        watched.addObserver(objectReader)
        let fieldReader = Reader()
        let item = try #require(try stack.fetchExisting(first))
        let token = item.$rank.observe { _, _ in fieldReader.look("field") }
        let after = try stack.monitorList(query)
        for reader in [listReader, objectReader, fieldReader] { reader.others = [before, after] }

        // One commit inserts a member and changes the watched one.
        try stack.perform(synchronous: { tx in
            tx.create(Into<MonItem>()).flag = true
            tx.edit(first)?.rank = 5
        })
        #expect(listReader.seen == ["willChange: [2, 2]", "insert: [2, 2]", "didChange: [2, 2]"])
        #expect(objectReader.seen == ["objectUpdate: [2, 2]"])
        #expect(fieldReader.seen == ["field: [2, 2]"])
        withExtendedLifetime(token) {}
    }

    /// Rule 1 and Rule 10: a refresh (a write that bypassed the commit log)
    /// reaches observers through the same pass: `listMonitorDidRefetch` and an
    /// object monitor's update read every monitor re-read already.
    @Test
    func aRefreshsCallbacksReadOtherMonitorsRefreshed() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        let first = try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).objectID })
        let query = From<MonItem>().orderBy(.ascending(\.$rank))
        let before = try stack.monitorList(query)
        let listed = try stack.monitorList(query)
        let watched = try stack.monitorObject(first)
        let fieldReader = Reader()
        let token = try #require(try stack.fetchExisting(first)).$rank.observe { _, _ in
            fieldReader.look("field")
        }
        let after = try stack.monitorList(query)
        final class RefetchReader: ListObserver {
            typealias ListEntityType = MonItem
            var read: () -> Void = {}
            func listMonitorDidRefetch(_ monitor: ListMonitor<MonItem>) { read() }
        }
        let listReader = RefetchReader()
        let objectReader = Reader()
        var seen: [[Int]] = []
        listReader.read = { seen.append([before.numberOfObjects(), after.numberOfObjects()]) }
        objectReader.others = [before, after]
        fieldReader.others = [before, after]
        listed.addObserver(listReader)
        watched.addObserver(objectReader)
        try writeBypassingStrata(
            "UPDATE MonItem SET rank = 3 WHERE _pk = \(first.rowID); "
                + "INSERT INTO MonItem (_pk, \"group\", rank, flag) VALUES (1000, 0, 7, 0)",
            at: storeURL(in: directory))
        await Task.yield()
        _ = try stack.fetchCount(From<MonOwner>())
        #expect(seen == [[2, 2]])
        #expect(objectReader.seen == ["objectUpdate: [2, 2]"])
        #expect(fieldReader.seen == ["field: [2, 2]"])
        withExtendedLifetime(token) {}
    }

    /// Calls a closure from `listMonitorWillChange`, and counts every callback.
    final class Hook: ListObjectObserver {
        typealias ListEntityType = MonItem
        var onWillChange: () -> Void = {}
        var calls = 0
        func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) {
            calls += 1
            onWillChange()
        }
        func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { calls += 1 }
        func listMonitor(
            _ monitor: ListMonitor<MonItem>, didInsertObject object: MonItem,
            toIndexPath indexPath: IndexPath
        ) {
            calls += 1
        }
    }

    /// Rule 2: an observer removed inside a callback gets nothing more, and a
    /// monitor released stops; also when the callback is another monitor's,
    /// called after both took the commit.
    @Test
    func anObserverRemovedOrAMonitorReleasedByAnotherMonitorsCallbackGetsNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let query = From<MonItem>().orderBy(.ascending(\.$rank))
        let first = try stack.monitorList(query)
        var second: ListMonitor<MonItem>? = try stack.monitorList(query)
        weak let weakSecond = second
        var third: ListMonitor<MonItem>? = try stack.monitorList(query)
        let closer = Hook()
        let removed = Hook()
        let orphan = Hook()
        first.addObserver(closer)
        second?.addObserver(removed)
        third?.addObserver(orphan)
        closer.onWillChange = {
            second?.removeObserver(removed)
            third = nil
        }
        try stack.perform(synchronous: { tx in _ = tx.create(Into<MonItem>()) })
        #expect(closer.calls == 3)
        #expect(removed.calls == 0, "removed before its monitor called it")
        #expect(orphan.calls == 0, "its monitor was released before calling it")
        #expect(second?.numberOfObjects() == 1)
        second = nil
        #expect(weakSecond == nil)
    }

    /// Rule 1: a synchronous commit made in a callback is merged after the
    /// pass under way (DataStack.mergePendingChangeSets), so every monitor of
    /// the list, before and after the one calling, gets both commits, in order.
    @Test
    func aSynchronousCommitInACallbackReachesEveryMonitorAfterThePass() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let query = From<MonItem>().orderBy(.ascending(\.$rank))
        let monitors = try (0..<3).map { _ in try stack.monitorList(query) }
        let hooks = monitors.map { monitor in
            let hook = Hook()
            monitor.addObserver(hook)
            return hook
        }
        var committedInside = false
        var countAfterInnerCommit: Int?
        hooks[1].onWillChange = {
            guard !committedInside else { return }
            committedInside = true
            try? stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 9 })
            countAfterInnerCommit = monitors[2].numberOfObjects()
        }
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        // Not merged in the middle of the pass: the monitor after shows the first commit.
        #expect(countAfterInnerCommit == 1)
        // Each monitor: two batches of willChange, insert, didChange; the list has both.
        #expect(hooks.map(\.calls) == [6, 6, 6])
        #expect(
            monitors.map { $0.objectsInAllSections().map(\.rank) }
                == Array(repeating: [1, 9], count: 3))
    }

    final class Counter: ListSectionObserver, ObjectObserver {
        typealias ListEntityType = MonItem
        typealias ObjectEntityType = MonItem
        var willChange = 0
        var updates = 0
        func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) { willChange += 1 }
        func objectMonitor(_ monitor: ObjectMonitor<MonItem>, willUpdateObject object: MonItem) {
            updates += 1
        }
    }

    /// Adds `observer` through the plain `ListObserver` overload.
    static func addAsListObserver<Observer: ListObserver>(
        _ observer: Observer, to monitor: ListMonitor<MonItem>
    )
    where Observer.ListEntityType == MonItem {
        monitor.addObserver(observer)
    }

    /// Rule 2: adding the same observer again replaces it (it is called once
    /// a commit, not twice), whichever of the protocols it was added as.
    @Test
    func addingAnObserverAgainReplacesIt() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).objectID })
        let list = try stack.monitorList(From<MonItem>())
        let object = try stack.monitorObject(id)
        let counter = Counter()
        list.addObserver(counter)
        Self.addAsListObserver(counter, to: list)
        object.addObserver(counter)
        object.addObserver(counter)
        try stack.perform(synchronous: { tx in tx.edit(id)?.rank = 3 })
        #expect(counter.willChange == 1 && counter.updates == 1)
        list.removeObserver(counter)
        object.removeObserver(counter)
        try stack.perform(synchronous: { tx in tx.edit(id)?.rank = 4 })
        #expect(counter.willChange == 1 && counter.updates == 1)
    }

    /// A callback that refetches another monitor, whose own batch for the
    /// commit has not been delivered yet: that monitor's observers get the
    /// refetch, not a batch about the list it replaced.
    @Test
    func aMonitorRefetchedByAnotherMonitorsCallbackSendsOnlyTheRefetch() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let query = From<MonItem>().orderBy(.ascending(\.$rank))
        let first = try stack.monitorList(query)
        let second = try stack.monitorList(query)
        let trigger = Hook()
        first.addObserver(trigger)
        let recorder = RecordingObserver()
        second.addObserver(recorder)
        var once = true
        trigger.onWillChange = {
            guard once else { return }
            once = false
            try? second.refetch(From<MonItem>().where(\.$rank > 5).orderBy(.descending(\.$rank)))
        }
        try stack.perform(synchronous: { tx in
            for rank in [1, 7, 9] { tx.create(Into<MonItem>()).rank = rank }
        })
        #expect(recorder.events.isEmpty, "no batch about the replaced list: \(recorder.events)")
        #expect(recorder.refetched)
        #expect(second.objectsInAllSections().map(\.rank) == [9, 7])
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 8 })
        #expect(second.objectsInAllSections().map(\.rank) == [9, 8, 7])
        #expect(recorder.events == ["willChange", "insert 0.1", "didChange"])
    }

    /// Rule 6: a commit that splits a section of a name not monotone in its
    /// key is announced as a refetch, on the in-memory path and on the
    /// re-fetching one (a fetch limit) alike.
    @Test(arguments: [false, true])
    func aSplitOfSameNamedSectionsIsARefetch(limited: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for rank in [1, 3] { tx.create(Into<MonItem>()).rank = rank }
        })
        let query = From<MonItem>().orderBy(.ascending(\.$rank))
            .tweak { $0.fetchLimit = limited ? 10 : nil }
            .sectionBy(\.$rank) { $0 % 2 == 0 ? "even" : "odd" }
        let monitor = try stack.monitorList(query)
        let recorder = RecordingObserver()
        monitor.addObserver(recorder)
        #expect(monitor.sectionNames() == ["odd"])
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
        #expect(monitor.sectionNames() == ["odd", "even", "odd"])
        #expect(recorder.refetched, "\(recorder.events)")
        #expect(recorder.events.isEmpty, "no per-object events: \(recorder.events)")
    }
}
