import Observation

/// One object published as ``ObjectSnapshot`` values: to closures, as an
/// `AsyncSequence`, and as an `@Observable` property SwiftUI-style code reads.
///
/// ```swift
/// let publisher = try stack.publishObject(person)
/// publisher.addObserver(self, notifyInitial: true) { publisher in
///     render(publisher.snapshot)
/// }
/// for await snapshot in publisher.snapshots { print(snapshot?.$name ?? "deleted") }
/// ```
///
/// The publisher takes each merged commit that changes the object after every
/// monitor has (Docs/Architecture.md, "One pass per change set"), publishing
/// a new snapshot built from the change set's values: once per commit that
/// changes any of its fields or relationships (as an ``ObjectMonitor``
/// reports them), also when the snapshot comes out equal to the last; a
/// commit that does not touch the object publishes nothing. To-many
/// relationships, whose links are not in the object's row, are read from the
/// store as the commit is merged, one query each (none for an entity without
/// any): when later commits are already in the store, they may show those
/// commits a little early, and the merge of each publishes again. When a
/// commit deletes the object, ``snapshot`` becomes `nil`, closure observers
/// are called a last time, and the ``snapshots`` sequences yield `nil` and
/// finish.
///
/// Let the publisher go to stop it: its ``snapshots`` sequences then finish.
/// They finish too when `removeStorage()` takes its store out of the stack,
/// since it publishes nothing more.
@Observable
@MainActor
@dynamicMemberLookup
public final class ObjectPublisher<Object: ManagedObject>: ChangeSetObserver {
    /// The object's values as of the last commit merged into the main context,
    /// or `nil` once it is deleted. Observable: reading it inside
    /// `withObservationTracking` (or a SwiftUI body) tracks it, and every
    /// publish counts as a change, also one whose snapshot equals the last.
    ///
    /// ```swift
    /// Text(publisher.snapshot?.$name ?? "")
    /// ```
    public var snapshot: ObjectSnapshot<Object>? {
        access(keyPath: \.snapshot)
        return published
    }

    /// Kept apart from ``snapshot`` because `@Observable` skips setting a value
    /// equal to the current one, and a commit that changes the object may
    /// give an equal snapshot (its to-many relationships read ahead by an
    /// earlier merge) that observers must still hear of.
    @ObservationIgnored private var published: ObjectSnapshot<Object>?

    /// The published object's ID.
    ///
    /// ```swift
    /// try await stack.perform { tx in tx.edit(publisher.objectID)?.age += 1 }
    /// ```
    nonisolated public let objectID: ObjectID<Object>

    @ObservationIgnored private let main: MainContext
    @ObservationIgnored private let entity: EntityDescription
    /// The generation of the last change set the snapshot reflects.
    @ObservationIgnored private var generation: UInt64
    @ObservationIgnored private let audience = PublisherAudience<ObjectPublisher<Object>, ObjectSnapshot<Object>?>()

    init(main: MainContext, id: ObjectID<Object>) throws {
        self.main = main
        let object = try main.context.fetchExisting(id)
        // The object's own entity: a base type's publisher may watch a subentity's object.
        self.entity = object?.entity ?? main.context.schema.entity(reading: id)
            ?? main.context.schema.entity(of: Object.self)
        self.objectID = id
        self.published = object.map(ObjectSnapshot.init)
        self.generation = max(main.generation, object?.generation ?? 0)
        if object != nil { main.observation.add(self, stage: .publishers) }
    }

    isolated deinit {
        main.observation.remove(self)
    }

    /// Whether a commit deleted the object (or it no longer existed when the
    /// publisher was made).
    ///
    /// ```swift
    /// if publisher.isObjectDeleted { dismiss() }
    /// ```
    public var isObjectDeleted: Bool { snapshot == nil }

    /// A stored field's value in the current ``snapshot``, `nil` once the
    /// object is deleted, as in CoreStore. Observable, as `snapshot` is.
    ///
    /// ```swift
    /// Text(publisher.$name ?? "deleted")
    /// ```
    public subscript<Value>(dynamicMember keyPath: KeyPath<Object, Field.Stored<Value>>) -> Value? {
        snapshot?[dynamicMember: keyPath]
    }

    /// A coded field's value in the current ``snapshot``, `nil` once the
    /// object is deleted.
    public subscript<Value>(dynamicMember keyPath: KeyPath<Object, Field.Coded<Value>>) -> Value? {
        snapshot?[dynamicMember: keyPath]
    }

    /// A to-one relationship in the current ``snapshot``: a publisher of the
    /// related object, `nil` when there is none or once this object is
    /// deleted (CoreStore's is a double optional; Strata's is flattened).
    /// Reads as ``ObjectSnapshot``'s `$owner` does.
    ///
    /// ```swift
    /// Text(petPublisher.$owner?.$name ?? "no owner")
    /// ```
    public subscript<Target>(dynamicMember keyPath: KeyPath<Object, Field.Relationship<Target?>>)
        -> ObjectPublisher<Target>?
    {
        snapshot?[dynamicMember: keyPath]
    }

    /// A to-many relationship in the current ``snapshot``, as publishers of
    /// the related objects; `nil` once the object is deleted.
    ///
    /// ```swift
    /// Text("\(publisher.$pets?.count ?? 0) pets")
    /// ```
    public subscript<Target>(
        dynamicMember keyPath: KeyPath<Object, Field.Relationship<Set<Target>>>
    ) -> Set<ObjectPublisher<Target>>?
    {
        snapshot?[dynamicMember: keyPath]
    }

    /// An ordered to-many relationship in the current ``snapshot``, as
    /// publishers of the related objects in order; `nil` once the object is deleted.
    ///
    /// ```swift
    /// let firstSong = publisher.$songs?.first?.$title
    /// ```
    public subscript<Target>(dynamicMember keyPath: KeyPath<Object, Field.Relationship<[Target]>>)
        -> [ObjectPublisher<Target>]?
    {
        snapshot?[dynamicMember: keyPath]
    }

    /// The main context's instance of the object, or `nil` once it is deleted.
    /// May read the object from the store when the main context does not hold it.
    ///
    /// ```swift
    /// if let person = publisher.object { print(person.pets.count) }
    /// ```
    public var object: Object? {
        guard snapshot != nil else { return nil }
        return try? main.context.fetchExisting(objectID)
    }

    // MARK: Closure observers

    /// Calls `closure` after every published change (including the deletion),
    /// for as long as `owner` lives (held weakly) or until ``removeObserver(_:)``.
    /// Adding the same owner again replaces its closure. The publisher keeps
    /// `closure`: one that captures `owner` strongly keeps it alive, and a
    /// publisher it holds, for good; capture it weakly, or read the publisher passed in.
    ///
    /// ```swift
    /// publisher.addObserver(self, notifyInitial: true) { [weak self] publisher in
    ///     self?.render(publisher.snapshot)
    /// }
    /// ```
    ///
    /// - Parameter notifyInitial: also call `closure` now, with the current snapshot.
    public func addObserver(
        _ owner: AnyObject, notifyInitial: Bool = false,
        _ closure: @escaping @MainActor (ObjectPublisher<Object>) -> Void
    ) {
        audience.add(owner, closure)
        if notifyInitial { closure(self) }
    }

    /// Stops calling the closure `owner` added.
    ///
    /// ```swift
    /// publisher.removeObserver(self)
    /// ```
    public func removeObserver(_ owner: AnyObject) {
        audience.remove(owner)
    }

    // MARK: AsyncSequence

    /// The current snapshot, then one per published change; after the object
    /// is deleted it yields `nil` and finishes, and it finishes when the
    /// publisher is released, or when `removeStorage()` takes its store out
    /// of the stack (it publishes nothing more). Each access starts a new
    /// sequence; snapshots are buffered, so a slow reader misses none.
    ///
    /// ```swift
    /// for await snapshot in publisher.snapshots {
    ///     guard let snapshot else { break }   // deleted
    ///     print(snapshot.$name)
    /// }
    /// ```
    public var snapshots: AsyncStream<ObjectSnapshot<Object>?> {
        audience.stream(startingWith: snapshot, finished: snapshot == nil)
    }

    // MARK: Publishing

    func didMerge(_ changeSet: ChangeSet) {
        guard changeSet.generation > generation, published != nil else { return }
        generation = changeSet.generation
        guard let changes = changeSet.changes[entity.name] else { return }
        // A wipe lists only the rows the main context holds, and a publisher
        // holds values, not the object: every row of a cleared entity went.
        if changes.cleared || changes.deleted.contains(objectID.rowID) {
            main.observation.remove(self)
            publish(nil)
            audience.finishStreams()
        } else if let update = changes.updated[objectID.rowID] {
            // Published even when the snapshot comes out equal: the change set
            // lists the object only when something of it changed. Relationships
            // whose links are not in the row are read here, one query each; an
            // entity without any costs no query.
            publish(
                ObjectSnapshot(
                    entity: entity, rowID: objectID.rowID, values: update.values,
                    linked: main.context.linkedIDs(ofRow: objectID.rowID, entity),
                    origin: SnapshotOrigin(main.context.store)))
        }
    }

    var watchedEntityNames: Set<String> { [entity.name] }

    /// The store was removed from the stack: nothing more is published.
    func observationDidEnd() {
        audience.end()
    }

    /// Anything may have changed: the object is read again.
    func didRefresh(_ changeSet: ChangeSet) {
        guard published != nil else { return }
        generation = max(generation, changeSet.generation)
        let object: Object?
        do {
            object = try main.context.fetchExisting(objectID)
        } catch {
            StrataLog.warning(.observation, "An ObjectPublisher of \(objectID) could not read its object: \(error)")
            return
        }
        guard let object else {
            main.observation.remove(self)
            publish(nil)
            audience.finishStreams()
            return
        }
        let next = ObjectSnapshot(object)
        if next != published { publish(next) }
    }

    private func publish(_ next: ObjectSnapshot<Object>?) {
        withMutation(keyPath: \.snapshot) { published = next }
        audience.publish(self, next)
    }
}

/// Two publishers are equal when they publish the same object (the same
/// ``ObjectPublisher/objectID``) of the same stack, as in CoreStore, whose
/// publishers compare by object ID and context.
///
/// Strata makes a new publisher on each ``DataStack/publishObject(_:)``
/// (CoreStore shares one per object): two equal publishers may be two
/// instances, each with its own observers and ``ObjectPublisher/snapshots``,
/// always publishing equal snapshots. Equality by object keeps a
/// `Set<ObjectPublisher<Pet>>` read from ``ObjectSnapshot`` (`snapshot.$pets`)
/// comparable with another one read later; compare with `===` to ask for the
/// same instance.
///
/// ```swift
/// let first = try stack.publishObject(person)
/// let second = try stack.publishObject(person.objectID)
/// first == second    // true: the same object of the same stack
/// first === second   // false: two publishers
/// ```
extension ObjectPublisher: Hashable {
    /// Whether `lhs` and `rhs` publish the same object of the same stack.
    public nonisolated static func == (lhs: ObjectPublisher, rhs: ObjectPublisher) -> Bool {
        lhs.objectID == rhs.objectID && lhs.main === rhs.main
    }

    /// Hashes the object ID and the stack, consistently with `==`.
    public nonisolated func hash(into hasher: inout Hasher) {
        hasher.combine(objectID)
        hasher.combine(ObjectIdentifier(main))
    }
}
