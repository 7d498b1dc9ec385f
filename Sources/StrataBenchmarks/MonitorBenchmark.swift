import Foundation
import Strata

/// The monitor benchmark's model: a list filtered by `active`, sorted by
/// `rank` and sectioned by `group`.
final class MonitorBench: ManagedObject {
    @Field.Stored("group") var group: Int = 0
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("active") var active: Bool = false
}

let monitorBenchSchema = Schema("V1", entities: [Entity<MonitorBench>("MonitorBench")])

/// Commit latency for a ListMonitor over `count` objects (filtered, sorted,
/// sectioned) for 1, 100 and 10,000 changed objects, beside re-fetching the
/// same list and diffing it in the same run.
///
/// Timed for the monitor: from a committed change set to the monitor's
/// `didChange` (the main context's merge and the monitor's update), best
/// and median of the runs. Timed for the baseline: fetching the list again and computing
/// its changes with the same diff Strata's re-fetch fallback uses.
@MainActor
enum MonitorBenchmark {
    static func run(count: Int, in workspace: Workspace, settings: RunnerSettings) throws {
        let stack = DataStack(monitorBenchSchema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: workspace.newFile("monitor")))
        var random = SeededGenerator(seed: 2026)
        try stack.perform(synchronous: { tx in
            for _ in 0..<count {
                let object = tx.create(Into<MonitorBench>())
                object.group = Int(random.next() % 100)
                object.rank = Int(random.next() % 1_000_000)
                object.active = random.next() % 2 == 0
            }
        })
        let query = From<MonitorBench>().where(\.$active == true).orderBy(.ascending(\.$rank))
        let monitor = try stack.monitorList(query.sectionBy(\.$group))
        let timer = ChangeTimer()
        monitor.addObserver(timer)
        // Changed objects are drawn from the list, so every commit changes what it shows.
        let ids = try stack.fetchObjectIDs(query)
        let clock = ContinuousClock()

        for changes in [1, 100, 10_000] where changes <= count {
            var times: [Double] = []
            var baselines: [Double] = []
            for index in 0..<(settings.warmUps + settings.runs) {
                let chosen = (0..<changes).map { _ in ids[Int(random.next() % UInt64(ids.count))] }
                let ranks = chosen.map { _ in Int(random.next() % 1_000_000) }
                let before = sectioned(monitor)
                // Commit off the main actor, so that nothing merges until we say so.
                let pairs = Array(zip(chosen, ranks))
                let committed = DispatchSemaphore(value: 0)
                let failure = FailureBox()
                DispatchQueue.global().async { @Sendable in
                    do {
                        try stack.perform(synchronous: { tx in
                            for (id, rank) in pairs {
                                guard let object = tx.edit(id) else { continue }
                                object.rank = rank
                                if rank % 7 == 0 { object.active.toggle() }
                            }
                        }, waitForAllObservers: false)
                    } catch {
                        failure.set(error)
                    }
                    committed.signal()
                }
                committed.wait()
                if let error = failure.error { throw error }
                timer.lastChange = nil
                let start = clock.now
                stack.mergePendingChangeSets()
                guard let changed = timer.lastChange else {
                    throw BenchmarkError(description: "the monitor did not report the commit")
                }
                let elapsed = changed - start

                let refetchStart = clock.now
                // The monitor's order: by section, then by the query's order (orderBy
                // appends, so the sectioned order is written out whole).
                let fresh = try stack.fetchAll(
                    From<MonitorBench>().where(\.$active == true).orderBy(.ascending(\.$group), .ascending(\.$rank)))
                let after = sectioned(fresh)
                let diff = ListDiff.changes(from: before, to: after, updated: Set(chosen.map(\.rowID)))
                let refetchElapsed = clock.now - refetchStart
                guard after == sectioned(monitor) else {
                    throw BenchmarkError(description: "the monitor and a fresh fetch disagree")
                }
                _ = diff.isEmpty
                if index >= settings.warmUps {
                    times.append(elapsed.milliseconds)
                    baselines.append(refetchElapsed.milliseconds)
                }
            }
            let name = "ListMonitor \(changes) changed".padding(toLength: 32, withPad: " ", startingAt: 0)
            let (best, baseline) = (times.min()!, baselines.min()!)
            let speedUp = baseline / max(best, 0.000_001)
            print("\(name)monitor \(format(best, 3)) ms (med \(format(median(times), 3)))   "
                  + "re-fetch+diff \(format(baseline, 1)) ms (med \(format(median(baselines), 1)))   "
                  + "\(format(speedUp, 0))x")
        }
    }

    private static func sectioned(_ monitor: ListMonitor<MonitorBench>) -> SectionedList<Int64> {
        sectioned(monitor.objectsInAllSections())
    }

    private static func sectioned(_ objects: [MonitorBench]) -> SectionedList<Int64> {
        var sections: [SectionedList<Int64>.Section] = []
        for object in objects {
            let name = "\(object.group)"
            if sections.last?.identifier == name {
                sections[sections.count - 1].items.append(object.objectID.rowID)
            } else {
                sections.append(.init(identifier: name, items: [object.objectID.rowID]))
            }
        }
        return SectionedList(sections: sections)
    }
}

/// Notes when the monitor finished applying a change set.
@MainActor
final class ChangeTimer: ListObserver {
    typealias ListEntityType = MonitorBench
    var lastChange: ContinuousClock.Instant?

    func listMonitorDidChange(_ monitor: ListMonitor<MonitorBench>) {
        lastChange = ContinuousClock.now
    }
}

/// Carries an error out of the committing thread.
///
/// `@unchecked Sendable`: written once before the semaphore is signalled, read after waiting on it.
final class FailureBox: @unchecked Sendable {
    private(set) var error: (any Error)?
    func set(_ error: any Error) { self.error = error }
}
