/// Looking up many objects by row ID at once: what the context holds is
/// taken as it is, and the rest is read in one query per entity.
extension ObjectContext {
    /// One row an existing-object look-up asks for.
    struct RowReference {
        let entity: EntityDescription
        let rowID: Int64
    }

    /// The objects of `entity` with `rowIDs` that exist, in the order given
    /// (a row ID given twice gives its object twice); deleted ones, here or
    /// in the store, are left out. Each is what ``existingObject(_:rowID:)``
    /// answers for its row, but the rows the context does not hold are read
    /// in one query (see ``readUnregistered(_:rowIDs:)``).
    func existingObjects(_ entity: EntityDescription, rowIDs: [Int64]) throws -> [ManagedObject] {
        let read = try readUnregistered(entity, rowIDs: rowIDs)
        return withExtendedLifetime(read) {
            rowIDs.compactMap { registeredExisting(entity, $0) }
        }
    }

    /// For each of `rows`, in order, its object, or `nil` when it does not
    /// exist: as ``existingObjects(_:rowIDs:)``, with one query per entity.
    func existingObjects(_ rows: [RowReference]) throws -> [ManagedObject?] {
        var rowIDsByEntity: [Int: (entity: EntityDescription, rowIDs: [Int64])] = [:]
        for row in rows {
            rowIDsByEntity[row.entity.index, default: (row.entity, [])].rowIDs.append(row.rowID)
        }
        let read = try rowIDsByEntity.values.map {
            try readUnregistered($0.entity, rowIDs: $0.rowIDs)
        }
        return withExtendedLifetime(read) {
            rows.map { registeredExisting($0.entity, $0.rowID) }
        }
    }

    /// Reads the rows of `entity` with `rowIDs` that the context does not
    /// hold and registers their objects; returns them, for the caller to keep
    /// alive while it looks them up (the main context holds objects weakly).
    ///
    /// One query, the IDs (sorted, each once, so that the reads walk the
    /// table in order) bound as one ``StoredValueList`` blob:
    ///
    /// ```sql
    /// SELECT t._pk, t."name", ... FROM strata_values(?) AS v
    /// CROSS JOIN "Person" AS t ON t._pk = v.value
    /// ```
    ///
    /// Like a look-up of one row, it reads without flushing: a transaction's
    /// unflushed changes live only on objects it holds, which it never reads.
    private func readUnregistered(
        _ entity: EntityDescription, rowIDs: [Int64]
    ) throws -> [ManagedObject] {
        var missing = rowIDs.filter { registered(entity, $0) == nil }
        guard !missing.isEmpty else { return [] }
        missing.sort()
        var unique: [StoredValue] = []
        unique.reserveCapacity(missing.count)
        var previous: Int64?
        for rowID in missing where rowID != previous {
            unique.append(.integer(rowID))
            previous = rowID
        }
        if unique.count == 1 {
            return try fetchObjects(entity, sql: entity.selectRowSQL, arguments: unique, scope: .unflushed)
        }
        switch store.dialect {
        case .sqlite:
            return try fetchObjects(
                entity, sql: entity.selectRowsSQL, arguments: [.blob(StoredValueList.encode(unique))],
                scope: .unflushed)
        case .postgreSQL:
            return try fetchObjects(
                entity,
                sql: "SELECT \(entity.selectList) FROM \(entity.quotedTable) "
                    + "WHERE _pk \(SQLDialect.postgreSQL.inRowIDList)",
                arguments: [SQL.rowIDList(missing)], scope: .unflushed)
        }
    }

    /// The object the context holds for a row, unless deleted (or, in an
    /// inheritance tree, of an entity outside `entity`'s family).
    private func registeredExisting(_ entity: EntityDescription, _ rowID: Int64) -> ManagedObject? {
        guard let object = registered(entity, rowID), !object.isDeleted else { return nil }
        return !entity.sharesTable || entity.includes(object.entity!) ? object : nil
    }

    /// The context's own objects for `ids` that still exist, in the same
    /// order (see ``existingObjects(_:rowIDs:)``).
    func fetchExisting<Object: ManagedObject>(
        _ ids: some Sequence<ObjectID<Object>>
    ) throws -> [Object] {
        try lookForOtherWriters()
        let found = try existingObjects(entity(Object.self), rowIDs: ids.map(\.rowID))
        // Every object of `Object`'s entity is of its class.
        return uncheckedDowncast(found, to: [Object].self)
    }

    /// The context's own instances of `objects`, from any context, that still
    /// exist, in the same order: an object of this context as it is unless
    /// deleted, any other by its row (see ``existingObjects(_:)``); detached
    /// objects are left out.
    func fetchExisting<Object: ManagedObject>(_ objects: some Sequence<Object>) throws -> [Object] {
        try lookForOtherWriters()
        let objects: [ManagedObject] = Array(objects)
        return uncheckedDowncast(try existingInstances(of: objects), to: [Object].self)
    }

    /// `fetchExisting(objects)` without its generic parameter: each instance
    /// found is of the class of the object it stands for.
    private func existingInstances(of objects: [ManagedObject]) throws -> [ManagedObject] {
        let others = objects.compactMap { object -> RowReference? in
            guard object.context !== self, let entity = object.entity else { return nil }
            return RowReference(entity: entity, rowID: object.rowID)
        }
        var found = try existingObjects(others).makeIterator()
        return objects.compactMap { object in
            if object.context === self { return object.isDeleted ? nil : object }
            guard object.entity != nil else { return nil }
            return found.next()!
        }
    }
}

extension ObjectContext {
    /// Whether `other`'s objects are rows of this context's store: `other` is
    /// a context of the same stack over the same store (the main context, a
    /// transaction's), or of another stack over the same file (read-only or
    /// not). An object of another store is none of this context's, whatever
    /// its row ID names here: a look-up by that row ID would find an
    /// unrelated object.
    func readsStore(of other: ObjectContext) -> Bool {
        other === self || other.store === store || other.store.rowsKey == store.rowsKey
    }
}
