import Foundation

/// What one commit saved: its generation, its author, and per entity the
/// inserted, updated (with the changed field names) and deleted objects with
/// their new values.
///
/// Change sets are merged into the main context in generation order, whoever
/// made them: a transaction of this stack (``isLocal``), or another writer of
/// the store (another stack, another process), read from the store's commit
/// log. They live with the transactions that produce them (rather than in
/// Observation) so that layers keep pointing one way: observers read them,
/// commits make them.
///
/// ```swift
/// func listMonitorDidChange(_ monitor: ListMonitor<Person>) {
///     if let changeSet = stack.mergingChangeSet, !changeSet.isLocal {
///         print("\(changeSet.author ?? "someone") changed the list")
///     }
/// }
/// ```
public struct ChangeSet: CommitChanges, Sendable {
    struct Update: Sendable {
        var values: ContiguousArray<StoredValue>
        var changedFields: Set<String>
    }

    /// One entity's changes. Rows of another writer's commit carry values
    /// only when someone here needs them (a registered object, a monitor);
    /// the others, and rows gone by the time the values were read, are
    /// listed without values (`insertedUnread`, `updatedUnread`).
    struct EntityChanges: Sendable {
        var inserted: [(rowID: Int64, values: ContiguousArray<StoredValue>)] = []
        var updated: [Int64: Update] = [:]
        var deleted: Set<Int64> = []
        var insertedUnread: [Int64] = []
        var updatedUnread: [Int64: Set<String>] = [:]
        /// Every row of the entity was deleted (a wipe); `deleted` lists the
        /// ones this stack held, once merged.
        var cleared = false

        var isEmpty: Bool {
            inserted.isEmpty && updated.isEmpty && deleted.isEmpty && insertedUnread.isEmpty
                && updatedUnread.isEmpty && !cleared
        }

        var hasUnreadRows: Bool { !insertedUnread.isEmpty || !updatedUnread.isEmpty }

        /// The changed fields of an updated row, with or without values.
        func changedFields(ofRow rowID: Int64) -> Set<String>? {
            updated[rowID]?.changedFields ?? updatedUnread[rowID]
        }

        /// The row IDs only, as the commit log records them.
        var logged: LoggedChanges {
            var changes = LoggedChanges(
                inserted: inserted.map(\.rowID) + insertedUnread, updated: updatedUnread,
                deleted: Array(deleted), cleared: cleared)
            changes.updated.reserveCapacity(updatedUnread.count + updated.count)
            for (rowID, update) in updated { changes.updated[rowID] = update.changedFields }
            return changes
        }
    }

    /// The commit generation: 1 for a store's first commit, growing by one per
    /// commit of any writer of the store.
    public let generation: UInt64
    /// The author the transaction (or its stack) gave, if any.
    public let author: String?
    /// When the commit was made, by the committing process's clock.
    public let date: Date
    /// Whether a transaction of this stack made the commit; `false` for a
    /// commit of another writer, read from the store's commit log.
    public let isLocal: Bool
    /// The configuration of the store the commit changed (`nil`: the default
    /// configuration's store). A transaction commits in one store, and its
    /// `generation` counts that store's commits.
    public let configuration: String?
    let changes: [String: EntityChanges]

    /// How many rows the change set lists, with values or without.
    var rowCount: Int {
        changes.values.reduce(0) { total, entity in
            total + entity.inserted.count + entity.updated.count + entity.deleted.count
                + entity.insertedUnread.count + entity.updatedUnread.count
        }
    }
    /// Whether the change set stands for a refresh rather than a commit:
    /// the stack could not follow the store commit by commit (a write that
    /// bypassed the commit log, history purged past it), re-read every
    /// object it holds, and lists what changed among them.
    public internal(set) var isRefresh = false
    /// Whether rows someone here may need still lack their values: a local
    /// commit's bulk writes list rows by ID only, and the main context reads
    /// the values it needs before the merge.
    var needsValues = false
    /// What each base entity stands for in the questions below, when the
    /// schema has inheritance trees (set by the stack that merges or returns
    /// the change set); `nil` otherwise.
    var families: EntityFamilies?

    init(
        generation: UInt64, author: String?, date: Date, isLocal: Bool, changes: [String: EntityChanges],
        configuration: String?
    ) {
        self.configuration = configuration
        self.generation = generation
        self.author = author
        self.date = date
        self.isLocal = isLocal
        self.changes = changes
    }

    /// The entities whose objects the commit changed: each object's concrete
    /// entity (`"Dog"`, not its base `"Animal"`), as its ``ObjectID`` names it.
    public var entityNames: Set<String> { Set(changes.filter { !$0.value.isEmpty }.keys) }

    /// The row IDs of the objects of `entity`, or of one of its subentities,
    /// that the commit inserted.
    public func insertedRowIDs(entity: String) -> Set<Int64> {
        family(of: entity).reduce(into: []) { rowIDs, name in
            guard let changes = changes[name] else { return }
            rowIDs.formUnion(changes.inserted.map(\.rowID))
            rowIDs.formUnion(changes.insertedUnread)
        }
    }

    /// The row IDs of the objects of `entity`, or of one of its subentities,
    /// that the commit updated.
    public func updatedRowIDs(entity: String) -> Set<Int64> {
        family(of: entity).reduce(into: []) { rowIDs, name in
            guard let changes = changes[name] else { return }
            rowIDs.formUnion(changes.updated.keys)
            rowIDs.formUnion(changes.updatedUnread.keys)
        }
    }

    /// The row IDs of the objects of `entity` (or of one of its
    /// subentities) the commit deleted. For an entity the commit cleared
    /// (``clearedEntityNames``), the ones this stack held when it merged the commit.
    public func deletedRowIDs(entity: String) -> Set<Int64> {
        family(of: entity).reduce(into: []) { $0.formUnion(changes[$1]?.deleted ?? []) }
    }

    /// The IDs of the objects of `entity`, or of one of its subentities,
    /// that the commit inserted, each named by its own entity (`"Dog/3"`
    /// among the answers for `"Animal"`).
    public func insertedIDs(entity: String) -> Set<AnyObjectID> {
        ids(entity) { Set($0.inserted.map(\.rowID)).union($0.insertedUnread) }
    }

    /// The IDs of the objects of `entity`, or of one of its subentities,
    /// that the commit updated, each named by its own entity.
    public func updatedIDs(entity: String) -> Set<AnyObjectID> {
        ids(entity) { Set($0.updated.keys).union($0.updatedUnread.keys) }
    }

    /// The IDs of the objects of `entity`, or of one of its subentities,
    /// that the commit deleted, each named by its own entity.
    public func deletedIDs(entity: String) -> Set<AnyObjectID> { ids(entity) { $0.deleted } }

    private func ids(_ entity: String, _ rows: (EntityChanges) -> Set<Int64>) -> Set<AnyObjectID> {
        family(of: entity).reduce(into: []) { ids, name in
            guard let changes = changes[name] else { return }
            ids.formUnion(rows(changes).map { AnyObjectID(entityName: name, rowID: $0, configuration: configuration) })
        }
    }

    /// The entities the commit cleared (``DataStack/wipeAllData(waitForAllObservers:author:isolation:)``).
    public var clearedEntityNames: Set<String> { Set(changes.filter { $0.value.cleared }.keys) }

    public func changedFields(of id: AnyObjectID) -> Set<String> {
        guard id.configuration == configuration else { return [] }
        // An ID may name a subentity's object by a base entity.
        for name in family(of: id.entityName) {
            if let fields = changes[name]?.changedFields(ofRow: id.rowID) { return fields }
        }
        return []
    }

    /// The record the commit log keeps of this change set.
    var loggedChanges: [String: LoggedChanges] { changes.mapValues(\.logged) }
}
