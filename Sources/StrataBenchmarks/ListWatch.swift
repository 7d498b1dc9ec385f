import Foundation
import Strata

/// A ListMonitor kept alive during a bulk benchmark's round, and a check that
/// the round's commit reached it.
@MainActor
final class ListWatch<Object: ManagedObject> {
    let stack: DataStack
    let query: From<Object>
    let monitor: ListMonitor<Object>
    let observer = DidChangeCounter<Object>()

    init(_ stack: DataStack, _ query: From<Object>) throws {
        self.stack = stack
        self.query = query
        monitor = try stack.monitorList(query)
        monitor.addObserver(observer)
    }

    /// Runs `commit` (a transaction) off the main actor, as
    /// ``MonitorBenchmark`` does, so that nothing merges until it returns;
    /// then merges on the main actor and adds to `log` the time from the
    /// end of the commit to the monitor's `didChange` (the main context's
    /// merge and the monitor's update). Returns what `commit` returned.
    func commitThenMerge(
        log: DurationLog, _ commit: @escaping @Sendable () throws -> Int
    ) throws -> Int {
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        DispatchQueue.global().async { @Sendable in
            outcome.set(Result { try commit() })
            done.signal()
        }
        done.wait()
        let result = try outcome.result!.get()
        let committed = ContinuousClock.now
        observer.lastChange = nil
        stack.mergePendingChangeSets()
        guard let changed = observer.lastChange else {
            throw BenchmarkError(description: "the monitor did not report the commit")
        }
        log.durations.append(changed - committed)
        return result
    }

    /// Throws unless the monitor reported one change (or refetch) and shows
    /// as many objects as a fetch returns.
    func check() throws {
        let fetched = try stack.fetchCount(query)
        guard observer.changes == 1, monitor.numberOfObjects() == fetched else {
            throw BenchmarkError(description: "the monitor reported \(observer.changes) changes "
                + "and shows \(monitor.numberOfObjects()) objects of \(fetched)")
        }
    }
}

/// Counts a ListMonitor's `didChange` and `didRefetch` calls, and notes when the last came.
@MainActor
final class DidChangeCounter<Object: ManagedObject>: ListObserver {
    typealias ListEntityType = Object
    var changes = 0
    var lastChange: ContinuousClock.Instant?

    func listMonitorDidChange(_ monitor: ListMonitor<Object>) { noteChange() }
    func listMonitorDidRefetch(_ monitor: ListMonitor<Object>) { noteChange() }

    private func noteChange() {
        changes += 1
        lastChange = ContinuousClock.now
    }
}

/// Durations a variant measured inside its runs, one a round.
@MainActor
final class DurationLog {
    var durations: [Duration] = []

    /// `commit→didChange 12.3 ms`: the median of the rounds after the warm-ups.
    func note(_ label: String, warmUps: Int) -> String {
        let kept = durations.dropFirst(warmUps).map(\.milliseconds).sorted()
        guard !kept.isEmpty else { return "" }
        return "\(label) \(format(kept[kept.count / 2], 1)) ms"
    }
}

/// Carries a transaction's outcome out of the committing thread.
///
/// `@unchecked Sendable`: written once before the semaphore is signalled, read after waiting on it.
final class OutcomeBox: @unchecked Sendable {
    private(set) var result: Result<Int, any Error>?
    func set(_ result: Result<Int, any Error>) { self.result = result }
}
