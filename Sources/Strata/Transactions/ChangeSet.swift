/// What one commit saved: its generation, its author, and per entity the
/// inserted, updated (with the changed field names) and deleted objects with
/// their new values.
///
/// Change sets are merged into the main context in commit order. They live
/// with the transactions that produce them (rather than in Observation) so
/// that layers keep pointing one way: observers read them, commits make them.
public struct ChangeSet: Sendable {
    struct Update: Sendable {
        var values: ContiguousArray<StoredValue>
        var changedFields: Set<String>
    }

    struct EntityChanges: Sendable {
        var inserted: [(rowID: Int64, values: ContiguousArray<StoredValue>)] = []
        var updated: [Int64: Update] = [:]
        var deleted: Set<Int64> = []

        var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }

    /// The commit generation: 1 for a store's first commit, growing by one per commit.
    public let generation: UInt64
    /// The author the transaction was given, if any.
    public let author: String?
    let changes: [String: EntityChanges]

    /// The names of the entities the commit changed.
    public var entityNames: Set<String> { Set(changes.keys) }

    /// Whether the commit changed nothing.
    public var isEmpty: Bool { changes.values.allSatisfy(\.isEmpty) }

    /// The IDs of the objects of `entity` the commit inserted.
    public func insertedIDs(entity: String) -> Set<AnyObjectID> {
        ids(entity, changes[entity].map { Set($0.inserted.map(\.rowID)) })
    }

    /// The IDs of the objects of `entity` the commit updated.
    public func updatedIDs(entity: String) -> Set<AnyObjectID> {
        ids(entity, changes[entity].map { Set($0.updated.keys) })
    }

    /// The IDs of the objects of `entity` the commit deleted.
    public func deletedIDs(entity: String) -> Set<AnyObjectID> {
        ids(entity, changes[entity]?.deleted)
    }

    /// The names of the fields and relationships the commit changed on an updated object.
    public func changedFields(of id: AnyObjectID) -> Set<String> {
        changes[id.entityName]?.updated[id.rowID]?.changedFields ?? []
    }

    /// The typed IDs of the entity's objects that the commit inserted.
    public func insertedIDs<Object: ManagedObject>(_ entity: Entity<Object>) -> Set<ObjectID<Object>> {
        Set(insertedIDs(entity: entity.entityName).map { $0.typed(as: Object.self) })
    }

    /// The typed IDs of the entity's objects that the commit updated.
    public func updatedIDs<Object: ManagedObject>(_ entity: Entity<Object>) -> Set<ObjectID<Object>> {
        Set(updatedIDs(entity: entity.entityName).map { $0.typed(as: Object.self) })
    }

    /// The typed IDs of the entity's objects that the commit deleted.
    public func deletedIDs<Object: ManagedObject>(_ entity: Entity<Object>) -> Set<ObjectID<Object>> {
        Set(deletedIDs(entity: entity.entityName).map { $0.typed(as: Object.self) })
    }

    private func ids(_ entity: String, _ rowIDs: Set<Int64>?) -> Set<AnyObjectID> {
        Set((rowIDs ?? []).map { AnyObjectID(entityName: entity, rowID: $0) })
    }
}
