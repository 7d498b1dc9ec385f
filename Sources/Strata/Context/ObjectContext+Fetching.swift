/// The fetch operations the stack and transactions share.
extension ObjectContext {
    func entity<Object: ManagedObject>(_ type: Object.Type) -> EntityDescription {
        schema.entity(of: type)
    }

    func fetchAll<Object: ManagedObject>(_ query: From<Object>) throws -> [Object] {
        if readsCommitted(query) { return try committedMatches(query) }
        let entity = entity(Object.self)
        let select = try query.selectSQL(in: entity, schema: schema, dialect: store.dialect)
        return try fetchObjects(entity, sql: select.sql, arguments: select.arguments, as: Object.self)
    }

    func fetchOne<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        try fetchOne(query, entity: entity(Object.self))
    }

    /// ``fetchOne(_:)`` of `entity`, `Object`'s entity in this context's schema.
    func fetchOne<Object: ManagedObject>(
        _ query: From<Object>, entity: EntityDescription
    ) throws -> Object? {
        if readsCommitted(query) { return try committedMatches(query.tweak { $0.fetchLimit = 1 }).first }
        let select = try query.selectSQL(in: entity, schema: schema, dialect: store.dialect, limit: 1)
        // As `ManagedObject`s, so that this unspecialized call does not
        // instantiate `[Object]`'s metadata and its `Collection` conformance.
        let fetched = try fetchObjects(
            entity, sql: select.sql, arguments: select.arguments, maxRows: 1)
        guard let object = fetched.first else { return nil }
        // Every row of the entity is an object of its class, or of a subentity's.
        return unsafeDowncast(object, to: Object.self)
    }

    func fetchObjectIDs<Object: ManagedObject>(_ query: From<Object>) throws -> [ObjectID<Object>] {
        let entity = entity(Object.self)
        let compiled = try query.compile(in: entity, schema: schema, dialect: store.dialect)
        guard entity.sharesTable else {
            return try readRows(
                "SELECT _pk FROM \(entity.quotedTable) AS t0\(compiled.clauses)", compiled.arguments,
                scope: ReadScope(query.options)
            ) { ObjectID(entityName: entity.name, rowID: $0.int64(at: 0), configuration: entity.configuration) }
        }
        // Each ID names its row's concrete entity, read from the discriminator.
        let rows = TreeRows(entity, schema: schema)
        return try readRows(
            "SELECT _pk, t0.\(SQL.quote(EntityTree.discriminatorColumn)) FROM \(entity.quotedTable) AS t0"
                + compiled.clauses, compiled.arguments, scope: ReadScope(query.options)
        ) { ObjectID(entityName: (rows.entity(of: $0) ?? entity).name, rowID: $0.int64(at: 0), configuration: entity.configuration) }
    }

    func fetchCount<Object: ManagedObject>(_ query: From<Object>) throws -> Int {
        let entity = entity(Object.self)
        let compiled = try query.compile(
            in: entity, schema: schema, dialect: store.dialect, ordered: false)
        let count = try readScalar(
            "SELECT count(*) FROM (SELECT _pk FROM \(entity.quotedTable) AS t0\(compiled.clauses)) AS counted",
            compiled.arguments, scope: ReadScope(query.options))
        guard case .integer(let value) = count else { return 0 }
        return Int(value)
    }

    func fetchExists<Object: ManagedObject>(_ query: From<Object>) throws -> Bool {
        let entity = entity(Object.self)
        let compiled = try query.compile(
            in: entity, schema: schema, dialect: store.dialect, limit: 1, ordered: false)
        return try readScalar(
            "SELECT EXISTS (SELECT _pk FROM \(entity.quotedTable) AS t0\(compiled.clauses))",
            compiled.arguments, scope: ReadScope(query.options)) == .integer(1)
    }

    /// Whether `query` is a transaction's read that leaves its pending
    /// changes out (``Tweak/includesPendingChanges``).
    func readsCommitted<Object>(_ query: From<Object>) -> Bool {
        kind == .transaction && ReadScope(query.options) == .committed
    }

    /// The objects a transaction's read of the committed store matches: the
    /// IDs read there in the query's order, less those the transaction
    /// deleted, then the query's page of what is left, as the transaction's
    /// own objects with their current values.
    ///
    /// The page is taken after the deleted objects are left out, so that
    /// `fetchOne` answers the first committed match still alive. The objects
    /// are made a chunk at a time until the page is full (all in one chunk
    /// without a limit or offset).
    func committedMatches<Object: ManagedObject>(_ query: From<Object>) throws -> [Object] {
        let entity = entity(Object.self)
        // A negative offset is none, as in SQL.
        let offset = max(query.options.fetchOffset, 0)
        let limit = query.options.effectiveLimit
        let rowIDs = try fetchObjectIDs(query.tweak {
            $0.fetchLimit = nil
            $0.fetchOffset = 0
        }).map(\.rowID)
        var objects: [ManagedObject] = []
        var skipped = 0
        var start = 0
        let isFull = { (objects: [ManagedObject]) in limit.map { objects.count >= $0 } ?? false }
        while start < rowIDs.count, !isFull(objects) {
            // What the page still needs (without a limit or offset, every ID
            // in one chunk), bounded by the IDs so as not to overflow.
            let needed = min(limit.map { $0 - objects.count } ?? rowIDs.count, rowIDs.count)
                + min(offset - skipped, rowIDs.count)
            let end = start + min(rowIDs.count - start, max(needed, 64))
            for object in try existingObjects(entity, rowIDs: Array(rowIDs[start..<end])) {
                if skipped < offset {
                    skipped += 1
                } else if !isFull(objects) {
                    objects.append(object)
                }
            }
            start = end
        }
        // Every object of `Object`'s entity is of its class.
        return uncheckedDowncast(objects, to: [Object].self)
    }

    /// The context's own object for `id`, or `nil` when it no longer exists.
    func fetchExisting<Object: ManagedObject>(_ id: ObjectID<Object>) throws -> Object? {
        try lookForOtherWriters()
        let entity = schema.entity(reading: id) ?? entity(Object.self)
        return try existingObject(entity, rowID: id.rowID) as? Object
    }
}
