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
    /// configuration's store). A transaction that wrote to two stores
    /// commits in each: two change sets, each with its store's generation,
    /// merged one right after the other.
    public let configuration: String?
    let changes: [String: EntityChanges]
    /// Whether the change set stands for a refresh rather than a commit:
    /// the stack could not follow the store commit by commit (a write that
    /// bypassed the commit log, history purged past it), re-read every
    /// object it holds, and lists what changed among them.
    public internal(set) var isRefresh = false
    /// Whether rows someone here may need still lack their values: a local
    /// commit's bulk writes list rows by ID only, and the main context reads
    /// the values it needs before the merge.
    var needsValues = false

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

    public var entityNames: Set<String> { Set(changes.filter { !$0.value.isEmpty }.keys) }

    public func insertedRowIDs(entity: String) -> Set<Int64> {
        guard let changes = changes[entity] else { return [] }
        return Set(changes.inserted.map(\.rowID)).union(changes.insertedUnread)
    }

    public func updatedRowIDs(entity: String) -> Set<Int64> {
        guard let changes = changes[entity] else { return [] }
        return Set(changes.updated.keys).union(changes.updatedUnread.keys)
    }

    /// The row IDs of the objects of `entity` the commit deleted. For an
    /// entity the commit cleared (``clearedEntityNames``), the ones this
    /// stack held when it merged the commit.
    public func deletedRowIDs(entity: String) -> Set<Int64> { changes[entity]?.deleted ?? [] }

    /// The entities the commit cleared (``DataStack/wipeAllData(author:isolation:)``).
    public var clearedEntityNames: Set<String> { Set(changes.filter { $0.value.cleared }.keys) }

    public func changedFields(of id: AnyObjectID) -> Set<String> {
        guard id.configuration == configuration else { return [] }
        return changes[id.entityName]?.changedFields(ofRow: id.rowID) ?? []
    }

    /// The record the commit log keeps of this change set.
    var loggedChanges: [String: LoggedChanges] { changes.mapValues(\.logged) }
}
