/// Something on the main actor that follows merged change sets: a monitor or
/// a publisher.
@MainActor
protocol ChangeSetObserver: AnyObject {
    /// Called once per merged change set, in commit order, after the main
    /// context's objects have taken the change set's values.
    func didMerge(_ changeSet: ChangeSet)
}

/// Hands each merged change set to every live monitor, then to every live
/// publisher, in one pass on the main actor (DESIGN section 7). Holds them
/// weakly: a monitor stops when its owner lets it go.
@MainActor
final class ObservationCenter {
    enum Stage: Int, CaseIterable {
        case monitors
        case publishers
    }

    private struct Entry {
        weak var observer: (any ChangeSetObserver)?
    }

    private var entries: [Stage: [Entry]] = [:]

    func add(_ observer: any ChangeSetObserver, stage: Stage) {
        entries[stage, default: []].removeAll { $0.observer == nil }
        entries[stage, default: []].append(Entry(observer: observer))
    }

    func remove(_ observer: any ChangeSetObserver) {
        for stage in Stage.allCases {
            entries[stage]?.removeAll { $0.observer == nil || $0.observer === observer }
        }
    }

    func didMerge(_ changeSet: ChangeSet) {
        for stage in Stage.allCases {
            // A copy: an observer may add or remove others while it is notified.
            for entry in entries[stage] ?? [] {
                entry.observer?.didMerge(changeSet)
            }
        }
    }
}
