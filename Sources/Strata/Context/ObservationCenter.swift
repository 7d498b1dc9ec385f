/// Something on the main actor that follows merged change sets: a monitor or
/// a publisher.
@MainActor
protocol ChangeSetObserver: AnyObject {
    /// Called once per merged change set, in commit order, after the main
    /// context's objects have taken the change set's values.
    func didMerge(_ changeSet: ChangeSet)

    /// Called when the main context could not follow the store commit by
    /// commit (a write that bypassed the commit log, history purged past
    /// the stack's generation): anything may have changed. `changeSet` lists
    /// what changed among the registered objects, which already hold their
    /// new values; a list re-fetches.
    func didRefresh(_ changeSet: ChangeSet)

    /// The entities whose changed rows the observer reads values of, so that
    /// another writer's change set must carry them.
    var watchedEntityNames: Set<String> { get }

    /// The stack's main context is gone: nothing more will be merged.
    func observationDidEnd()
}

extension ChangeSetObserver {
    func observationDidEnd() {}
}

/// Hands each merged change set to every live monitor, then to every live
/// publisher, in one pass on the main actor (Docs/Architecture.md, "One pass per change set"). Holds them
/// weakly: a monitor stops when its owner lets it go. Monitors' observers are
/// called once every monitor has taken the change set (``deliver(_:)``).
@MainActor
final class ObservationCenter {
    enum Stage: Int, CaseIterable {
        case monitors
        case publishers
        /// ``DataStack/changeSets(touching:author:)`` streams, last: what
        /// they yield is already shown by every monitor and publisher.
        case streams
    }

    private struct Entry {
        weak var observer: (any ChangeSetObserver)?
    }

    private var entries: [Stage: [Entry]] = [:]
    /// Called after each `add`: the main context starts watching the store.
    var didAddObserver: (() -> Void)?
    /// The schema's inheritance trees, given to every change set observers
    /// get, so that questions about a base entity cover its subentities.
    var families: EntityFamilies?
    /// Whether the monitors are taking a change set: their callbacks wait in
    /// ``pendingCallbacks`` until every monitor has taken it.
    private var isUpdatingMonitors = false
    /// Monitors' callbacks for the change set they have all taken, in order.
    private var pendingCallbacks: [() -> Void] = []

    isolated deinit {
        endAll()
    }

    /// Tells every observer that nothing more will be merged, and forgets them.
    func endAll() {
        let ended = entries.values.joined().compactMap(\.observer)
        entries = [:]
        for observer in ended { observer.observationDidEnd() }
    }

    func add(_ observer: any ChangeSetObserver, stage: Stage) {
        entries[stage, default: []].removeAll { $0.observer == nil }
        entries[stage, default: []].append(Entry(observer: observer))
        didAddObserver?()
    }

    func remove(_ observer: any ChangeSetObserver) {
        for stage in Stage.allCases {
            entries[stage]?.removeAll { $0.observer == nil || $0.observer === observer }
        }
    }

    /// Whether any observer is alive.
    var hasObservers: Bool {
        entries.values.contains { $0.contains { $0.observer != nil } }
    }

    /// The entities any live observer reads changed values of.
    var watchedEntityNames: Set<String> {
        var names: Set<String> = []
        for stage in entries.values {
            for entry in stage { names.formUnion(entry.observer?.watchedEntityNames ?? []) }
        }
        return names
    }

    /// Calls a monitor's observers with `callbacks`: now, or while the
    /// monitors take a change set, once every monitor has taken it, so that a
    /// callback reads every monitor at the same commit (Docs/Observing.md, Rule 1).
    func deliver(_ callbacks: @escaping () -> Void) {
        if isUpdatingMonitors {
            pendingCallbacks.append(callbacks)
        } else {
            callbacks()
        }
    }

    func didMerge(_ changeSet: ChangeSet) {
        var changeSet = changeSet
        if changeSet.families == nil { changeSet.families = families }
        for stage in Stage.allCases {
            // A copy: an observer may add or remove others while it is notified.
            let stageEntries = entries[stage] ?? []
            // Every monitor takes the change set, then their observers are called.
            isUpdatingMonitors = stage == .monitors
            for entry in stageEntries { entry.observer?.didMerge(changeSet) }
            isUpdatingMonitors = false
            deliverPendingCallbacks()
        }
    }

    private func deliverPendingCallbacks() {
        guard !pendingCallbacks.isEmpty else { return }
        // Nothing is deferred while they run: a callback's own calls go at once.
        let callbacks = pendingCallbacks
        pendingCallbacks = []
        for callback in callbacks { callback() }
    }

    func didRefresh(_ changeSet: ChangeSet) {
        var changeSet = changeSet
        if changeSet.families == nil { changeSet.families = families }
        for stage in Stage.allCases {
            let stageEntries = entries[stage] ?? []
            isUpdatingMonitors = stage == .monitors
            for entry in stageEntries { entry.observer?.didRefresh(changeSet) }
            isUpdatingMonitors = false
            deliverPendingCallbacks()
        }
    }
}
