/// Creating objects, tracking their changes and writing them to the store.
extension ObjectContext {
    /// A new object of `entity` with its default values and a fresh row ID.
    func create(_ entity: EntityDescription) throws -> ManagedObject {
        try exclusively {
            retireWrittenInsertsIfDue()
            return try createObject(entity)
        }
    }

    private func createObject(_ entity: EntityDescription) throws -> ManagedObject {
        if entity.isAbstract {
            misuse(
                "Strata: \(entity.name) is abstract and has no objects of its own. Create an object "
                    + "of one of its subentities (\(subentityList(of: entity))) instead.")
        }
        let object = entity.type.init()
        object.attach(to: self, entity: entity, rowID: try nextRowID(for: entity))
        object.values = entity.newObjectValues()
        for (slot, make) in entity.initialValues {
            do {
                object.values[slot] = try make()
            } catch {
                throw StrataError.wrapping(error).located(entity: entity.name, field: entity.attributes[slot].name)
            }
        }
        object.isInserted = true
        object.isWritten = false
        register(object)
        pendingObjects.append(object)
        if let undoHistory {
            undoHistory.recording(in: self)?.noteCreated(object)
            undoHistory.noteGivenRowID(object.rowID, in: entity, of: self)
        }
        return object
    }

    private func subentityList(of entity: EntityDescription) -> String {
        let names = entity.familyNames.filter { $0 != entity.name }
        return names.isEmpty ? "none is declared" : names.joined(separator: ", ")
    }

    /// Row IDs are given out by the transaction, which holds the write lock:
    /// the ID is permanent from the moment the object is created, and never
    /// reused. `Int64.max` is never given out, so that the next one is always
    /// representable; past it the entity's IDs are used up, a typed error.
    /// The entities of an inheritance tree share one sequence, their table's
    /// (kept under the root's name), as an ID names one row of the tree.
    private func nextRowID(for entity: EntityDescription) throws -> Int64 {
        let next = nextRowIDs[entity.tableIndex]
        if next > 0 {
            guard next < .max else { throw rowIDsUsedUp(entity, last: next - 1) }
            nextRowIDs[entity.tableIndex] = next + 1
            return next
        }
        let connection = try writeConnection()
        let larger = connection.dialect.greatest(
            "coalesce((SELECT last FROM _strata_sequence WHERE entity = ?), 0)",
            "coalesce((SELECT max(_pk) FROM \(entity.quotedTable)), 0)")
        let last = try connection.scalar(
            "SELECT \(larger)",
            [.text(entity.tableName)])
        guard case .integer(var lastRowID) = last ?? .integer(0) else { return 1 }
        // IDs an undo history may bring back, given out by an earlier write
        // transaction whose commit recorded nothing: this transaction's own,
        // or another unsafe transaction's of the stack.
        lastRowID = max(lastRowID, store.lastReservedRowID(in: entity.tableName))
        if let undoHistory {
            lastRowID = max(lastRowID, undoHistory.lastGivenRowID(in: entity, of: self))
        }
        guard lastRowID < .max - 1 else { throw rowIDsUsedUp(entity, last: lastRowID) }
        nextRowIDs[entity.tableIndex] = lastRowID + 2
        return lastRowID + 1
    }

    private func rowIDsUsedUp(_ entity: EntityDescription, last: Int64) -> StrataError {
        .storage(
            path: store.path,
            reason: "\(entity.name) has given out row ID \(last): no row ID is left for a new object")
    }

    /// Sets one slot of a writable object; an identical value is not a change.
    func assign(_ value: StoredValue, slot: Int, of object: ManagedObject) {
        // Asked by key, not by reading the entry out: copying an optional
        // `(Any, StrataError)` out and destroying it was 4% of an insert.
        if let invalid = object.invalidValues, invalid.index(forKey: slot) != nil {
            willChange(object)
            object.invalidValues![slot] = nil
            if object.invalidValues!.isEmpty { object.invalidValues = nil }
        } else if object.value(at: slot).isIdentical(to: value) {
            return
        } else {
            willChange(object)
        }
        object.values[slot] = value
    }

    /// Records a value that cannot be stored; the next flush throws its error.
    func assignInvalid(_ value: Any, error: StrataError, slot: Int, of object: ManagedObject) {
        willChange(object)
        let entity = object.entity!
        let name = entity.attributes[slot].name
        if object.invalidValues == nil { object.invalidValues = [:] }
        object.invalidValues![slot] = (value, error.located(entity: entity.name, field: name))
    }

    /// Called before every change to an object's values (and before a
    /// written object's deletion): keeps what the flush and the commit
    /// compare against, and the state an undo puts back.
    func willChange(_ object: ManagedObject) {
        if let undoHistory { undoHistory.recording(in: self)?.noteObject(object) }
        // An object without a row is inserted whole by the next flush: one
        // created here, or one whose deletion an undo took back after the
        // flush deleted its row (its baseline was kept when it was deleted).
        if !object.isWritten { return }
        if object.baseline == nil { object.baseline = object.values }
        if object.flushed == nil {
            object.flushed = object.values
            pendingObjects.append(object)
        }
    }

    /// Notes that a to-many relationship of the object with `key` changed, for the change set.
    func noteRelationshipChange(_ entity: EntityDescription, _ rowID: Int64, _ name: String) {
        let key = ObjectKey(entity, rowID)
        if let undoHistory {
            undoHistory.recording(in: self)?.noteRelationshipChange(key, name, current: relationshipChanges[key])
        }
        relationshipChanges[key, default: []].insert(name)
    }

    /// Writes every pending insert, update and delete into the open SQLite
    /// transaction: deletes first, then updates, then inserts, so that a unique
    /// value can move from one object to another within a transaction.
    ///
    /// A flush that fails can be retried once the caller fixes the value
    /// (Docs/Transactions.md, Rule 9), unless it is the commit's own
    /// (`forCommit`), whose failure rolls everything back anyway.
    func flush(forCommit: Bool = false) throws {
        try exclusively { try flushPending(forCommit: forCommit) }
    }

    func flushPending(forCommit: Bool) throws {
        if let deferredError { throw deferredError }
        guard kind == .transaction, !pendingObjects.isEmpty else { return }
        let connection = try writeConnection()
        let objects = pendingObjects
        // A deleted object's values are never written: an invalid one it
        // holds (assigned before its deletion, or before an undo took back
        // its creation) fails nothing, and comes back with the object.
        for object in objects where object.hasInvalidValues && !object.isDeleted {
            if let (_, error) = object.invalidValues?.values.first { throw error }
        }
        if !connection.dialect.textHoldsNUL { try refuseTextHoldingNUL(objects) }
        // SQLite undoes only a failed statement, and each object is marked as
        // soon as its statement succeeds, so what was written stays written.
        // PostgreSQL ends the transaction at a failed statement instead: there
        // the flush runs in a savepoint, and a failure puts every object back
        // as it was before the flush.
        let inSavepoint = !forCommit && connection.dialect.failedStatementEndsTransaction
        let marks = inSavepoint ? objects.map { (written: $0.isWritten, flushed: $0.flushed) } : []
        do {
            if inSavepoint {
                try connection.inSavepoint { try write(objects, connection) }
            } else {
                try write(objects, connection)
            }
        } catch let error as DatabaseError {
            if inSavepoint {
                for (object, mark) in zip(objects, marks) {
                    object.isWritten = mark.written
                    object.flushed = mark.flushed
                }
                pendingObjects = objects
            } else {
                pendingObjects = objects.filter { object in
                    object.isDeleted ? object.isWritten : (!object.isWritten || object.flushed != nil)
                }
            }
            throw translated(error)
        }
        pendingObjects.removeAll(keepingCapacity: true)
    }

    /// Throws for the first text value holding NUL among the fields of
    /// `objects` that are written, on a store whose text cannot hold it:
    /// before anything is sent, so the transaction goes on and the value can
    /// be fixed, as a unique clash can (PostgreSQL would end it).
    private func refuseTextHoldingNUL(_ objects: [ManagedObject]) throws {
        for object in objects where !object.isDeleted {
            let values = object.values
            for slot in values.indices where values[slot].isTextHoldingNUL {
                let entity = object.entity!
                throw StrataError.textHoldingNUL(
                    entity: entity.name, field: entity.attributes[slot].name)
            }
        }
    }

    /// Writes `objects`' deletes, updates and inserts, marking each object as
    /// its statement succeeds.
    private func write(_ objects: [ManagedObject], _ connection: Connection) throws {
        for object in objects where object.isDeleted && object.isWritten {
            let entity = object.entity!
            try connection.run("DELETE FROM \(entity.quotedTable) WHERE _pk = ?", [.integer(object.rowID)])
            object.isWritten = false
            object.flushed = nil
        }
        try writeUpdates(objects.filter { !$0.isDeleted && $0.isWritten }, connection)
        try writeInserts(objects, connection)
    }

    /// Inserts the unwritten objects: each run of one entity's objects by
    /// ``EntityDescription/rowsPerInsert`` in one statement, the rest of the
    /// run one by one. A statement that fails inserts none of its rows (SQLite
    /// and PostgreSQL undo a failed statement whole), and its objects stay
    /// unwritten.
    private func writeInserts(_ objects: [ManagedObject], _ connection: Connection) throws {
        var run: [ManagedObject] = []
        // The entity compared by identity, borrowed: `object.entity!` per row
        // retained and released it (the schema keeps every entity alive).
        var runEntity: ObjectIdentifier?
        var rowsPerInsert = 1
        for object in objects where !object.isDeleted && !object.isWritten {
            let entity = object.withMembership { _, entity in ObjectIdentifier(entity) }
            if runEntity != entity {
                try writeInsertRun(&run, connection)
                runEntity = entity
                rowsPerInsert = object.withMembership { _, entity in entity.rowsPerInsert } ?? 1
            }
            run.append(object)
            if run.count == rowsPerInsert { try writeInsertRun(&run, connection) }
        }
        try writeInsertRun(&run, connection)
    }

    /// Inserts `run`, objects of one entity, and empties it: in one statement
    /// when it holds ``EntityDescription/rowsPerInsert`` of them, else one by one.
    private func writeInsertRun(_ run: inout [ManagedObject], _ connection: Connection) throws {
        guard let entity = run.first?.entity else { return }
        if run.count > 1, run.count == entity.rowsPerInsert {
            try run.withUnsafeBufferPointer { objects in
                try connection.statement(entity.insertRowsSQL)
                    .execute(parameters: InsertRunParameters(objects, width: entity.attributes.count))
            }
            for object in run { object.isWritten = true }
        } else {
            let statement = try connection.statement(entity.insertSQL)
            for object in run {
                try statement.execute(object.values, rowID: object.rowID)
                object.isWritten = true
            }
        }
        run.removeAll(keepingCapacity: true)
    }

    /// The values of a run of created objects, each row's followed by its
    /// row ID, read from each object in place: an array of values taken per
    /// row was a retain and a release of it, and of the object, per row.
    /// The caller keeps `objects` alive, and the objects their values.
    private struct InsertRunParameters: IteratorProtocol {
        let objects: UnsafeBufferPointer<ManagedObject>
        let width: Int
        var row = 0, slot = 0

        init(_ objects: UnsafeBufferPointer<ManagedObject>, width: Int) {
            self.objects = objects
            self.width = width
        }

        mutating func next() -> StoredValue? {
            guard row < objects.count else { return nil }
            let slot = self.slot
            if slot < width {
                self.slot += 1
                return Unmanaged.passUnretained(objects[row])._withUnsafeGuaranteedRef { $0.value(at: slot) }
            }
            defer { row += 1; self.slot = 0 }
            return .integer(Unmanaged.passUnretained(objects[row])._withUnsafeGuaranteedRef { $0.rowID })
        }
    }

    /// Updates the changed columns of written objects. Unique columns that
    /// change are first set to NULL on every such object, so that two objects
    /// can swap unique values (SQLite checks uniqueness after each statement).
    ///
    /// The updates run in row-ID order per entity, whatever order the objects
    /// changed in: consecutive statements then mostly find their row on the
    /// page the one before read, and the order changes nothing else (the
    /// unique columns are out of the way by then).
    private func writeUpdates(_ objects: [ManagedObject], _ connection: Connection) throws {
        var updates: [PendingUpdate] = []
        for object in objects {
            guard let flushed = object.flushed else { continue }
            let values = object.values
            var changed = SlotSet()
            for slot in values.indices where !values[slot].isIdentical(to: flushed[slot]) {
                changed.insert(slot)
            }
            if changed.isEmpty {
                object.flushed = nil
            } else {
                updates.append(PendingUpdate(
                    object: object, entity: object.entity!.index, rowID: object.rowID, changed: changed))
            }
        }
        updates.sort { ($0.entity, $0.rowID) < ($1.entity, $1.rowID) }
        for pending in updates {
            let entity = pending.object.entity!
            let unique = pending.changed.intersection(entity.uniqueSlots)
            guard !unique.isEmpty else { continue }
            try connection.run(
                "UPDATE \(entity.quotedTable) SET "
                    + unique.map { "\(SQL.quote(entity.attributes[$0].name)) = NULL" }
                        .joined(separator: ", ")
                    + " WHERE _pk = ?",
                [.integer(pending.rowID)])
            // The row now holds NULL there: should an update below fail and
            // the caller put the old value back, the next flush must write it.
            for slot in unique { pending.object.flushed?[slot] = .null }
        }
        // One statement per entity and set of changed columns, not one SQL
        // string per object; runs of the same shape skip the look-up.
        var statements: [UpdateShape: Statement] = [:]
        var last: (shape: UpdateShape, statement: Statement)?
        for pending in updates {
            let shape = UpdateShape(entity: pending.entity, columns: pending.changed)
            let update: Statement
            if let last, last.shape == shape {
                update = last.statement
            } else if let prepared = statements[shape] {
                update = prepared
            } else {
                let entity = pending.object.entity!
                let assignments = pending.changed.map { "\(SQL.quote(entity.attributes[$0].name)) = ?" }
                update = try connection.statement(
                    "UPDATE \(entity.quotedTable) SET \(assignments.joined(separator: ", ")) WHERE _pk = ?")
                statements[shape] = update
            }
            last = (shape, update)
            let values = pending.object.values
            try update.execute(pending.changed.lazy.map { values[$0] }, rowID: pending.rowID)
            pending.object.flushed = nil
        }
    }

    /// One written object's update: its place in the order updates run in,
    /// and the columns it sets.
    private struct PendingUpdate {
        let object: ManagedObject
        /// The entity's index in the schema.
        let entity: Int
        let rowID: Int64
        let changed: SlotSet
    }

    /// The columns an `UPDATE` of one entity sets.
    private struct UpdateShape: Hashable {
        /// The entity's index in the schema.
        let entity: Int
        let columns: SlotSet
    }

    /// Whether `object` changed other than in its own fields: a to-many
    /// relationship gained or lost a member in this transaction, or a bulk write (`deleteAll`, `updateAll`) changed
    /// its row: the commit lists the object as updated either way.
    func hasChangesBesideFields(_ object: ManagedObject) -> Bool {
        guard let entity = object.entity else { return false }
        if !relationshipChanges.isEmpty, relationshipChanges[ObjectKey(entity, object.rowID)]?.isEmpty == false {
            return true
        }
        return bulkChanges.updated[entity.tableIndex]?[object.rowID]?.isEmpty == false
    }

    /// The objects the transaction created, changed or deleted, by what it
    /// did to them; an object created and deleted again is in none. Changed
    /// objects are those whose ``ManagedObject/hasChanges`` is true, those
    /// that only lost or gained a to-many member through the other side
    /// included (read from the store first, as the commit reads them).
    func changedObjects(_ change: ObjectChange) throws -> [ManagedObject] {
        if change == .inserted { try readRetiredInserts() }
        if change == .updated, !relationshipChanges.isEmpty {
            var rowIDs: [Int: [Int64]] = [:]
            for key in relationshipChanges.keys { rowIDs[key.table, default: []].append(key.rowID) }
            for (table, rowIDs) in rowIDs { _ = try existingObjects(schema.entities[table], rowIDs: rowIDs) }
        }
        var found: [ManagedObject] = []
        forEachRegistered { object in
            let matches: Bool
            switch change {
            case .inserted: matches = object.isInserted && !object.isDeleted
            case .deleted: matches = object.isDeleted && !object.isInserted
            case .updated: matches = !object.isInserted && !object.isDeleted && object.hasChanges
            }
            if matches { found.append(object) }
        }
        return found
    }

    /// Whether the transaction holds anything to commit: exactly when
    /// committing it reports a change set, or refuses an invalid value.
    ///
    /// Objects count by their own ``ManagedObject/hasChanges``. Relationship
    /// notes (link rows and inverses) and bulk writes count only for rows the
    /// transaction did not create: rows it created count as inserted objects,
    /// or, once deleted again (object by object or in bulk), as nothing.
    var hasChanges: Bool {
        func isOwnInsert(_ table: Int, _ rowID: Int64) -> Bool {
            registered(schema.entities[table], rowID)?.isInserted == true
                || isRetiredInsert(table: table, rowID: rowID)
        }
        return registeredObjects.contains { $0.hasChanges } || hasUnreadRetiredInserts
            || relationshipChanges.keys.contains { !isOwnInsert($0.table, $0.rowID) }
            || !bulkChanges.cleared.isEmpty
            || bulkChanges.deleted.contains { table, rowIDs in rowIDs.contains { !isOwnInsert(table, $0) } }
            || bulkChanges.updated.contains { table, rows in rows.keys.contains { !isOwnInsert(table, $0) } }
    }
}

/// What a transaction did to an object it holds (see
/// ``ObjectContext/changedObjects(_:)``).
enum ObjectChange {
    case inserted
    case updated
    case deleted
}
