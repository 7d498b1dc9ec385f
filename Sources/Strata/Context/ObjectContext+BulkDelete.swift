/// Deleting every row a query selects with SQL statements, without loading
/// objects, applying every delete rule in SQL exactly as deleting the objects
/// one by one would (`ObjectContext+Delete`): the same rows deleted, the same
/// rows changed, the same change set.
///
/// Each step is one `DELETE ... RETURNING _pk` (plus the foreign keys the
/// deleted rows held, which their to-one rules need), then one statement per
/// relationship of the deleted rows: a cascade is the next step, a nullify an
/// `UPDATE ... RETURNING _pk` or a link-table `DELETE`, a deny a check kept
/// for the commit. Steps run until no cascade finds a row; each row is
/// deleted once, so cycles end.
extension ObjectContext {
    /// Deletes the rows of `entity` that `target` (a compiled ``From``
    /// target) selects and everything their delete rules take with them;
    /// returns how many rows of `entity` the target selected.
    ///
    /// Pending changes are flushed first, so the statements see them;
    /// registered objects then follow the store (deleted ones are marked
    /// deleted, changed ones take the new values). On failure nothing of the
    /// call is left in the store.
    func deleteRows(of entity: EntityDescription, target: CompiledTarget) throws -> Int {
        try exclusively {
            try flush()
            let connection = try writeConnection()
            return try connection.inSavepoint {
                var deletion = BulkDeletion(context: self, connection: connection)
                let count = try deletion.delete(entity, target.table + target.whereClause, target.arguments)
                try deletion.run()
                try deletion.finish()
                return count
            }
        }
    }

    /// Deletes every row of every entity, one `DELETE FROM` a table (SQLite
    /// then empties the table without visiting its rows); returns how many
    /// rows went. The change set says each emptied entity was cleared rather
    /// than listing its rows; registered objects are marked deleted.
    func clearAllRows() throws -> Int {
        try exclusively {
            try flush()
            let connection = try writeConnection()
            return try connection.inSavepoint {
                var total = 0
                // One table per entity outside a tree, one per tree.
                for entity in schema.entities where entity.ownsTable {
                    // Row IDs are never given out twice: the entity's last one outlives its rows.
                    if case .integer(let last) = try connection.scalar("SELECT max(_pk) FROM \(entity.quotedTable)") {
                        try connection.run(
                            "INSERT INTO _strata_sequence (entity, last) VALUES (?, ?) "
                                + "ON CONFLICT (entity) DO UPDATE SET last = "
                                + connection.dialect.greatest("_strata_sequence.last", "excluded.last"),
                            [.text(entity.name), .integer(last)])
                    }
                    try connection.run("DELETE FROM \(entity.quotedTable)")
                    guard connection.changes > 0 else { continue }
                    total += connection.changes
                    bulkChanges.cleared.insert(entity.tableIndex)
                }
                for table in schema.linkTables { try connection.run("DELETE FROM \(SQL.quote(table.name))") }
                forEachRegistered { object in if !object.isDeleted { storeDidDelete(object) } }
                // Created and gone again: in no list of the commit.
                retiredInserts.removeAll()
                return total
            }
        }
    }

    /// Adds to `changes` the noted rows (to-many relationships changed by a
    /// bulk write) that exist and that `changes` does not delete, as the
    /// object-by-object path keeps only notes of objects it can load.
    func addExisting(
        _ noted: [Int: [Int64: Set<String>]], to changes: inout BulkChanges, on connection: Connection
    ) throws {
        for (index, rows) in noted {
            let entity = schema.entities[index]
            let gone = changes.deleted[index] ?? []
            let candidates = rows.keys.filter { !gone.contains($0) }
            guard !candidates.isEmpty else { continue }
            let existing = try connection.query(
                "SELECT _pk FROM \(entity.quotedTable) WHERE _pk \(connection.dialect.inRowIDList)", [SQL.rowIDList(candidates)]
            ) { $0.int64(at: 0) }
            for rowID in existing { changes.noteUpdated(entity, rowID, rows[rowID]!) }
        }
    }

    /// Sets the key column `slot` of the rows of `entity` among `rowIDs` to
    /// NULL where it holds one; returns the rows changed (a one-to-one's
    /// partners losing their key back).
    func clearKey(
        _ slot: Int, of entity: EntityDescription, inRows rowIDs: [Int64], on connection: Connection
    ) throws -> [Int64] {
        let column = SQL.quote(entity.attributes[slot].name)
        return try connection.query(
            "UPDATE \(entity.quotedTable) SET \(column) = NULL "
                + "WHERE _pk \(connection.dialect.inRowIDList) AND \(column) IS NOT NULL RETURNING _pk",
            [SQL.rowIDList(rowIDs)]
        ) { $0.int64(at: 0) }
    }

    /// A bulk write deleted an object's row.
    func storeDidDelete(_ object: ManagedObject) {
        object.isDeleted = true
        object.isWritten = false
    }

    /// A bulk write changed one column of an object's row: the object takes
    /// the value as already written, keeping its baseline for the change set
    /// and for a rollback.
    func storeDidChange(_ object: ManagedObject, slot: Int, to value: StoredValue) {
        if object.baseline == nil { object.baseline = object.values }
        object.values[slot] = value
        if object.flushed != nil { object.flushed![slot] = value }
    }
}

/// One bulk delete in progress.
private struct BulkDeletion {
    let context: ObjectContext
    let connection: Connection
    var changes = BulkChanges()
    /// Rows whose to-many relationship changed because a row it held was
    /// deleted; kept apart because only rows that exist count.
    var noted: [Int: [Int64: Set<String>]] = [:]
    /// Columns set to NULL in rows that may be registered, to mirror onto them.
    var nulled: [(entity: EntityDescription, rowIDs: [Int64], slots: [Int])] = []
    var denyChecks: [DenyCheck] = []
    /// Deletions to run: rows of an entity chosen by `FROM` and `WHERE` clauses.
    var pending: [(entity: EntityDescription, clauses: String, arguments: [StoredValue])] = []

    init(context: ObjectContext, connection: Connection) {
        self.context = context
        self.connection = connection
    }

    var schema: Schema { context.schema }

    /// Runs the deletions the cascades asked for, until none is left.
    mutating func run() throws {
        while !pending.isEmpty {
            let next = pending.removeFirst()
            try delete(next.entity, next.clauses, next.arguments)
        }
    }

    /// Deletes the rows of `entity` that `clauses` (what follows `DELETE
    /// FROM`) select and applies their
    /// relationships' delete rules; returns how many were deleted.
    @discardableResult
    mutating func delete(_ entity: EntityDescription, _ clauses: String, _ arguments: [StoredValue]) throws -> Int {
        // In an inheritance tree the rows may be of any subentity: the rules of
        // the whole family apply (a subentity's relationship finds nothing for
        // the rows of other entities), and each row's discriminator is kept.
        let relationships = familyRelationships(of: entity)
        let held = relationships.compactMap { relationship -> (RelationshipDescription, Int)? in
            guard case .foreignKey(let slot) = relationship.storage else { return nil }
            return (relationship, slot)
        }
        let first: Int32 = entity.sharesTable ? 2 : 1  // the first key's column
        let returning = ["_pk"] + (entity.sharesTable ? [SQL.quote(EntityTree.discriminatorColumn)] : [])
            + held.map { SQL.quote(entity.attributes[$0.1].name) }
        var deleted: [Int64] = []
        var keys = Array(repeating: [Int64](), count: held.count)
        let tree = entity.sharesTable ? TreeRows(schema.entities[entity.tableIndex], schema: schema) : nil
        let statement = try connection.statement(
            "DELETE FROM \(clauses) RETURNING \(returning.joined(separator: ", "))")
        try statement.bind(arguments)
        while try statement.step() {
            let rowID = statement.int64(at: 0)
            deleted.append(rowID)
            if let concrete = tree?.entity(of: statement) {
                changes.deletedEntities[entity.tableIndex, default: [:]][rowID] = concrete.index
            }
            for index in held.indices where statement.columnType(at: Int32(index) + first) != 5 {  // SQLITE_NULL
                keys[index].append(statement.int64(at: Int32(index) + first))
            }
        }
        statement.reset()
        guard !deleted.isEmpty else { return 0 }
        changes.deleted[entity.tableIndex, default: []].formUnion(deleted)
        let list = SQL.rowIDList(deleted)
        var heldIndex = 0
        for relationship in relationships {
            if case .foreignKey = relationship.storage {
                try applyRule(of: relationship, toHeld: keys[heldIndex], by: deleted)
                heldIndex += 1
            } else {
                try applyRule(of: relationship, deleted: deleted, list)
            }
        }
        try clearIncomingReferences(to: entity, list)
        return deleted.count
    }

    /// A to-one the deleted rows (`deleted`) held: `related` are the rows it pointed to.
    private mutating func applyRule(
        of relationship: RelationshipDescription, toHeld related: [Int64], by deleted: [Int64]
    ) throws {
        let target = context.targetEntity(of: relationship)
        let gone = changes.deleted[target.tableIndex] ?? []
        let related = Array(Set(related).subtracting(gone))
        guard !related.isEmpty else { return }
        switch relationship.deleteRule {
        case .deny:
            let byRelated = DenyCheck.isJudgedByRelatedRows(relationship, inverse: context.inverse(of: relationship))
            denyChecks.append(DenyCheck(relationship: relationship, rowIDs: byRelated ? related : deleted))
        case .cascade:
            pending.append((target, "\(target.quotedTable) WHERE _pk \(connection.dialect.inRowIDList)", [SQL.rowIDList(related)]))
        case .nullify:
            guard let inverse = context.inverse(of: relationship) else { return }
            if case .foreignKey(let inverseSlot) = inverse.storage {
                // One-to-one: the partners hold a key back, which goes.
                let changed = try context.clearKey(inverseSlot, of: target, inRows: related, on: connection)
                changes.noteUpdated(target, changed, inverse.name)
                nulled.append((target, changed, [inverseSlot]))
            } else {
                for rowID in related { noted[target.tableIndex, default: [:]][rowID, default: []].insert(inverse.name) }
            }
        }
    }

    /// A to-many of the deleted rows (`list` holds their IDs): the related
    /// rows hold a key to them, or link-table rows join them.
    private mutating func applyRule(
        of relationship: RelationshipDescription, deleted: [Int64], _ list: StoredValue
    ) throws {
        let target = context.targetEntity(of: relationship)
        switch (relationship.storage, relationship.deleteRule) {
        case (.foreignKey, _):
            return
        case (_, .deny):
            denyChecks.append(DenyCheck(relationship: relationship, rowIDs: deleted))
        case (.inverseForeignKey(let targetSlot, _), .cascade):
            let column = SQL.quote(target.attributes[targetSlot].name)
            pending.append((target, "\(target.quotedTable) WHERE \(column) \(connection.dialect.inRowIDList)", [list]))
        case let (.inverseForeignKey(targetSlot, orderSlot), .nullify):
            let slots = [targetSlot] + (orderSlot.map { [$0] } ?? [])
            let assignments = slots.map { "\(SQL.quote(target.attributes[$0].name)) = NULL" }
            let changed = try connection.query(
                "UPDATE \(target.quotedTable) SET \(assignments.joined(separator: ", ")) "
                    + "WHERE \(SQL.quote(target.attributes[targetSlot].name)) \(connection.dialect.inRowIDList) RETURNING _pk",
                [list]
            ) { $0.int64(at: 0) }
            if case .foreignKey(let inverseName) = target.attributes[targetSlot].kind {
                changes.noteUpdated(target, changed, inverseName)
            }
            nulled.append((target, changed, slots))
        case let (.linkTable(table, ownerColumn, targetColumn, _), rule):
            let linked = try connection.query(
                "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(ownerColumn)) \(connection.dialect.inRowIDList) "
                    + "RETURNING \(SQL.quote(targetColumn))",
                [list]
            ) { $0.int64(at: 0) }
            guard !linked.isEmpty else { return }
            let related = Array(Set(linked).subtracting(changes.deleted[target.tableIndex] ?? []))
            if rule == .cascade {
                pending.append((target, "\(target.quotedTable) WHERE _pk \(connection.dialect.inRowIDList)", [SQL.rowIDList(related)]))
            } else if let inverse = context.inverse(of: relationship) {
                for rowID in related { noted[target.tableIndex, default: [:]][rowID, default: []].insert(inverse.name) }
            }
        }
    }

    /// Unlinks the deleted rows from relationships that point at `entity`
    /// without an inverse (no rule of the deleted rows covers them). In an
    /// inheritance tree the rows may be of any entity of the tree: every
    /// relationship into the tree is cleared of them, each once, on the
    /// entity that declares it.
    private mutating func clearIncomingReferences(to entity: EntityDescription, _ list: StoredValue) throws {
        for source in schema.entities {
            for relationship in source.relationships.values.sorted(by: { $0.name < $1.name })
            where relationship.inverse == nil && relationship.entity == source.name
                && pointsInto(entity, relationship) {
                switch relationship.storage {
                case .foreignKey(let slot):
                    let column = SQL.quote(source.attributes[slot].name)
                    let changed = try connection.query(
                        "UPDATE \(source.quotedTable) SET \(column) = NULL WHERE \(column) \(connection.dialect.inRowIDList) "
                            + "RETURNING _pk",
                        [list]
                    ) { $0.int64(at: 0) }
                    changes.noteUpdated(source, changed, relationship.name)
                    nulled.append((source, changed, [slot]))
                case let .linkTable(table, ownerColumn, targetColumn, _):
                    let owners = try connection.query(
                        "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(targetColumn)) \(connection.dialect.inRowIDList) "
                            + "RETURNING \(SQL.quote(ownerColumn))",
                        [list]
                    ) { $0.int64(at: 0) }
                    guard !owners.isEmpty else { continue }
                    for owner in owners {
                        noted[source.tableIndex, default: [:]][owner, default: []].insert(relationship.name)
                    }
                case .inverseForeignKey:
                    break
                }
            }
        }
    }

    /// The relationships of `entity` and of its subentities, each once, by
    /// name: those whose rules a delete of the entity's rows applies.
    private func familyRelationships(of entity: EntityDescription) -> [RelationshipDescription] {
        guard let family = entity.tree?.family, family.count > 1 else {
            return entity.relationships.values.sorted { $0.name < $1.name }
        }
        var all: [String: RelationshipDescription] = [:]
        for index in family {
            for relationship in schema.entities[index].relationships.values {
                all[relationship.entity + "." + relationship.name] = relationship
            }
        }
        return all.values.sorted { ($0.name, $0.entity) < ($1.name, $1.entity) }
    }

    /// Whether rows of `entity`'s table may be held by `relationship`: its
    /// target is the entity, or shares its inheritance tree.
    private func pointsInto(_ entity: EntityDescription, _ relationship: RelationshipDescription) -> Bool {
        guard entity.sharesTable else { return relationship.target == entity.name }
        return context.targetEntity(of: relationship).tableIndex == entity.tableIndex
    }

    /// Keeps the noted rows that still exist, mirrors the store onto the
    /// registered objects, and hands the changes and deny checks to the context.
    mutating func finish() throws {
        try context.addExisting(noted, to: &changes, on: connection)
        for (index, rowIDs) in changes.deleted {
            let entity = schema.entities[index]
            changes.updated[index] = changes.updated[index]?.filter { !rowIDs.contains($0.key) }
            for rowID in rowIDs {
                if let object = context.registered(entity, rowID) { context.storeDidDelete(object) }
            }
        }
        for (entity, rowIDs, slots) in nulled {
            for rowID in rowIDs {
                guard let object = context.registered(entity, rowID), !object.isDeleted else { continue }
                for slot in slots { context.storeDidChange(object, slot: slot, to: .null) }
            }
        }
        context.bulkChanges.adopt(&changes)
        context.denyChecks.append(contentsOf: denyChecks)
    }
}

extension BulkChanges {
    /// Merges `other` in and leaves it empty; an entity this one has no
    /// changes of takes `other`'s tables as they are, without rehashing
    /// every row (a bulk write of 100,000 rows made and merged them twice).
    mutating func adopt(_ other: inout BulkChanges) {
        for index in Array(other.deleted.keys) where deleted[index] == nil {
            deleted[index] = other.deleted.removeValue(forKey: index)
        }
        for index in Array(other.updated.keys) where updated[index] == nil {
            updated[index] = other.updated.removeValue(forKey: index)
        }
        merge(other)
        other = BulkChanges()
    }
}
