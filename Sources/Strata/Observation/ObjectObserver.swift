/// Follows one object through an ``ObjectMonitor``: its updates and its deletion.
///
/// Every method has an empty default, so implement only what you need.
///
/// ```swift
/// final class PersonView: ObjectObserver {
///     func objectMonitor(
///         _ monitor: ObjectMonitor<Person>, didUpdateObject object: Person,
///         changedPersistentKeys: Set<String>
///     ) {
///         if changedPersistentKeys.contains("name") { title = object.name }
///     }
/// }
/// monitor.addObserver(view)
/// ```
@MainActor
public protocol ObjectObserver: AnyObject {
    /// The monitored entity.
    associatedtype ObjectEntityType: ManagedObject

    /// Right before ``objectMonitor(_:didUpdateObject:changedPersistentKeys:)``.
    ///
    /// The main context merges a commit before any observer runs, so the
    /// object already holds its new values here; read the old ones from an
    /// ``ObjectSnapshot`` you kept if you need them.
    func objectMonitor(
        _ monitor: ObjectMonitor<ObjectEntityType>, willUpdateObject object: ObjectEntityType)

    /// After a commit changed the object (or, when the monitor was asked to,
    /// an object related to it). `changedPersistentKeys` holds the names of the
    /// stored fields and relationships that changed, and the name of each
    /// observed relationship whose membership or members changed.
    func objectMonitor(
        _ monitor: ObjectMonitor<ObjectEntityType>, didUpdateObject object: ObjectEntityType,
        changedPersistentKeys: Set<String>)

    /// After a commit deleted the object; sent once. ``ObjectMonitor/object``
    /// is `nil` from then on.
    func objectMonitor(
        _ monitor: ObjectMonitor<ObjectEntityType>, didDeleteObject object: ObjectEntityType)
}

extension ObjectObserver {
    public func objectMonitor(
        _ monitor: ObjectMonitor<ObjectEntityType>, willUpdateObject object: ObjectEntityType
    ) {}

    public func objectMonitor(
        _ monitor: ObjectMonitor<ObjectEntityType>, didUpdateObject object: ObjectEntityType,
        changedPersistentKeys: Set<String>
    ) {}

    public func objectMonitor(
        _ monitor: ObjectMonitor<ObjectEntityType>, didDeleteObject object: ObjectEntityType
    ) {}
}

/// A weakly held object observer, its protocol methods captured as closures.
@MainActor
struct ObjectObserverBox<Object: ManagedObject> {
    weak var observer: AnyObject?
    let willUpdate: (ObjectMonitor<Object>, Object) -> Void
    let didUpdate: (ObjectMonitor<Object>, Object, Set<String>) -> Void
    let didDelete: (ObjectMonitor<Object>, Object) -> Void

    init<Observer: ObjectObserver>(_ observer: Observer) where Observer.ObjectEntityType == Object {
        self.observer = observer
        willUpdate = { [weak observer] in observer?.objectMonitor($0, willUpdateObject: $1) }
        didUpdate = { [weak observer] in
            observer?.objectMonitor($0, didUpdateObject: $1, changedPersistentKeys: $2)
        }
        didDelete = { [weak observer] in observer?.objectMonitor($0, didDeleteObject: $1) }
    }
}
