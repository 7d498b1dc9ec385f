import Foundation

/// Follows a ``ListMonitor``'s changes as a whole.
///
/// Every method has an empty default, so implement only what you need.
@MainActor
public protocol ListObserver: AnyObject {
    /// The monitored entity.
    associatedtype ListEntityType: ManagedObject
    /// Before a batch of changes (first).
    func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>)
    /// After a batch of changes (last): the monitor shows the new list.
    func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>)
    /// Before the monitor replaces its whole list (``ListMonitor/refetch(_:)``, or a refresh after an outside write).
    func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>)
    /// After the new list is in place; no per-object events are sent for a refetch.
    func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>)
}

extension ListObserver {
    public func listMonitorWillChange(_ monitor: ListMonitor<ListEntityType>) {}
    public func listMonitorDidChange(_ monitor: ListMonitor<ListEntityType>) {}
    public func listMonitorWillRefetch(_ monitor: ListMonitor<ListEntityType>) {}
    public func listMonitorDidRefetch(_ monitor: ListMonitor<ListEntityType>) {}
}

/// Follows a ``ListMonitor``'s changes object by object, in the batch-update
/// convention of UIKit and NSFetchedResultsController: deletes at old index
/// paths, inserts at new ones, moves from old to new, updates at old ones.
@MainActor
public protocol ListObjectObserver: ListObserver {
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType,
        toIndexPath indexPath: IndexPath)
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType,
        fromIndexPath indexPath: IndexPath)
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType,
        atIndexPath indexPath: IndexPath)
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType,
        fromIndexPath: IndexPath, toIndexPath: IndexPath)
}

extension ListObjectObserver {
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didInsertObject object: ListEntityType,
        toIndexPath indexPath: IndexPath) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didDeleteObject object: ListEntityType,
        fromIndexPath indexPath: IndexPath) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didUpdateObject object: ListEntityType,
        atIndexPath indexPath: IndexPath) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didMoveObject object: ListEntityType,
        fromIndexPath: IndexPath, toIndexPath: IndexPath) {}
}

/// Follows section inserts and deletes too.
@MainActor
public protocol ListSectionObserver: ListObjectObserver {
    /// A section was inserted at `sectionIndex` of the new list;
    /// `sectionInfo` holds its objects as they are now.
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didInsertSection sectionInfo: ListSectionInfo<ListEntityType>,
        toSectionIndex sectionIndex: Int)
    /// The section at `sectionIndex` of the old list was deleted;
    /// `sectionInfo` holds the objects it had before this change (each
    /// deleted, or moved to another section, in the same batch; deleted
    /// ones report `isDeletedObject`).
    func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didDeleteSection sectionInfo: ListSectionInfo<ListEntityType>,
        fromSectionIndex sectionIndex: Int)
}

extension ListSectionObserver {
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didInsertSection sectionInfo: ListSectionInfo<ListEntityType>,
        toSectionIndex sectionIndex: Int) {}
    public func listMonitor(
        _ monitor: ListMonitor<ListEntityType>, didDeleteSection sectionInfo: ListSectionInfo<ListEntityType>,
        fromSectionIndex sectionIndex: Int) {}
}

/// A weakly held observer, its protocol methods captured as closures.
@MainActor
struct ListObserverBox<Object: ManagedObject> {
    weak var observer: AnyObject?
    var willChange: (ListMonitor<Object>) -> Void = { _ in }
    var didChange: (ListMonitor<Object>) -> Void = { _ in }
    var willRefetch: (ListMonitor<Object>) -> Void = { _ in }
    var didRefetch: (ListMonitor<Object>) -> Void = { _ in }
    var didInsertObject: ((ListMonitor<Object>, Object, IndexPath) -> Void)?
    var didDeleteObject: ((ListMonitor<Object>, Object, IndexPath) -> Void)?
    var didUpdateObject: ((ListMonitor<Object>, Object, IndexPath) -> Void)?
    var didMoveObject: ((ListMonitor<Object>, Object, IndexPath, IndexPath) -> Void)?
    var didInsertSection: ((ListMonitor<Object>, ListSectionInfo<Object>, Int) -> Void)?
    var didDeleteSection: ((ListMonitor<Object>, ListSectionInfo<Object>, Int) -> Void)?

    init<Observer: ListObserver>(_ observer: Observer) where Observer.ListEntityType == Object {
        self.observer = observer
        captureChanges(of: observer)
    }

    init<Observer: ListObjectObserver>(_ observer: Observer) where Observer.ListEntityType == Object {
        self.observer = observer
        captureChanges(of: observer)
        captureObjects(of: observer)
    }

    init<Observer: ListSectionObserver>(_ observer: Observer) where Observer.ListEntityType == Object {
        self.observer = observer
        captureChanges(of: observer)
        captureObjects(of: observer)
        didInsertSection = { [weak observer] in observer?.listMonitor($0, didInsertSection: $1, toSectionIndex: $2) }
        didDeleteSection = { [weak observer] in observer?.listMonitor($0, didDeleteSection: $1, fromSectionIndex: $2) }
    }

    private mutating func captureChanges<Observer: ListObserver>(of observer: Observer)
    where Observer.ListEntityType == Object {
        willChange = { [weak observer] in observer?.listMonitorWillChange($0) }
        didChange = { [weak observer] in observer?.listMonitorDidChange($0) }
        willRefetch = { [weak observer] in observer?.listMonitorWillRefetch($0) }
        didRefetch = { [weak observer] in observer?.listMonitorDidRefetch($0) }
    }

    private mutating func captureObjects<Observer: ListObjectObserver>(of observer: Observer)
    where Observer.ListEntityType == Object {
        didInsertObject = { [weak observer] in observer?.listMonitor($0, didInsertObject: $1, toIndexPath: $2) }
        didDeleteObject = { [weak observer] in observer?.listMonitor($0, didDeleteObject: $1, fromIndexPath: $2) }
        didUpdateObject = { [weak observer] in observer?.listMonitor($0, didUpdateObject: $1, atIndexPath: $2) }
        didMoveObject = { [weak observer] in
            observer?.listMonitor($0, didMoveObject: $1, fromIndexPath: $2, toIndexPath: $3)
        }
    }
}
