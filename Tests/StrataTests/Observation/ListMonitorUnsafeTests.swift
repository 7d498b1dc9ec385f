import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("ListMonitor: commits of an unsafe transaction reach monitors like any other")
struct ListMonitorUnsafeTests {
    /// One unsafe transaction lives through the whole run: it edits, commits
    /// (on the main actor, so each commit merges before `commitAndWait`
    /// returns), rolls back now and then, and goes on with the objects it
    /// keeps across commits. After every commit each monitor's batch,
    /// applied to its old list, gives the new one, which a fresh fetch returns.
    @Test(arguments: [UInt64(31), 32, 33, 34])
    func randomUnsafeCommitsAndRollbacksKeepEveryMonitorExact(seed: UInt64) throws {
        try checkMonitors(seed: seed, undoing: false)
    }

    /// The same with undo and redo (Transactions.md, Rule 12a) between the
    /// changes: an undone creation is deleted by the next commit, an undone
    /// deletion inserted again with its old ID, groups reach back past
    /// commits, and the monitors follow all of it exactly.
    @Test(arguments: [UInt64(41), 42, 43, 44])
    func randomUndosAndRedosAcrossCommitsKeepEveryMonitorExact(seed: UInt64) throws {
        try checkMonitors(seed: seed, undoing: true)
    }

    private func checkMonitors(seed: UInt64, undoing: Bool) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try MonWorkload.seed(stack, count: 40, random: &random)
        let shapes = (0..<4).map { _ in ListMonitorModelTests.randomShape(&random) }
        var monitors: [(ListMonitor<MonItem>, RecordingObserver, ListMonitorModelTests.Shape)] = []
        for shape in shapes {
            var query = From<MonItem>().orderBy(OrderBy(shape.order))
            if let predicate = shape.predicate { query = query.where(predicate) }
            let monitor = try ListMonitor(
                main: stack.main(), query: query, sectionBy: shape.sectioning.sectionBy, chunkCapacity: 3)
            let observer = RecordingObserver()
            monitor.addObserver(observer)
            monitors.append((monitor, observer, shape))
        }
        let tx = try stack.beginUnsafe(supportsUndo: undoing)
        for commit in 0..<60 {
            let before = monitors.map { $0.0.sectionedRowIDs() }
            for (_, observer, _) in monitors { observer.reset() }
            try MonWorkload.change(tx, &random, operations: Int(random.next() % 4) + 1, cascades: commit % 15 == 0)
            for _ in 0..<(undoing ? random.next() % 4 : 0) {
                switch random.next() % 3 {
                case 0: tx.undo()
                case 1: tx.redo()
                default: try tx.flush()
                }
            }
            if random.next() % 5 == 0 {
                // Thrown away: the next commit starts again from the last one.
                tx.rollback()
                try MonWorkload.change(tx, &random, operations: 1, cascades: false)
            }
            try tx.commitAndWait()
            for (index, (monitor, observer, shape)) in monitors.enumerated() {
                let context = "seed \(seed), commit \(commit), monitor \(index): \(shape)"
                monitor.members.checkInvariants()
                let now = monitor.sectionedRowIDs()
                if !observer.refetched {
                    let applied = try? observer.changes.apply(to: before[index], insertingFrom: now)
                    #expect(
                        applied.map(ListMonitorModelTests.plain) == ListMonitorModelTests.plain(now),
                        "\(context)\nevents: \(observer.events)")
                }
                var query = From<MonItem>().orderBy(monitor.orderForFetch)
                if let predicate = shape.predicate { query = query.where(predicate) }
                let fresh = try stack.fetchAll(query)
                #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), "\(context)")
            }
        }
    }
}
