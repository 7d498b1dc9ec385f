/// One object of the main context, kept current after every commit, with
/// observers told what changed.
///
/// ```swift
/// let monitor = try stack.monitorObject(person)
/// monitor.addObserver(self)   // an ObjectObserver
/// print(monitor.object?.name ?? "deleted")
/// ```
///
/// After each merged commit the monitor reads the saved change set: if the
/// commit updated the object, observers get `willUpdateObject` then
/// `didUpdateObject` with the names of the changed fields and relationships;
/// if it deleted the object, they get `didDeleteObject` once and ``object``
/// becomes `nil`. A commit that changes nothing the monitor follows sends
/// nothing. The monitor ignores commits its object's values already reflect.
///
/// Asked to (`stack.monitorObject(person, observingRelated: \.$pets)`), it
/// also follows the objects related through the given relationships: when a
/// commit updates one of them, or changes which objects the relationship
/// holds, observers get `didUpdateObject` with the relationship's name (here
/// `"pets"`) among the changed keys. See ``observedRelationships``.
@MainActor
public final class ObjectMonitor<Object: ManagedObject>: ChangeSetObserver {
    /// Data of your own kept with the monitor, as CoreStore's
    /// `monitor.userInfo`; see ``UserInfo``.
    ///
    /// ```swift
    /// monitor.userInfo[ScreenKeys.lastShown] = Date()
    /// ```
    public nonisolated let userInfo = UserInfo()
    let main: MainContext
    let entity: EntityDescription
    /// The monitored object's ID.
    ///
    /// ```swift
    /// let id = monitor.objectID   // Sendable: hand it to a transaction
    /// ```
    nonisolated public let objectID: ObjectID<Object>
    /// The main context's instance of the object, or `nil` once it is deleted.
    ///
    /// ```swift
    /// label.text = monitor.object?.name
    /// ```
    public private(set) var object: Object?
    /// The generation of the last change set the monitor reflects.
    var generation: UInt64
    var related: [RelatedMembers]
    private var observers: [ObjectObserverBox<Object>] = []

    /// Monitors the object with `id`; `relationships` names those whose
    /// related objects are followed too.
    init(main: MainContext, id: ObjectID<Object>, relationships: [String]) throws {
        self.main = main
        let object = try main.context.fetchExisting(id)
        // The object's own entity: a base type's monitor may watch a subentity's object.
        self.entity = object?.entity ?? main.context.schema.entity(reading: id)
            ?? main.context.schema.entity(of: Object.self)
        self.objectID = id
        self.object = object
        self.generation = max(main.generation, object?.generation ?? 0)
        self.related = []
        if let object {
            related = try relationships.map {
                try RelatedMembers(of: object, relationship: $0, in: main.context)
            }
            main.observation.add(self, stage: .monitors)
        }
    }

    isolated deinit {
        main.observation.remove(self)
    }

    /// Whether a commit deleted the object (or it no longer existed when the
    /// monitor was made).
    ///
    /// ```swift
    /// if monitor.isObjectDeleted { dismiss() }
    /// ```
    public var isObjectDeleted: Bool { object == nil }

    /// The names of the relationships whose related objects the monitor
    /// follows, as given to `stack.monitorObject(_:observingRelated:)`.
    ///
    /// ```swift
    /// let monitor = try stack.monitorObject(person, observingRelated: \.$pets)
    /// monitor.observedRelationships   // ["pets"]
    /// ```
    public var observedRelationships: [String] { related.map(\.relationship.name) }

    // MARK: Observers

    /// Adds an observer; held weakly. Adding the same observer again replaces it.
    ///
    /// ```swift
    /// monitor.addObserver(self)
    /// ```
    public func addObserver<Observer: ObjectObserver>(_ observer: Observer)
    where Observer.ObjectEntityType == Object {
        observers.removeAll { $0.observer == nil || $0.observer === observer }
        observers.append(ObjectObserverBox(observer))
    }

    /// Removes an observer.
    ///
    /// ```swift
    /// monitor.removeObserver(self)
    /// ```
    public func removeObserver(_ observer: AnyObject) {
        observers.removeAll { $0.observer == nil || $0.observer === observer }
        observerRemovals &+= 1
    }

    /// How many times ``removeObserver(_:)`` ran, so that a callback that
    /// removes an observer stops the rest of its notification to it.
    private var observerRemovals = 0

    /// Whether `box`'s observer is still added, for a notification that began
    /// when ``observerRemovals`` was `removals`.
    private func isObserving(_ box: ObjectObserverBox<Object>, removals: Int) -> Bool {
        removals == observerRemovals || observers.contains { $0.observer != nil && $0.observer === box.observer }
    }

    private var liveObservers: [ObjectObserverBox<Object>] {
        observers.removeAll { $0.observer == nil }
        return observers
    }

    // MARK: Following change sets

    var watchedEntityNames: Set<String> { Set([entity.name] + related.flatMap(\.target.familyNames)) }

    func didMerge(_ changeSet: ChangeSet) {
        guard changeSet.generation > generation, let object else { return }
        generation = changeSet.generation
        let mine = changeSet.changes[entity.name]
        if mine?.deleted.contains(objectID.rowID) == true {
            objectWasDeleted(object)
            return
        }
        let update = mine?.updated[objectID.rowID]
        var keys = mine?.changedFields(ofRow: objectID.rowID) ?? []
        for index in related.indices
        where related[index].follow(changeSet, owner: object, ownerUpdate: update, in: main.context)
        {
            keys.insert(related[index].relationship.name)
        }
        notifyUpdate(of: object, keys: keys)
    }

    /// Anything may have changed: the object already holds its values read
    /// again (or is gone), and the related objects are read again.
    func didRefresh(_ changeSet: ChangeSet) {
        guard let object else { return }
        generation = max(generation, changeSet.generation)
        let mine = changeSet.changes[entity.name]
        if mine?.deleted.contains(objectID.rowID) == true || object.isDeleted {
            objectWasDeleted(object)
            return
        }
        var keys = mine?.changedFields(ofRow: objectID.rowID) ?? []
        for index in related.indices {
            let before = related[index]
            do {
                related[index] = try RelatedMembers(of: object, relationship: before.relationship.name, in: main.context)
            } catch {
                StrataLog.warning(.observation, "An ObjectMonitor could not read \(before.relationship.name): \(error)")
                continue
            }
            let members = related[index].rowIDs
            if members != before.rowIDs
                || !members.isDisjoint(with: changeSet.updatedRowIDs(entity: before.target.name))
            {
                keys.insert(before.relationship.name)
            }
        }
        notifyUpdate(of: object, keys: keys)
    }

    // During a merge, observers are called once every monitor has taken the
    // change set (``ObservationCenter/deliver(_:)``).

    private func objectWasDeleted(_ object: Object) {
        self.object = nil
        related = []
        let center = main.observation
        center.remove(self)
        center.deliver { [weak self] in
            guard let self else { return }
            let removals = observerRemovals
            for box in liveObservers where isObserving(box, removals: removals) {
                box.didDelete(self, object)
            }
        }
    }

    private func notifyUpdate(of object: Object, keys: Set<String>) {
        guard !keys.isEmpty else { return }
        main.observation.deliver { [weak self] in
            guard let self else { return }
            let boxes = liveObservers
            let removals = observerRemovals
            for box in boxes where isObserving(box, removals: removals) {
                box.willUpdate(self, object)
            }
            for box in boxes where isObserving(box, removals: removals) {
                box.didUpdate(self, object, keys)
            }
        }
    }
}

/// Two monitors are equal when they are the same one, as CoreStore's are: a
/// monitor made again for the same query is another monitor.
extension ObjectMonitor: Hashable {
    /// Whether `lhs` and `rhs` are the same instance.
    public nonisolated static func == (lhs: ObjectMonitor, rhs: ObjectMonitor) -> Bool { lhs === rhs }

    /// Hashes the instance's identity, consistently with `==`.
    public nonisolated func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
