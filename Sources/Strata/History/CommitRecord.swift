import Foundation

/// One commit as the store's commit log keeps it: its generation, author and
/// date, and per entity the IDs it inserted, updated (with the changed field
/// names) and deleted. Values are not logged: read the objects for those.
///
/// Every commit of every writer that goes through Strata (any stack, any
/// process) writes one record in the same SQLite transaction as its data.
/// Read them with ``DataStack/history(after:author:)``:
///
/// ```swift
/// for record in try stack.history(after: lastSeenGeneration) {
///     print(record.generation, record.author ?? "-", record.insertedIDs(entity: "Person"))
/// }
/// ```
public struct CommitRecord: CommitChanges, Sendable, Equatable {
    /// The commit generation: one more than the commit before it, store-wide.
    public let generation: UInt64
    /// The author the transaction (or its stack) gave, if any.
    public let author: String?
    /// When the commit was made, by the committing process's clock.
    public let date: Date
    /// The configuration of the store whose log holds the record (`nil`:
    /// the default configuration's store).
    public internal(set) var configuration: String? = nil
    let entities: [String: LoggedChanges]

    init(generation: UInt64, author: String?, date: Date, entities: [String: LoggedChanges]) {
        self.generation = generation
        self.author = author
        self.date = date
        self.entities = entities.filter { !$0.value.isEmpty }
    }

    public var entityNames: Set<String> { Set(entities.keys) }

    public func insertedRowIDs(entity: String) -> Set<Int64> { Set(entities[entity]?.inserted ?? []) }

    public func updatedRowIDs(entity: String) -> Set<Int64> {
        entities[entity].map { Set($0.updated.keys) } ?? []
    }

    /// The row IDs of the objects of `entity` the commit deleted; empty for
    /// an entity it cleared (``clearedEntityNames``), whose rows are not listed.
    public func deletedRowIDs(entity: String) -> Set<Int64> { Set(entities[entity]?.deleted ?? []) }

    /// The entities the commit cleared, their rows not listed.
    public var clearedEntityNames: Set<String> { Set(entities.filter { $0.value.cleared }.keys) }

    public func changedFields(of id: AnyObjectID) -> Set<String> {
        guard id.configuration == configuration else { return [] }
        return entities[id.entityName]?.updated[id.rowID] ?? []
    }
}

/// What one commit changed in one entity, as logged: row IDs only.
struct LoggedChanges: Sendable, Equatable {
    var inserted: [Int64] = []
    var updated: [Int64: Set<String>] = [:]
    var deleted: [Int64] = []
    /// Every row was deleted, by one statement; they are not listed.
    var cleared = false

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && !cleared }
}

/// What a commit changed, asked the same way of a ``ChangeSet`` (with values,
/// merged into the main context) and of a ``CommitRecord`` (from the log).
public protocol CommitChanges {
    /// The commit generation.
    var generation: UInt64 { get }
    /// The author of the commit, if it was given one.
    var author: String? { get }
    /// The configuration of the store the commit changed: `nil` for the
    /// default configuration's store. Generations count per store: a
    /// transaction that wrote to two stores made one commit in each.
    var configuration: String? { get }
    /// The names of the entities the commit changed.
    var entityNames: Set<String> { get }
    /// The row IDs of the objects of `entity` the commit inserted.
    func insertedRowIDs(entity: String) -> Set<Int64>
    /// The row IDs of the objects of `entity` the commit updated.
    func updatedRowIDs(entity: String) -> Set<Int64>
    /// The row IDs of the objects of `entity` the commit deleted.
    func deletedRowIDs(entity: String) -> Set<Int64>
    /// The entities whose every object the commit deleted at once
    /// (``DataStack/wipeAllData(waitForAllObservers:author:isolation:)``), without listing them.
    var clearedEntityNames: Set<String> { get }
    /// The names of the fields and relationships the commit changed on an updated object.
    func changedFields(of id: AnyObjectID) -> Set<String>
    /// The IDs of the objects of `entity` the commit inserted.
    func insertedIDs(entity: String) -> Set<AnyObjectID>
    /// The IDs of the objects of `entity` the commit updated.
    func updatedIDs(entity: String) -> Set<AnyObjectID>
    /// The IDs of the objects of `entity` the commit deleted.
    func deletedIDs(entity: String) -> Set<AnyObjectID>
}

extension CommitChanges {
    /// Whether the commit changed nothing.
    public var isEmpty: Bool { entityNames.isEmpty }

    /// The IDs of the objects of `entity` the commit inserted.
    ///
    /// ```swift
    /// let added = changeSet.insertedIDs(entity: "Person")
    /// ```
    public func insertedIDs(entity: String) -> Set<AnyObjectID> { ids(entity, insertedRowIDs(entity: entity)) }

    /// The IDs of the objects of `entity` the commit updated.
    public func updatedIDs(entity: String) -> Set<AnyObjectID> { ids(entity, updatedRowIDs(entity: entity)) }

    /// The IDs of the objects of `entity` the commit deleted.
    public func deletedIDs(entity: String) -> Set<AnyObjectID> { ids(entity, deletedRowIDs(entity: entity)) }

    /// The typed IDs of the entity's objects that the commit inserted.
    ///
    /// ```swift
    /// let people = changeSet.insertedIDs(Entity<Person>("Person"))
    /// ```
    public func insertedIDs<Object: ManagedObject>(_ entity: Entity<Object>) -> Set<ObjectID<Object>> {
        typed(insertedIDs(entity: entity.entityName))
    }

    /// The typed IDs of the entity's objects that the commit updated.
    public func updatedIDs<Object: ManagedObject>(_ entity: Entity<Object>) -> Set<ObjectID<Object>> {
        typed(updatedIDs(entity: entity.entityName))
    }

    /// The typed IDs of the entity's objects that the commit deleted.
    public func deletedIDs<Object: ManagedObject>(_ entity: Entity<Object>) -> Set<ObjectID<Object>> {
        typed(deletedIDs(entity: entity.entityName))
    }

    private func ids(_ entity: String, _ rowIDs: Set<Int64>) -> Set<AnyObjectID> {
        Set(rowIDs.map { AnyObjectID(entityName: entity, rowID: $0, configuration: configuration) })
    }

    /// Each ID keeps its own entity's name: a base entity's answers hold subentities' objects.
    private func typed<Object: ManagedObject>(_ ids: Set<AnyObjectID>) -> Set<ObjectID<Object>> {
        Set(ids.map { ObjectID<Object>(entityName: $0.entityName, rowID: $0.rowID, configuration: $0.configuration) })
    }
}
