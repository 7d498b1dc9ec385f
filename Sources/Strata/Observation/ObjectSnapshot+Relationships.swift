/// Relationships of a snapshot, read as CoreStore's are: publishers of the
/// related objects, as they were when the snapshot was made.
///
/// A snapshot is `Sendable`, so it holds the related objects' IDs, not
/// publishers: a to-one relationship, a foreign key in the object's row,
/// costs nothing more (the row ID is among the values), and each to-many
/// relationship costs one query when the snapshot is made. The IDs become
/// publishers when read, on the main actor, through the stack the snapshot
/// came from.
extension ObjectSnapshot {
    /// The object a to-one relationship pointed to when the snapshot was
    /// made, as a publisher of the stack the snapshot came from; `nil` when
    /// it pointed to none, or when that stack or store is gone.
    ///
    /// The publisher follows the related object from now on: its `snapshot`
    /// is the object as it is now, `nil` if it was deleted since. Reading
    /// makes a new publisher (equal, as publishers compare, to any other of
    /// the same object); it may read the object from the store, and a read
    /// that fails is logged and gives `nil`, as reading the relationship of
    /// an object does.
    ///
    /// ```swift
    /// let snapshot = ObjectSnapshot(pet)
    /// if let owner = snapshot.$owner { print(owner.$name ?? "deleted since") }
    /// ```
    @MainActor
    public subscript<Target>(dynamicMember keyPath: KeyPath<Object, Field.Relationship<Target?>>)
        -> ObjectPublisher<Target>?
    {
        publishers(of: FieldPath.name(keyPath), as: Target.self).first
    }

    /// The objects a to-many relationship held when the snapshot was made,
    /// as publishers of the stack the snapshot came from; empty when that
    /// stack or store is gone. Read as `$owner` is (see there): a failed
    /// read is logged and gives an empty set.
    ///
    /// ```swift
    /// let snapshot = ObjectSnapshot(person)
    /// let names = snapshot.$pets.compactMap { $0.$name }
    /// ```
    @MainActor
    public subscript<Target>(dynamicMember keyPath: KeyPath<Object, Field.Relationship<Set<Target>>>)
        -> Set<ObjectPublisher<Target>>
    {
        Set(publishers(of: FieldPath.name(keyPath), as: Target.self))
    }

    /// The objects an ordered to-many relationship held when the snapshot
    /// was made, in order, as publishers of the stack the snapshot came
    /// from; empty when that stack or store is gone. Read as `$owner` is
    /// (see there): a failed read is logged and gives an empty array.
    ///
    /// ```swift
    /// let snapshot = ObjectSnapshot(playlist)
    /// let first = snapshot.$songs.first?.$title
    /// ```
    @MainActor
    public subscript<Target>(dynamicMember keyPath: KeyPath<Object, Field.Relationship<[Target]>>)
        -> [ObjectPublisher<Target>]
    {
        publishers(of: FieldPath.name(keyPath), as: Target.self)
    }

    /// Publishers of the objects the relationship `name` held, in order.
    @MainActor
    private func publishers<Target: ManagedObject>(of name: String, as type: Target.Type)
        -> [ObjectPublisher<Target>]
    {
        guard let relationship = entity.relationships[name] else {
            misuse("Strata: \(entity.name) has no relationship named '\(name)'.")
        }
        guard let store = origin.store, let main = MainContext.following(store) else { return [] }
        let context = main.context
        let target = context.targetEntity(of: relationship)
        do {
            let ids: [AnyObjectID]
            // The related objects, read in one query and held while their
            // publishers are made, so that each publisher finds its object.
            let held: [ManagedObject]
            switch relationship.storage {
            case .foreignKey(let slot):
                guard case .integer(let rowID) = values[slot] else { return [] }
                held = try context.existingObject(target, rowID: rowID).map { [$0] } ?? []
                // Of its concrete entity when it still exists; of the target's once deleted.
                let entity = held.first?.entity ?? target
                ids = [
                    AnyObjectID(
                        entityName: entity.name, rowID: rowID, configuration: entity.configuration)
                ]
            case .inverseForeignKey, .linkTable:
                ids = linked[name] ?? []
                held = try context.existingObjects(target, rowIDs: ids.map(\.rowID))
            }
            return try withExtendedLifetime(held) {
                try ids.map { try ObjectPublisher(main: main, id: $0.typed(as: Target.self)) }
            }
        } catch {
            StrataLog.warning(
                .observation,
                "reading \(entity.name).\(name) of a snapshot of \(objectID) failed: "
                    + "\(context.translated(error))")
            return []
        }
    }
}

/// The store a snapshot was read from, held weakly: a snapshot kept after
/// its stack is gone holds no connection open.
struct SnapshotOrigin: Sendable {
    weak var store: StoreRuntime?

    init(_ store: StoreRuntime?) { self.store = store }
}

extension ObjectContext {
    /// The IDs of the objects related to the row `rowID` of `entity` through
    /// each to-many relationship (whose links are not in the row), by
    /// relationship name: one query per such relationship, reading only
    /// IDs, none for an entity without any. A failed read is logged and gives no IDs for that
    /// relationship.
    func linkedIDs(ofRow rowID: Int64, _ entity: EntityDescription) -> [String: [AnyObjectID]] {
        var linked: [String: [AnyObjectID]] = [:]
        for relationship in entity.relationships.values {
            if case .foreignKey = relationship.storage { continue }
            do {
                linked[relationship.name] = try linkedObjectIDs(ofRow: rowID, relationship)
            } catch {
                StrataLog.warning(
                    .objects,
                    "reading \(relationship.entity).\(relationship.name) of row \(rowID) for a snapshot failed: "
                        + "\(translated(error))")
            }
        }
        return linked
    }
}
