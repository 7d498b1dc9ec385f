/// Letting go of the objects a large transaction created, once their rows
/// are written and nobody else holds them.
///
/// A transaction holds its objects strongly: a changed object must not be
/// lost before the commit writes it. But an object created and written whose
/// caller dropped it holds nothing the store does not: the transaction's
/// SQLite transaction has its row. So when `insertRetirementThreshold`
/// objects are pending, the next `create` first flushes them and lets go of
/// each created object that only the context still holds, noting its row ID
/// in `retiredInserts` instead (a million consecutive IDs are one range).
/// Creating a million objects in one transaction then keeps a few thousand
/// alive, not a million.
///
/// A retired row stays one of the transaction's inserts everywhere:
/// - read again in the transaction (a fetch, a relationship, ``insertedObjects``),
///   it comes back as a new object that is inserted, as its first one was;
/// - the commit lists it among the inserted rows without values
///   (`insertedUnread`), which the main context reads only when someone there
///   needs them (a registered object, a monitor), as it reads another
///   writer's rows; a row a bulk write deleted again is in no list;
/// - a rollback forgets the note with the rows.
///
/// Not in a transaction with an undo history (its records hold the objects),
/// nor in a stack of several stores, whose commits (`CrossStoreCommit`) this
/// was neither tested nor measured with.
/// A flush here that fails (a unique clash, an invalid value) is not thrown:
/// the objects stay pending, retiring stops for the transaction, and the
/// failure comes where it came before, at the next read or the commit.
extension ObjectContext {
    /// The number of pending objects at which a create writes them and lets
    /// go of the created ones nobody else holds: about 5 MB of objects of a
    /// few fields, and more than most transactions create.
    static let defaultInsertRetirementThreshold = 16_384

    /// Called by `create` before it makes an object.
    func retireWrittenInsertsIfDue() {
        guard pendingObjects.count >= insertRetirementThreshold, kind == .transaction,
            undoHistory == nil, writerSet == nil, !insertRetirementSuspended
        else { return }
        // Holds every pending object once more than the context: the flush
        // empties `pendingObjects` but not this copy of it.
        var candidates = pendingObjects
        do {
            try flushPending(forCommit: false)
        } catch {
            insertRetirementSuspended = true
            return
        }
        // The rows of one entity at a time, taken out of `retiredInserts` and
        // put back when another entity's object comes: a look-up per object
        // was a tenth of the retiring.
        var current: (entity: Int, rows: RowIDRanges)?
        candidates.withUnsafeMutableBufferPointer { candidates in
            for index in candidates.indices {
                // No local reference to the object: it would count as a holder.
                guard let entity = Self.retirableEntity(candidates[index]) else { continue }
                // Without the context's hold, `candidates` holds the object
                // once, unless the caller (or anyone) holds it too.
                unregister(candidates[index])
                guard isKnownUniquelyReferenced(&candidates[index]) else {
                    register(candidates[index])
                    continue
                }
                if current?.entity != entity {
                    if let current { retiredInserts[current.entity] = current.rows }
                    current = (entity, retiredInserts.removeValue(forKey: entity) ?? RowIDRanges())
                }
                current!.rows.insert(candidates[index].rowID)
            }
        }
        // Nothing to trim when every object is held (an import returns its objects).
        guard let current else { return }
        retiredInserts[current.entity] = current.rows
        trimIdentityMap()
    }

    /// The schema index of the entity of `object` when it is a created
    /// object that a flush left with nothing unwritten, still registered.
    private static func retirableEntity(_ object: ManagedObject) -> Int? {
        guard object.isInserted, !object.isDeleted, object.isWritten, object.flushed == nil,
            !object.hasInvalidValues, object.identitySlot >= 0
        else { return nil }
        return object.withMembership { _, entity in entity.index }
    }

    /// Marks the objects among `objects` that stand for retired rows as
    /// inserted: read again, a row keeps being one the transaction created.
    func markRetiredInserts(_ objects: [ManagedObject]) {
        for object in objects where !object.isInserted {
            guard let entity = object.withMembership({ _, entity in entity.index }),
                retiredInserts[entity]?.contains(object.rowID) == true
            else { continue }
            object.isInserted = true
        }
    }

    /// Whether the row `rowID` of the table of the entity with schema index
    /// `table` is a retired insert, of whichever entity of the table.
    func isRetiredInsert(table: Int, rowID: Int64) -> Bool {
        retiredInserts.contains { index, rows in
            schema.entities[index].tableIndex == table && rows.contains(rowID)
        }
    }

    /// Per entity index, the retired rows that no registered object stands
    /// for and that no bulk write deleted: the commit's inserted rows without values.
    func unreadRetiredInserts() -> [Int: [Int64]] {
        var unread: [Int: [Int64]] = [:]
        for (index, rows) in retiredInserts {
            let left = rows.filter { isUnreadRetiredInsert(schema.entities[index], $0) }
            if !left.isEmpty { unread[index] = left }
        }
        return unread
    }

    /// Whether any retired row is an insert the commit would list without values.
    var hasUnreadRetiredInserts: Bool {
        retiredInserts.contains { index, rows in
            rows.contains { isUnreadRetiredInsert(schema.entities[index], $0) }
        }
    }

    private func isUnreadRetiredInsert(_ entity: EntityDescription, _ rowID: Int64) -> Bool {
        registered(entity, rowID) == nil
            && bulkChanges.deleted[entity.tableIndex]?.contains(rowID) != true
    }

    /// Brings every retired row that still exists back as a registered
    /// object, so that a walk over the registered objects sees each insert.
    func readRetiredInserts() throws {
        for (index, rows) in retiredInserts {
            _ = try existingObjects(schema.entities[index], rowIDs: Array(rows))
        }
    }
}
