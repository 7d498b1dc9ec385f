import Foundation
import Testing

@testable import Strata

@Suite("ListDiff: batch updates between sectioned lists")
struct ListDiffTests {
    private typealias List = SectionedList<Int>

    private static func path(_ section: Int, _ item: Int) -> IndexPath {
        IndexPath(item: item, section: section)
    }

    // MARK: Exact examples

    @Test func unchangedListGivesNoChanges() {
        let list = List([("a", [1, 2, 3]), ("b", []), ("c", [4])])
        #expect(ListDiff.changes(from: list, to: list, updated: []).isEmpty)
        #expect(ListDiff.changes(from: List(), to: List(), updated: [1]).isEmpty)
    }

    @Test func updatesOfUnmovedObjectsAreReportedAtOldIndexPaths() {
        let list = List([("a", [1, 2, 3]), ("c", [4])])
        let changes = ListDiff.changes(from: list, to: list, updated: [3, 4, 99])
        #expect(changes == ListChanges(updates: [Self.path(0, 2), Self.path(1, 0)]))
    }

    @Test func pureAppendGivesOnlyInserts() {
        let old = List([("a", [1, 2]), ("b", [3])])
        let new = List([("a", [1, 2, 5]), ("b", [3, 6, 7]), ("c", [8])])
        let changes = ListDiff.changes(from: old, to: new, updated: [])
        #expect(
            changes
                == ListChanges(
                    insertedSections: [2],
                    inserts: [Self.path(0, 2), Self.path(1, 1), Self.path(1, 2), Self.path(2, 0)]))
    }

    @Test func objectMovingAcrossSectionsIsOneMoveEvenWhenUpdated() {
        let old = List([("a", [1, 2, 3]), ("b", [4, 5])])
        let new = List([("a", [1, 3]), ("b", [4, 2, 5])])
        let changes = ListDiff.changes(from: old, to: new, updated: [2, 3])
        #expect(
            changes
                == ListChanges(
                    moves: [.init(from: Self.path(0, 1), to: Self.path(1, 1))],
                    updates: [Self.path(0, 2)]))
    }

    @Test func deleteThatEmptiesSectionReportsObjectAndSectionDeletes() {
        let old = List([("a", [1]), ("b", [2, 3])])
        let new = List([("b", [2, 3])])
        let changes = ListDiff.changes(from: old, to: new, updated: [1, 2])
        #expect(
            changes
                == ListChanges(
                    deletedSections: [0], deletes: [Self.path(0, 0)], updates: [Self.path(1, 0)]))
    }

    @Test func insertIntoNewSectionReportsSectionAndObjectInserts() {
        let old = List([("b", [2])])
        let new = List([("a", [1]), ("b", [2])])
        let changes = ListDiff.changes(from: old, to: new, updated: [])
        #expect(changes == ListChanges(insertedSections: [0], inserts: [Self.path(0, 0)]))
    }

    @Test func objectMovingToTheEndIsTheOnlyMove() {
        let old = List([("a", [1, 2, 3, 4])])
        let new = List([("a", [2, 3, 4, 1])])
        let changes = ListDiff.changes(from: old, to: new, updated: [1, 2])
        #expect(
            changes
                == ListChanges(
                    moves: [.init(from: Self.path(0, 0), to: Self.path(0, 3))],
                    updates: [Self.path(0, 1)]))
    }

    @Test func swappedSectionsAreDeletedAndInsertedWithTheirObjectsMoved() throws {
        let old = List([("a", [1]), ("b", [2])])
        let new = List([("b", [2]), ("a", [1])])
        let changes = ListDiff.changes(from: old, to: new, updated: [])
        #expect(changes.deletedSections.count == 1 && changes.insertedSections.count == 1)
        #expect(changes.moves.count == 1 && changes.deletes.isEmpty && changes.inserts.isEmpty)
        #expect(try changes.apply(to: old, insertingFrom: new) == new)
    }

    // MARK: Applying batches

    @Test func applyRejectsInconsistentBatches() throws {
        let old = List([("a", [1, 2]), ("b", [3])])
        let new = List([("a", [1]), ("b", [3])])
        let rejected: [ListChanges] = [
            ListChanges(deletes: [Self.path(0, 5)]),
            ListChanges(deletes: [Self.path(0, 1), Self.path(0, 1)]),
            ListChanges(deletedSections: [1]),
            ListChanges(deletes: [Self.path(0, 1)], updates: [Self.path(0, 1)]),
            ListChanges(insertedSections: [0]),
            ListChanges(deletes: [Self.path(0, 1)], inserts: [Self.path(0, 3)]),
            ListChanges(moves: [.init(from: Self.path(0, 1), to: Self.path(0, 9))]),
            ListChanges(deletes: [IndexPath(indexes: [0])]),
        ]
        for changes in rejected {
            #expect(throws: ListChanges.Inconsistency.self, "\(changes)") {
                try changes.apply(to: old, insertingFrom: new)
            }
        }
        // A consistent batch applies; a wrong but consistent one gives a list other than `new`.
        let right = ListChanges(deletes: [Self.path(0, 1)])
        #expect(try right.apply(to: old, insertingFrom: new) == new)
        let replacing = ListChanges(deletes: [Self.path(0, 1)], inserts: [Self.path(0, 0)])
        let replaced = List([("a", [1, 1]), ("b", [3])])
        #expect(try replacing.apply(to: old, insertingFrom: new) == replaced)
        #expect(try ListChanges().apply(to: old, insertingFrom: new) != new)
    }

    @Test(arguments: [1, 2, 3, 0xDEAD_BEEF] as [UInt64])
    func longestIncreasingSubsequenceIsIncreasingAndLongest(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<300 {
            let values = Array(0..<Int.random(in: 0...30, using: &random)).shuffled(using: &random)
            let members = ListDiff.longestIncreasingSubsequence(values)
            let chosen = values.indices.filter { members[$0] }.map { values[$0] }
            #expect(zip(chosen, chosen.dropFirst()).allSatisfy { $0 < $1 }, "seed \(seed)")
            #expect(chosen.count == Self.referenceLISLength(values), "seed \(seed): \(values)")
        }
    }

    // MARK: Random workloads

    @Test(arguments: [1, 2, 3, 0x5EED_1157] as [UInt64])
    func randomDiffsApplyExactlyAndReportEachObjectOnce(seed: UInt64) {
        check(seed: seed, cases: 1_000)
    }

    @Test func randomDiffsWithAFreshSeed() {
        check(seed: SplitMix64.random().seed, cases: 1_000)  // STRATA_TEST_SEED runs it again
    }

    /// With half the updated IDs marked as moved (their sort key changed),
    /// each that survives is a move, and no more moves than that requires.
    @Test(arguments: [4, 5, 0x0A11_0DD5] as [UInt64])
    func randomDiffsReportEveryMovedSurvivorAsAMove(seed: UInt64) {
        check(seed: seed, cases: 1_000, forcingMoves: true)
    }

    private func check(seed: UInt64, cases: Int, forcingMoves: Bool = false) {
        var random = SplitMix64(seed: seed)
        for index in 0..<cases {
            var workload = RandomWorkload(&random)
            if forcingMoves {
                workload.moved = workload.updated.filter { _ in random.next() % 2 == 0 }
            }
            let changes = ListDiff.changes(
                from: workload.old, to: workload.new, updated: workload.updated, moved: workload.moved)
            if let problem = Self.problem(with: changes, for: workload) {
                Issue.record(
                    """
                    ListDiff seed \(seed), case \(index): \(problem)
                    old: \(workload.old)
                    new: \(workload.new)
                    updated: \(workload.updated.sorted())
                    moved: \(workload.moved.sorted())
                    \(changes)
                    """)
                return
            }
        }
    }

    /// The first way `changes` fails to describe `workload`, or nil.
    private static func problem(
        with changes: ListChanges, for workload: RandomWorkload
    ) -> String? {
        let (old, new) = (workload.old, workload.new)
        do {
            let applied = try changes.apply(to: old, insertingFrom: new)
            if applied != new { return "applying the changes gives \(applied)" }
        } catch {
            return "the changes do not apply: \(error)"
        }

        let deleted = changes.deletes.map { old[$0] }
        let inserted = changes.inserts.map { new[$0] }
        let moved = changes.moves.map { old[$0.from] }
        let updated = changes.updates.map { old[$0] }
        let categories = [deleted, inserted, moved, updated]
        if Set(categories.joined()).count != categories.map(\.count).reduce(0, +) {
            return "an ID is reported twice"
        }
        if let move = changes.moves.first(where: { old[$0.from] != new[$0.to] }) {
            return "move \(move.from)->\(move.to) does not carry one object"
        }
        let oldIDs = Set(old.sections.flatMap(\.items))
        let newIDs = Set(new.sections.flatMap(\.items))
        if Set(deleted) != oldIDs.subtracting(newIDs) { return "deletes are not the gone IDs" }
        if Set(inserted) != newIDs.subtracting(oldIDs) { return "inserts are not the new IDs" }
        if !workload.moved.intersection(oldIDs).intersection(newIDs).isSubset(of: moved) {
            return "a moved survivor is not reported as a move"
        }
        let updatedSurvivors = workload.updated.intersection(oldIDs).intersection(newIDs)
        if Set(updated) != updatedSurvivors.subtracting(moved) {
            return "updates are not the updated, unmoved survivors"
        }
        let sorted =
            changes.deletedSections == changes.deletedSections.sorted()
            && changes.insertedSections == changes.insertedSections.sorted()
            && changes.deletes == changes.deletes.sorted()
            && changes.inserts == changes.inserts.sorted()
            && changes.updates == changes.updates.sorted()
            && changes.moves.map(\.to) == changes.moves.map(\.to).sorted()
        if !sorted { return "a category is not in ascending order" }
        return workload.reordersSections ? nil : minimalityProblem(with: changes, for: workload)
    }

    /// When shared sections keep their order: sections deleted and inserted exactly by
    /// identifier, and no more moves than a longest-increasing-subsequence bound requires.
    private static func minimalityProblem(
        with changes: ListChanges, for workload: RandomWorkload
    ) -> String? {
        let (old, new) = (workload.old, workload.new)
        let oldNames = old.sections.map(\.identifier)
        let newNames = new.sections.map(\.identifier)
        if changes.deletedSections != oldNames.indices.filter({ !newNames.contains(oldNames[$0]) })
        {
            return "deleted sections are not the gone identifiers"
        }
        if changes.insertedSections != newNames.indices.filter({ !oldNames.contains(newNames[$0]) })
        {
            return "inserted sections are not the new identifiers"
        }
        var oldPaths: [Int: (section: String, item: Int)] = [:]
        for section in old.sections {
            for (item, id) in section.items.enumerated() {
                oldPaths[id] = (section.identifier, item)
            }
        }
        var expectedMoves = 0
        for section in new.sections {
            var stayedOldItems: [Int] = []
            for id in section.items {
                guard let oldPath = oldPaths[id] else { continue }
                if oldPath.section == section.identifier, !workload.moved.contains(id) {
                    stayedOldItems.append(oldPath.item)
                } else {
                    expectedMoves += 1
                }
            }
            expectedMoves += stayedOldItems.count - referenceLISLength(stayedOldItems)
        }
        if changes.moves.count != expectedMoves {
            return "\(changes.moves.count) moves where \(expectedMoves) suffice"
        }
        return nil
    }

    /// The length of a longest strictly increasing subsequence, by the quadratic recurrence.
    private static func referenceLISLength(_ values: [Int]) -> Int {
        var lengths = [Int](repeating: 1, count: values.count)
        for end in values.indices {
            for start in 0..<end where values[start] < values[end] {
                lengths[end] = max(lengths[end], lengths[start] + 1)
            }
        }
        return lengths.max() ?? 0
    }
}

/// A random old list and a new list derived from it by section deletes and inserts, object
/// deletes, inserts and moves within and across sections, and now and then a section reorder.
private struct RandomWorkload {
    var old: SectionedList<Int>
    var new: SectionedList<Int>
    var updated: Set<Int>
    /// Updated IDs whose sort key changed: each must be a move if it survives.
    var moved: Set<Int> = []
    var reordersSections = false

    init(_ random: inout SplitMix64) {
        let names = (0..<12).map { "s\($0)" }
        var unused = names.shuffled(using: &random)
        var nextID = 0
        func freshIDs(_ count: Int) -> [Int] {
            defer { nextID += count }
            return Array(nextID..<nextID + count)
        }

        let sectionCount = Int.random(in: 0...6, using: &random)
        let oldNames = unused.prefix(sectionCount).sorted()
        unused.removeFirst(sectionCount)
        var sections = oldNames.map { ($0, freshIDs(Int.random(in: 0...10, using: &random))) }
        old = SectionedList(sections)

        // Objects taken out to be put back elsewhere: moves.
        var floating: [Int] = []
        sections.removeAll { section in
            guard Int.random(in: 0..<7, using: &random) == 0 else { return false }
            floating += section.1.filter { _ in Bool.random(using: &random) }
            return true
        }
        for index in sections.indices {
            sections[index].1.removeAll { _ in Int.random(in: 0..<7, using: &random) == 0 }
            for _ in 0..<Int.random(in: 0...2, using: &random) where !sections[index].1.isEmpty {
                let item = Int.random(in: sections[index].1.indices, using: &random)
                floating.append(sections[index].1.remove(at: item))
            }
        }
        for _ in 0..<Int.random(in: 0...2, using: &random) where !unused.isEmpty {
            let at = Int.random(in: 0...sections.count, using: &random)
            sections.insert((unused.removeLast(), []), at: at)
        }
        if sections.count > 1, Int.random(in: 0..<10, using: &random) == 0 {
            sections.shuffle(using: &random)
            reordersSections = true
        }
        floating += freshIDs(Int.random(in: 0...6, using: &random))
        for id in floating.shuffled(using: &random) where !sections.isEmpty {
            let section = Int.random(in: sections.indices, using: &random)
            let item = Int.random(in: 0...sections[section].1.count, using: &random)
            sections[section].1.insert(id, at: item)
        }
        new = SectionedList(sections)
        updated = Set((0..<nextID).filter { _ in Int.random(in: 0..<3, using: &random) == 0 })
    }
}
