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

/// Counts a ListMonitor's `didChange` and `didRefetch` calls.
@MainActor
final class DidChangeCounter<Object: ManagedObject>: ListObserver {
    typealias ListEntityType = Object
    var changes = 0

    func listMonitorDidChange(_ monitor: ListMonitor<Object>) { changes += 1 }
    func listMonitorDidRefetch(_ monitor: ListMonitor<Object>) { changes += 1 }
}
