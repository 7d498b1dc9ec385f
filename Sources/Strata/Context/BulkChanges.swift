/// What a transaction's bulk writes changed in the store without loading
/// objects, by table: the schema index of the entity owning the table
/// (``EntityDescription/tableIndex``; an entity's own index outside
/// inheritance trees). The commit merges it into the change set, naming each
/// row of a tree by its concrete entity; rows a registered object stands for
/// are described by the object instead.
struct BulkChanges {
    /// Rows deleted by SQL.
    var deleted: [Int: Set<Int64>] = [:]
    /// Rows changed by SQL, with the names of the fields and relationships
    /// that changed (a to-many relationship changes when a row it holds is
    /// unlinked or deleted).
    var updated: [Int: [Int64: Set<String>]] = [:]
    /// Entities whose every row was deleted by one statement (a wipe): the log
    /// says "cleared", not row by row.
    var cleared: Set<Int> = []
    /// Per table of an inheritance tree, the concrete entity (schema index)
    /// of each deleted row, read as it was deleted.
    var deletedEntities: [Int: [Int64: Int]] = [:]

    var isEmpty: Bool { deleted.isEmpty && updated.isEmpty && cleared.isEmpty }

    mutating func noteUpdated(_ entity: EntityDescription, _ rowIDs: some Sequence<Int64>, _ field: String) {
        for rowID in rowIDs { updated[entity.tableIndex, default: [:]][rowID, default: []].insert(field) }
    }

    mutating func noteUpdated(_ entity: EntityDescription, _ rowID: Int64, _ fields: Set<String>) {
        updated[entity.tableIndex, default: [:]][rowID, default: []].formUnion(fields)
    }

    /// Adds what a later bulk write changed.
    mutating func merge(_ other: BulkChanges) {
        for (index, rowIDs) in other.deleted { deleted[index, default: []].formUnion(rowIDs) }
        for (index, rows) in other.updated {
            updated[index, default: [:]].merge(rows) { $0.union($1) }
        }
        cleared.formUnion(other.cleared)
        for (index, rows) in other.deletedEntities {
            deletedEntities[index, default: [:]].merge(rows) { _, new in new }
        }
    }
}

/// A `.deny` relationship of deleted rows, judged when the transaction
/// commits against its final state: if any related object remains, the
/// commit fails.
struct DenyCheck {
    let relationship: RelationshipDescription
    /// For a to-one only the deleted rows hold (a foreign key of theirs,
    /// with no key back: ``isJudgedByRelatedRows(_:inverse:)``), the related
    /// rows' IDs; otherwise the deleted rows' own IDs, which the related
    /// rows (or link rows) hold while the link stands.
    var rowIDs: [Int64]
    /// The deleted object whose relationship it checks; `nil` for a bulk
    /// delete's check, which covers many (see `UndoRecord`).
    var owner: ObjectKey? = nil

    /// Whether `other` checks the same relationship of the same rows for the same owner.
    func isSame(as other: DenyCheck) -> Bool {
        relationship.entity == other.relationship.entity && relationship.name == other.relationship.name
            && rowIDs == other.rowIDs && owner == other.owner
    }

    /// Whether a check of `relationship` lists the related rows: a to-one
    /// whose link lives only in the deleted row, so that it stands while the
    /// related row exists. A one-to-one's partner keeps a key back, which
    /// tells at commit whether the link still stands (the transaction may
    /// have given the partner to another object since the deletion).
    static func isJudgedByRelatedRows(
        _ relationship: RelationshipDescription, inverse: RelationshipDescription?
    ) -> Bool {
        guard case .foreignKey = relationship.storage else { return false }
        if case .foreignKey = inverse?.storage { return false }
        return true
    }
}
