import Foundation
@testable import Strata
import Testing

/// What a stack shows of the store whose file `replaceStore` or `resetStore`
/// swaps under it: a plain and a sectioned list monitor, an object monitor
/// of an item that will survive and one of an item that will not, a list
/// and an object publisher of each, and the items fetched before.
@MainActor
private struct SwapScene {
    let stack: DataStack
    let held: [MonItem]
    let plain: ListMonitor<MonItem>
    let plainChecker: ReplayChecker<MonItem>
    let sectioned: ListMonitor<MonItem>
    let sectionedChecker: ReplayChecker<MonItem>
    let kept: ObjectMonitor<MonItem>
    let keptEvents = ObjectEvents()
    let doomed: ObjectMonitor<MonItem>
    let doomedEvents = ObjectEvents()
    let plainPublisher: ListPublisher<MonItem>
    let sectionedPublisher: ListPublisher<MonItem>
    let keptPublisher: ObjectPublisher<MonItem>
    let doomedPublisher: ObjectPublisher<MonItem>
    /// The ranks a field observation of the kept item heard.
    let keptRanks = Ranks()
    let keptRankObservation: FieldObservation

    final class Ranks {
        var values: [Int] = []
    }

    static let plainQuery = From<MonItem>().orderBy(.ascending(\.$rank), .ascending(\.$label))
    static let sectionedQuery = From<MonItem>().sectionBy(\.$group) { "g\($0)" }
        .orderBy(.descending(\.$rank), .ascending(\.$label))

    /// Watches the stack's items; the first (by row) is `kept`, the last `doomed`.
    init(_ stack: DataStack) throws {
        self.stack = stack
        held = try stack.fetchAll(From<MonItem>()).sorted { $0.rowID < $1.rowID }
        plain = try stack.monitorList(Self.plainQuery)
        plainChecker = ReplayChecker(plain)
        sectioned = try stack.monitorList(Self.sectionedQuery)
        sectionedChecker = ReplayChecker(sectioned)
        kept = try stack.monitorObject(held.first!)
        kept.addObserver(keptEvents)
        doomed = try stack.monitorObject(held.last!)
        doomed.addObserver(doomedEvents)
        plainPublisher = try stack.publishList(Self.plainQuery)
        sectionedPublisher = try stack.publishList(Self.sectionedQuery)
        keptPublisher = try stack.publishObject(held.first!)
        doomedPublisher = try stack.publishObject(held.last!)
        keptRankObservation = held.first!.$rank.observe { [keptRanks] _, new in keptRanks.values.append(new) }
    }

    /// Checks that everything shows the rows the store holds now, read by a
    /// connection of its own. Rows `created` since the swap are other
    /// objects than the held ones of the same IDs, which stay deleted.
    func expectCurrent(in storage: any StorageInterface, created: Set<Int64> = [], _ comment: Comment) throws {
        var rows = try itemRows(in: storage)
        let all = rows
        for rowID in created { rows[rowID] = nil }
        for item in held {
            if let row = rows[item.rowID] {
                #expect(!item.isDeletedObject && item.values == row, "\(comment): held item \(item.rowID)")
            } else {
                #expect(item.isDeletedObject, "\(comment): held item \(item.rowID) is gone")
            }
        }
        for (monitor, checker) in [(plain, plainChecker), (sectioned, sectionedChecker)] {
            let fresh = try stack.fetchAll(From<MonItem>().orderBy(monitor.orderForFetch))
            #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), comment)
            #expect(fresh.count == all.count, comment)
            #expect(checker.failures.isEmpty, "\(comment): \(checker.failures)")
            monitor.members.checkInvariants()
        }
        let groups = Set(try stack.fetchAll(From<MonItem>()).map { "g\($0.group)" })
        #expect(sectioned.sectionedRowIDs().sections.map(\.identifier) == groups.sorted(), comment)
        #expect(plainPublisher.snapshot.itemIDs.map(\.rowID) == plain.objectsInAllSections().map(\.rowID), comment)
        #expect(
            sectionedPublisher.snapshot.itemIDs.map(\.rowID) == sectioned.objectsInAllSections().map(\.rowID),
            comment)
        #expect(sectionedPublisher.snapshot.numberOfSections == sectioned.numberOfSections(), comment)
        for (monitor, events, publisher) in [(kept, keptEvents, keptPublisher), (doomed, doomedEvents, doomedPublisher)] {
            let row = rows[monitor.objectID.rowID]
            #expect((row == nil) == events.deleted, "\(comment): object monitor \(monitor.objectID)")
            #expect((row == nil) == (monitor.object == nil), "\(comment): object monitor \(monitor.objectID)")
            #expect((row == nil) == (publisher.snapshot == nil), "\(comment): object publisher \(monitor.objectID)")
            if let row {
                #expect(monitor.object?.values == row, comment)
                #expect(publisher.snapshot?.$rank == monitor.object?.rank, comment)
            }
        }
    }
}

/// `replaceStore` and `resetStore` swap the store's file under the stack:
/// what watched the store before goes on with the new file's contents, as
/// after a refresh, and follows every later commit.
@MainActor
@Suite("Stack: monitors, publishers and objects across a replaced or reset store")
struct StoreSwapTests {
    /// `count` items of random ranks, groups and labels, committed one by
    /// one in a transaction on `stack` (rows 1...count of a new store).
    private func fill(_ stack: DataStack, count: Int, rankBase: Int, random: inout SplitMix64) throws {
        var random = random
        try stack.perform(synchronous: { tx in
            for _ in 0..<count {
                let item = tx.create(Into<MonItem>())
                item.rank = rankBase + Int.random(in: 0..<50, using: &random)
                item.group = Int.random(in: 0..<3, using: &random)
                item.label = "l\(Int.random(in: 0..<1_000, using: &random))"
            }
        })
    }

    /// A commit after the swap reaches every monitor and publisher as a
    /// change, not a refetch.
    private func commitAfterTheSwap(
        _ scene: SwapScene, in storage: any StorageInterface, random: inout SplitMix64
    ) throws {
        let refetches = (scene.plainChecker.refetches, scene.sectionedChecker.refetches)
        let batches = (scene.plainChecker.batches, scene.sectionedChecker.batches)
        let keptUpdates = scene.keptEvents.updates
        let rowsAtTheSwap = Set(try itemRows(in: storage).keys)
        let rank = Int.random(in: 200..<300, using: &random)
        let keptID = scene.kept.object == nil ? nil : scene.kept.objectID
        try scene.stack.perform(synchronous: { tx in
            let item = tx.create(Into<MonItem>())
            item.rank = rank
            item.group = 7
            if let keptID { tx.edit(keptID)!.rank = rank + 1 }
        })
        let created = Set(try itemRows(in: storage).keys).subtracting(rowsAtTheSwap)
        #expect(created.count == 1)
        try scene.expectCurrent(in: storage, created: created, "after a commit on the new store")
        #expect(scene.plain.objectsInAllSections().contains { $0.rank == rank })
        #expect(scene.sectioned.sectionedRowIDs().sections.last?.identifier == "g7")
        #expect(scene.plainChecker.batches == batches.0 + 1 && scene.sectionedChecker.batches == batches.1 + 1)
        #expect(scene.plainChecker.refetches == refetches.0 && scene.sectionedChecker.refetches == refetches.1)
        if scene.kept.object != nil {
            #expect(scene.keptEvents.updates == keptUpdates + 1)
            #expect(scene.keptPublisher.snapshot?.$rank == rank + 1)
            #expect(scene.keptRanks.values.last == rank + 1)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aReplacedStoreShowsTheNewFileAndFollowsLaterCommits(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try openStack(in: directory)
        try fill(stack, count: Int.random(in: 6..<12, using: &random), rankBase: 0, random: &random)
        // The source holds fewer rows: the stack's first rows exist in it (other values), its last do not.
        let source = directory.file("source.sqlite")
        let sourceStack = DataStack(monitorSchema)
        try sourceStack.addStorageAndWait(SQLiteStore(fileURL: source))
        try fill(sourceStack, count: Int.random(in: 2..<5, using: &random), rankBase: 100, random: &random)
        let scene = try SwapScene(stack)
        let before = stack.mergedGeneration
        let changeSets = try stack.changeSets(touching: ["MonItem"])

        try stack.replaceStore(withContentsOf: source)

        let storage = SQLiteStore(fileURL: storeURL(in: directory))
        try scene.expectCurrent(in: storage, "seed \(seed), after the replace")
        #expect(scene.plainChecker.refetches == 1 && scene.sectionedChecker.refetches == 1, "a refresh re-fetches")
        #expect(scene.keptEvents.updates == 1 && !scene.keptEvents.deleted)
        #expect(scene.held.first!.rank >= 100, "the held object took the new file's values")
        #expect(scene.keptRanks.values == [scene.held.first!.rank], "its field observation fired")
        #expect(scene.doomedEvents.deleted && scene.held.last!.isDeletedObject)
        #expect(stack.mergedGeneration > before, "generations only grow")
        #expect(try stack.historyHorizon() > before, "the history before the swap reads as purged")
        try commitAfterTheSwap(scene, in: storage, random: &random)
        // A change-set stream yields the swap as a refresh, then goes on.
        var streamed = changeSets.makeAsyncIterator()
        let swap = await streamed.next()
        let commit = await streamed.next()
        #expect(swap?.isRefresh == true && swap.map { $0.generation > before } == true)
        #expect(commit?.isRefresh == false && commit.map { $0.generation == stack.mergedGeneration } == true)
    }

    /// On a server, where the stack cannot delete files, the store's tables
    /// are dropped and created again (it kept its rows before).
    @Test(arguments: StoreKind.allCases)
    func aResetStoreShowsNothingAndFollowsLaterCommits(kind: StoreKind) throws {
        var random = SplitMix64(seed: 7)
        let directory = TemporaryDirectory()
        let storage = try makeStorage(kind, in: directory)
        let stack = DataStack(monitorSchema)
        try stack.addStorageAndWait(storage)
        try fill(stack, count: 8, rankBase: 0, random: &random)
        let scene = try SwapScene(stack)
        let before = stack.mergedGeneration

        try stack.resetStore()

        try scene.expectCurrent(in: storage, "\(kind), after the reset")
        #expect(scene.plain.numberOfObjects() == 0 && scene.sectioned.numberOfSections() == 0)
        #expect(scene.plainChecker.refetches == 1 && scene.sectionedChecker.refetches == 1)
        #expect(scene.keptEvents.deleted && scene.doomedEvents.deleted)
        #expect(scene.held.allSatisfy { $0.isDeletedObject })
        #expect(stack.mergedGeneration > before, "generations only grow")
        #expect(try stack.history().isEmpty, "the history starts over")
        #expect(try stack.historyHorizon() > before, "the history before the swap reads as purged")
        // Row IDs start over too: the new row 1 is another object than the held one.
        try commitAfterTheSwap(scene, in: storage, random: &random)
        #expect(scene.held.first!.isDeletedObject && scene.kept.object == nil)
        #expect(try stack.history().count == 1)
    }
}
