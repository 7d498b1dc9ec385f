import Foundation

/// The commit pipeline: validate, flush, bump the generation, write the log
/// record, COMMIT.
extension ObjectContext {
    /// Commits the open SQLite transaction and returns what it saved, or `nil`
    /// when nothing changed. On failure everything is rolled back and the error thrown.
    ///
    /// The change set is delivered to the store runtime under its commit lock
    /// at the instant of the COMMIT, so change sets wait in commit order
    /// whichever thread commits, and a reader that takes the lock finds every
    /// local commit its snapshot shows already delivered. `didCommit` then
    /// asks for a merge.
    @discardableResult
    func commit(author: String?, didCommit: () -> Void) throws -> ChangeSet? {
        try exclusively {
            guard let prepared = try prepareCommit(author: author) else { return nil }
            try finishCommit(prepared, didCommit: didCommit)
            return prepared.changeSet
        }
    }

    /// A commit written into the open SQLite transaction — changes flushed,
    /// rules checked, generation bumped, log record written — that only
    /// lacks its COMMIT.
    struct PreparedCommit {
        let connection: Connection
        let changeSet: ChangeSet
    }

    /// Writes everything the commit needs into the open SQLite transaction,
    /// short of COMMIT. Returns `nil`, with the transaction ended, when
    /// nothing observable changed. On failure everything is rolled back and
    /// the error thrown.
    func prepareCommit(author: String?) throws -> PreparedCommit? {
        if writer == nil, !pendingObjects.isEmpty {
            // Objects kept from an earlier commit or rollback (an unsafe transaction
            // goes on) change without any read or create taking the writer first.
            do {
                _ = try writeConnection()
            } catch {
                rollback()
                throw translated(error)
            }
        }
        guard let connection = writer else {
            // Nothing reached the store, but a failure on the way (the write
            // lock of a read-only store refused) still fails the commit.
            if let error = deferredError {
                deferredError = nil
                throw error
            }
            return nil
        }
        do {
            try flush(forCommit: true)
            try checkDenyRules()
            let changes = try collectChanges()
            try checkMemberCounts(changes)
            guard !changes.isEmpty else {
                // Nothing observable changed (say an object created and deleted
                // again): roll back what was flushed, so that no other stack
                // sees the file change without a commit in the log.
                if undoHistory != nil {
                    // But a redo may bring such an object back, with its ID:
                    // the stack's other transactions must not give that ID out.
                    for (entity, next) in zip(schema.entities, nextRowIDs) where next > 0 {
                        store.reserveRowIDs(through: next - 1, in: entity.tableName)
                    }
                }
                try connection.execute("ROLLBACK")
                finishWriting(committed: true)
                return nil
            }
            // Indexed by table: an inheritance tree's sequence is its root's.
            for (entity, next) in zip(schema.entities, nextRowIDs) where next > 0 {
                try connection.run(
                    "INSERT INTO _strata_sequence (entity, last) VALUES (?, ?) "
                        + "ON CONFLICT (entity) DO UPDATE SET last = excluded.last",
                    [.text(entity.tableName), .integer(next - 1)])
            }
            var changeSet = try store.prepareLogged(changes, author: author, on: connection)
            changeSet.families = schema.entityFamilies
            return PreparedCommit(connection: connection, changeSet: changeSet)
        } catch {
            throw failCommit(error)
        }
    }

    /// COMMITs a prepared commit, delivering its change set at the same
    /// instant, and asks for a merge. On failure everything is rolled back
    /// and the error thrown.
    func finishCommit(_ prepared: PreparedCommit, didCommit: () -> Void) throws {
        do {
            try store.commit(prepared.changeSet) { try prepared.connection.commit() }
        } catch {
            throw failCommit(error)
        }
        keptGeneration = prepared.changeSet.generation
        didCommit()
        finishWriting(committed: true)
    }

    /// Rolls back after a failed commit, and says so.
    private func failCommit(_ error: any Error) -> StrataError {
        rollback()
        let error = translated(error)
        StrataLog.log(.error, .transactions, "a commit to \(store.path) failed and was rolled back: \(error)")
        return error
    }

    /// Discards every change of the open SQLite transaction and restores the
    /// objects to their committed values.
    func rollback() {
        exclusively { rollbackPending() }
    }

    private func rollbackPending() {
        // Without a writer there may still be changed objects to restore.
        if let connection = writer, connection.isInTransaction { try? connection.execute("ROLLBACK") }
        finishWriting(committed: false)
    }

    /// Resets change tracking after COMMIT or ROLLBACK and gives the writer back.
    private func finishWriting(committed: Bool) {
        var removed: [ManagedObject] = []
        forEachRegistered { object in
            let inserted = object.isInserted
            if committed {
                if object.isDeleted { removed.append(object) }
            } else {
                if let baseline = object.baseline { object.values = baseline }
                if inserted {
                    object.isDeleted = true
                    removed.append(object)
                } else {
                    object.isDeleted = false
                }
            }
            object.isInserted = false
            object.isWritten = true
            object.baseline = nil
            object.flushed = nil
            object.invalidValues = nil
        }
        for object in removed { unregister(object) }
        pendingObjects.removeAll()
        retiredInserts.removeAll()
        insertRetirementSuspended = false
        relationshipChanges.removeAll()
        denyChecks.removeAll()
        bulkChanges = BulkChanges()
        nextRowIDs = Array(repeating: 0, count: nextRowIDs.count)
        deferredError = nil
        recorder = nil
        closeCommittedReader()
        if let writer {
            self.writer = nil
            store.endWriting(writer, rollback: false)
        }
    }

    /// What the transaction changed, per entity, with the new values.
    private func collectChanges() throws -> [String: ChangeSet.EntityChanges] {
        // Grouped by entity index first: an array slot, where hashing each
        // object's entity (even as a pointer) was a fifth of this loop.
        // (Empty entries are dropped with the other empty ones at the end.)
        var byEntity = [ChangeSet.EntityChanges](repeating: .init(), count: schema.entities.count)
        // Updates are listed first and made a dictionary once, at its size:
        // grown an update at a time, it rehashed every row ID at each doubling.
        var updated = [[(Int64, ChangeSet.Update)]](repeating: [], count: schema.entities.count)
        // Only needed, and only filled, when to-many relationships changed.
        var updatedKeys: Set<ObjectKey> = []
        let relationshipsChanged = !relationshipChanges.isEmpty
        forEachRegistered { object in
            // The entity borrowed for its index; only an update needs it retained.
            let index = object.withMembership { _, entity in entity.index }!
            if object.isInserted {
                guard !object.isDeleted else { return }
                byEntity[index].inserted.append((object.rowID, object.values))
            } else if object.isDeleted {
                byEntity[index].deleted.insert(object.rowID)
            } else if object.baseline != nil || relationshipsChanged {
                let entity = object.entity!
                var fields = object.baseline.map { baseline in
                    entity.changedFieldNames(from: baseline, to: object.value(at:))
                } ?? []
                if relationshipsChanged {
                    let key = ObjectKey(entity, object.rowID)
                    fields.formUnion(relationshipChanges[key] ?? [])
                    if !fields.isEmpty { updatedKeys.insert(key) }
                }
                if !fields.isEmpty {
                    updated[index].append((object.rowID, ChangeSet.Update(values: object.values, changedFields: fields)))
                }
            }
        }
        // Before anything below registers objects: those would stand for no row here.
        for (index, rowIDs) in unreadRetiredInserts() { byEntity[index].insertedUnread = rowIDs }
        for (index, updates) in updated.enumerated() where !updates.isEmpty {
            byEntity[index].updated = Dictionary(updates, uniquingKeysWith: { _, last in last })
        }
        var changes: [String: ChangeSet.EntityChanges] = [:]
        for (index, entry) in byEntity.enumerated() where !entry.isEmpty {
            changes[schema.entities[index].name] = entry
        }
        // Objects whose to-many relationships changed without being loaded here.
        for (key, fields) in relationshipChanges where !updatedKeys.contains(key) {
            // The table's entity reads the row as its concrete entity, which names it in the change set.
            guard let object = try existingObject(schema.entities[key.table], rowID: key.rowID),
                  !object.isInserted, !object.isDeleted, let entity = object.entity
            else { continue }
            changes[entity.name, default: .init()].updated[key.rowID] =
                ChangeSet.Update(values: object.values, changedFields: fields)
        }
        try mergeBulkChanges(into: &changes)
        return changes.filter { !$0.value.isEmpty }
    }

    /// Adds what bulk writes changed in rows no registered object stands
    /// for: deleted rows and changed rows by ID, changed rows without values
    /// (the main context reads the ones it needs), and cleared entities.
    private func mergeBulkChanges(into changes: inout [String: ChangeSet.EntityChanges]) throws {
        let bulk = bulkChanges
        guard !bulk.isEmpty else { return }
        for (entity, deleted, updated, cleared) in try bulkChangesByEntity(bulk) {
            var entityChanges = changes[entity.name] ?? .init()
            entityChanges.cleared = cleared
            // A row the transaction created (a retired insert) was never
            // seen outside it: deleted, it is in no list; changed, it is
            // listed as inserted, with whatever values it ends with.
            let retired = retiredInserts[entity.index]
            for rowID in deleted where registered(entity, rowID) == nil && retired?.contains(rowID) != true {
                entityChanges.deleted.insert(rowID)
            }
            // The rows no object stands for go as they are (sharing their
            // sets of field names); the others join their object's update.
            let held = updated.filter {
                deleted.contains($0.key) || registered(entity, $0.key) != nil || retired?.contains($0.key) == true
            }
            var unread = held.isEmpty ? updated : updated.filter { held[$0.key] == nil }
            for (rowID, fields) in held where !deleted.contains(rowID) {
                guard let object = registered(entity, rowID), !object.isInserted, !object.isDeleted
                else { continue }
                entityChanges.updated[rowID, default: ChangeSet.Update(values: object.values, changedFields: [])]
                    .changedFields.formUnion(fields)
            }
            if entityChanges.updatedUnread.isEmpty {
                entityChanges.updatedUnread = unread
            } else {
                unread.merge(entityChanges.updatedUnread) { $0.union($1) }
                entityChanges.updatedUnread = unread
            }
            changes[entity.name] = entityChanges
        }
    }
}
