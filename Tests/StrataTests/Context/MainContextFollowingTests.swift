import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Main context: following other writers of the store")
struct MainContextFollowingTests {
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6])
    func twoStacksOnOneFileShowEveryCommitOfEither(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let first = try openStack(in: directory, author: "first")
        let second = try openStack(in: directory, author: "second")
        try MonWorkload.seed(first, count: 40, random: &random)
        let watchers = [try Watcher(first, random: &random), try Watcher(second, random: &random)]
        var sinceSettled = 0
        for commit in 0..<80 {
            let writer = watchers[Int(random.next() % 2)].stack
            let seed = random.next()
            try writer.perform(synchronous: { tx in
                var random = SplitMix64(seed: seed)
                try randomCommit(tx, &random)
            })
            sinceSettled += 1
            // Several commits may pile up before a stack looks: it then merges them in order.
            guard random.next() % 3 == 0 || commit == 79 else { continue }
            sinceSettled = 0
            for watcher in watchers {
                // A read merges everything up to its snapshot before it returns.
                _ = try watcher.stack.fetchCount(From<MonOwner>())
                #expect(watcher.stack.mergedGeneration == (try first.currentGeneration()))
            }
            let rows = try itemRows(in: SQLiteStore(fileURL: storeURL(in: directory)))
            for (index, watcher) in watchers.enumerated() {
                try watcher.check(rows: rows, "seed \(seed), commit \(commit), stack \(index)")
            }
        }
        #expect(sinceSettled == 0)
    }

    @Test
    func anotherStacksCommitArrivesWithItsAuthorAndNotLocal() throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory, author: "viewer")
        let writer = try openStack(in: directory, author: "writer")
        let monitor = try viewer.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let seen = ChangeSetLog(viewer)
        monitor.addObserver(seen)
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
        try viewer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        #expect(seen.changeSets.map(\.generation) == [1, 2])
        #expect(seen.changeSets.map(\.author) == ["writer", "viewer"])
        #expect(seen.changeSets.map(\.isLocal) == [false, true])
        #expect(monitor.objectsInAllSections().map(\.rank) == [1, 2])
        #expect(seen.changeSets.first?.insertedIDs(entity: "MonItem").count == 1)
    }

    @Test
    func aReadReturnsObjectsThatAgreeWithTheOnesAlreadyHeld() throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory)
        let writer = try openStack(in: directory)
        try writer.perform(synchronous: { tx in
            for rank in 0..<3 { tx.create(Into<MonItem>()).rank = rank }
        })
        let held = try viewer.fetchAll(From<MonItem>().orderBy(.ascending(\.$rank)))
        try writer.perform(synchronous: { tx in
            for item in try tx.fetchAll(From<MonItem>()) { item.rank += 10 }
        })
        // Fetching one of them brings every held one up to the same snapshot.
        let first = try viewer.fetchOne(From<MonItem>().where(\.$rank == 10))
        #expect(first === held[0])
        #expect(held.map(\.rank) == [10, 11, 12])
        #expect(held.allSatisfy { $0.generation == first?.generation })
    }

    /// `fetchExisting` of an object the main context holds reads no row, yet
    /// looks at the store like every read: what another writer committed is
    /// merged first, and neither it nor a monitor or publisher made from it
    /// starts from values the store no longer has.
    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]))
    func fetchExistingOfAHeldObjectMergesAnotherWritersCommitsFirst(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let viewer = try makeStack(monitorSchema, kind, in: directory)
        let writer = try makeStack(monitorSchema, kind, in: directory)
        let ids = try writer.perform(synchronous: { tx in
            (0..<2).map { rank in
                let item = tx.create(Into<MonItem>())
                item.rank = rank
                return item.objectID
            }
        })
        let held = try viewer.fetchExisting(ids)
        #expect(held.map(\.rank) == [0, 1])

        try writer.perform(synchronous: { tx in tx.delete(ids[0]) })
        #expect(try viewer.fetchExisting(ids[0]) == nil)
        #expect(held[0].isDeletedObject)

        try writer.perform(synchronous: { tx in tx.edit(ids[1])!.rank = 10 })
        #expect(try viewer.fetchExisting(held[1])?.rank == 10)
        try writer.perform(synchronous: { tx in tx.edit(ids[1])!.rank = 11 })
        #expect(try viewer.fetchExisting(ids).map(\.rank) == [11])
        try writer.perform(synchronous: { tx in tx.edit(ids[1])!.rank = 12 })
        #expect(try viewer.fetchExisting(held).map(\.rank) == [12])
        try writer.perform(synchronous: { tx in tx.edit(ids[1])!.rank = 13 })
        #expect(try viewer.monitorObject(ids[1]).object?.rank == 13)
        try writer.perform(synchronous: { tx in tx.edit(ids[1])!.rank = 14 })
        #expect(try viewer.publishObject(ids[1]).snapshot?.$rank == 14)
    }

    /// This stack's bulk commit reaches the inbox while the main context's
    /// reader is in a snapshot from before it, and that snapshot is examined
    /// (as a read that saw the store change does): the commit's values are
    /// not read there, where its rows are as they were, but when it is
    /// merged. Found by the stack fuzz test with transactions queued at once.
    @Test(arguments: StoreKind.sqlite)
    func aBulkCommitDeliveredDuringAnOlderSnapshotMergesItsOwnValues(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
        let item = try #require(try stack.fetchOne(From<MonItem>()))
        let monitor = try stack.monitorList(From<MonItem>().where(\.$rank >= 3))
        let main = try stack.main()
        let reader = try main.context.readConnection()
        reader.endKeptRead()
        try reader.executePrepared(reader.dialect.beginRead)
        _ = try CommitLog.generation(on: reader)
        // Committed on another thread: delivered, not merged.
        let committed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? stack.perform(
                synchronous: { tx in try tx.updateAll(From<MonItem>(), .increment(\.$rank, by: 1)) },
                waitForAllObservers: false)
            committed.signal()
        }
        committed.wait()
        _ = try main.examineSnapshot(on: reader)
        try reader.executePrepared("COMMIT")
        main.catchUp()
        #expect(stack.mergedGeneration == 2)
        #expect(item.rank == 3)
        #expect(monitor.objectsInAllSections().map(\.rowID) == [item.rowID])
    }

    @Test
    func aReadWithNoRowStillMergesUpToItsSnapshot() throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory)
        let writer = try openStack(in: directory)
        let monitor = try viewer.monitorList(From<MonItem>())
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        #expect(try viewer.fetchAll(From<MonItem>().where(\.$rank == 99)).isEmpty)
        #expect(monitor.numberOfObjects() == 1)
        #expect(viewer.mergedGeneration == 1)
    }

    @Test
    func aReadFromAnObserverWhileMergingStartsNoNestedMerge() throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory)
        let writer = try openStack(in: directory)
        let monitor = try viewer.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let reader = ReadingObserver(viewer)
        monitor.addObserver(reader)
        for rank in 0..<3 {
            try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
        }
        _ = try viewer.fetchCount(From<MonItem>())
        // Each batch saw the list and the generation of its own change set:
        // the read in didChange merged nothing in between.
        #expect(reader.events == [
            "will 1", "did 1 count 1 read 3", "will 2", "did 2 count 2 read 3", "will 3", "did 3 count 3 read 3",
        ])
        #expect(monitor.numberOfObjects() == 3)
    }

    @Test
    func aStackWithNoObserverPollsNothingAndCatchesUpAtItsNextRead() async throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory)
        let writer = try openStack(in: directory)
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        try await Task.sleep(for: .milliseconds(60))
        #expect(viewer.mergedGeneration == 0, "no observer: nothing looks until a read")
        #expect(try viewer.fetchCount(From<MonItem>()) == 1)
        #expect(viewer.mergedGeneration == 1)
    }

    /// The pass that merges an awaited commit reads the log to fill the hole
    /// before it, sees a later commit, and stops at the awaited commit's
    /// completion. The data version then moves no more, yet the caller's read
    /// right after it resumes must merge that later commit (the CI's failure of
    /// 6 December: such a read returned with the stack a commit behind).
    @Test
    func aReadAfterAnAwaitedCommitMergesWhatItsPassLeftKnownAndUnmerged() async throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory, author: "viewer")
        viewer.pollingInterval = .seconds(3_600)  // nothing but the reads below looks
        let writer = try openStack(in: directory, author: "writer")
        let monitor = try viewer.monitorList(From<MonItem>())
        // Its reads open a snapshot, kept after the pass, that shows the later commit.
        let reader = ChurnReadingObserver(viewer, monitor)
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })  // the hole
        let (entered, go) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        let caller = Task { @MainActor in
            try await viewer.perform { tx in
                entered.signal()
                go.wait()
                tx.create(Into<MonItem>()).rank = 2
            }
            _ = try viewer.fetchCount(From<MonItem>())
            return (viewer.mergedGeneration, monitor.numberOfObjects())
        }
        while entered.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(1)) }
        // The main actor is busy while the viewer commits and the writer commits after it.
        go.signal()
        viewer.transactionQueue.sync {}
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 3 })
        let (merged, shown) = try await caller.value
        #expect(merged == 3, "the read merged the writer's later commit")
        #expect(shown == 3)
        #expect(reader.failures.isEmpty)
    }

    /// The watcher's look at the store can come between an awaited commit's
    /// merge and its caller's resumption: it learns of another stack's later
    /// commit but leaves it for after the caller's next step, as every merge
    /// a commit asks for does (Transactions, Rule 2).
    @Test
    func aPollBetweenAnAwaitedCommitAndItsCallerMergesNothingLater() async throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory, author: "viewer")
        viewer.pollingInterval = .seconds(3_600)  // the poll below is the only one
        let writer = try openStack(in: directory, author: "writer")
        let monitor = try viewer.monitorList(From<MonItem>())
        let order = PollOrder(viewer, writer)
        monitor.addObserver(order)
        try await viewer.perform { tx in tx.create(Into<MonItem>()).rank = 1 }
        order.events.append("resumed at \(viewer.mergedGeneration), listing \(monitor.numberOfObjects())")
        // The caller's next step saw its own commit only; its read merges the writer's.
        #expect(order.events == ["told of 1", "wrote 2", "polled", "resumed at 1, listing 1"])
        #expect(try viewer.fetchCount(From<MonItem>()) == 2)
        #expect(viewer.mergedGeneration == 2 && monitor.numberOfObjects() == 2)
    }

    @Test
    func aLiveMonitorHearsOfAnotherStacksCommitWithoutAnyRead() async throws {
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory)
        viewer.pollingInterval = .milliseconds(5)
        let writer = try openStack(in: directory)
        let monitor = try viewer.monitorList(From<MonItem>())
        let checker = ReplayChecker(monitor)
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        try await waitUntil { monitor.numberOfObjects() > 0 }
        #expect(monitor.numberOfObjects() == 1)
        #expect(checker.batches == 1 && checker.failures.isEmpty)
    }
}

/// Records the change sets merged while a monitor's observers are told.
@MainActor
final class ChangeSetLog: ListObserver {
    typealias ListEntityType = MonItem
    let stack: DataStack
    var changeSets: [ChangeSet] = []

    init(_ stack: DataStack) { self.stack = stack }

    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) {
        if let changeSet = stack.mergingChangeSet { changeSets.append(changeSet) }
    }
}

/// Reads the store from inside its callbacks, as observers often do.
@MainActor
final class ReadingObserver: ListObserver {
    typealias ListEntityType = MonItem
    let stack: DataStack
    var events: [String] = []

    init(_ stack: DataStack) { self.stack = stack }

    func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) {
        events.append("will \(stack.mergingChangeSet?.generation ?? 0)")
    }

    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) {
        let read = (try? stack.fetchCount(From<MonItem>())) ?? -1
        events.append("did \(stack.mergingChangeSet?.generation ?? 0) count \(monitor.numberOfObjects()) read \(read)")
    }
}

/// A list monitor made while the main context is behind the store: its read
/// merges up to its snapshot before it returns, and a read made during that
/// merge (an observer's) may see a newer commit still, which the merge goes
/// on to while the new list is not yet following.
@MainActor
@Suite("Main context: a list loaded while its read's merge runs on")
struct ListLoadedWhileMergingTests {
    @Test
    func aListMadeBehindTheStoreMissesNoCommitMergedWhileItLoads() throws {
        // Each commit below is made in this process, so the read after it
        // opens a new snapshot (no global setting: other suites run beside).
        let directory = TemporaryDirectory()
        let viewer = try openStack(in: directory)
        let writer = try openStack(in: directory)
        try writer.perform(synchronous: { tx in
            for rank in 0..<3 { tx.create(Into<MonItem>()).rank = rank }
        })
        let watched = try viewer.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let meddler = DeletingObserver(viewer: viewer, writer: writer)
        watched.addObserver(meddler)
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 10 })
        // Its read sees rank 10 and merges it; the observer then deletes rank 0
        // and reads, and the merge goes on to the deletion.
        let made = try viewer.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        #expect(meddler.deleted)
        _ = try viewer.fetchCount(From<MonItem>())
        #expect(made.objectsInAllSections().map(\.rank) == [1, 2, 10])
        #expect(watched.objectsInAllSections().map(\.rank) == [1, 2, 10])
        made.members.checkInvariants()
    }
}

/// On its first change, has another stack delete the lowest-ranked item,
/// then reads from inside the callback.
@MainActor
final class DeletingObserver: ListObserver {
    typealias ListEntityType = MonItem
    let viewer: DataStack
    let writer: DataStack
    var deleted = false

    init(viewer: DataStack, writer: DataStack) {
        self.viewer = viewer
        self.writer = writer
    }

    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) {
        guard !deleted else { return }
        deleted = true
        try? writer.perform(synchronous: { tx in
            try tx.delete(tx.fetchOne(From<MonItem>().where(\.$rank == 0)))
        })
        _ = try? viewer.fetchCount(From<MonOwner>())
    }
}

/// Told of the viewer's first commit, has the writer commit to the same
/// store and queues a poll of the viewer's store on the main actor: it runs
/// after the pass (which resumes the awaiting caller last) and before the
/// caller's resumption.
@MainActor
final class PollOrder: ListObserver {
    typealias ListEntityType = MonItem
    let viewer: DataStack, writer: DataStack
    var events: [String] = []

    init(_ viewer: DataStack, _ writer: DataStack) { (self.viewer, self.writer) = (viewer, writer) }

    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) {
        events.append("told of \(monitor.numberOfObjects())")
        guard events.count == 1 else { return }
        do {
            try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
            events.append("wrote \(try writer.currentGeneration())")
        } catch {
            events.append("\(error)")
        }
        Task { @MainActor in
            self.viewer.mainContexts.first?.poll()
            self.events.append("polled")
        }
    }
}
