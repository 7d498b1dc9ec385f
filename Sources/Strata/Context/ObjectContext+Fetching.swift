/// The fetch operations the stack and transactions share.
extension ObjectContext {
    func entity<Object: ManagedObject>(_ type: Object.Type) -> EntityDescription {
        schema.entity(of: type)
    }

    func fetchAll<Object: ManagedObject>(_ query: From<Object>) throws -> [Object] {
        let entity = entity(Object.self)
        let select = try query.selectSQL(in: entity, schema: schema, dialect: store.dialect)
        return try fetchObjects(entity, sql: select.sql, arguments: select.arguments, as: Object.self)
    }

    func fetchOne<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        let entity = entity(Object.self)
        let select = try query.selectSQL(in: entity, schema: schema, dialect: store.dialect, limit: 1)
        return try fetchObjects(
            entity, sql: select.sql, arguments: select.arguments, as: Object.self, maxRows: 1
        ).first
    }

    func fetchObjectIDs<Object: ManagedObject>(_ query: From<Object>) throws -> [ObjectID<Object>] {
        let entity = entity(Object.self)
        let compiled = try query.compile(in: entity, schema: schema, dialect: store.dialect)
        guard entity.sharesTable else {
            return try readRows(
                "SELECT _pk FROM \(entity.quotedTable) AS t0\(compiled.clauses)", compiled.arguments
            ) { ObjectID(entityName: entity.name, rowID: $0.int64(at: 0), configuration: entity.configuration) }
        }
        // Each ID names its row's concrete entity, read from the discriminator.
        let rows = TreeRows(entity, schema: schema)
        return try readRows(
            "SELECT _pk, t0.\(SQL.quote(EntityTree.discriminatorColumn)) FROM \(entity.quotedTable) AS t0"
                + compiled.clauses, compiled.arguments
        ) { ObjectID(entityName: (rows.entity(of: $0) ?? entity).name, rowID: $0.int64(at: 0), configuration: entity.configuration) }
    }

    func fetchCount<Object: ManagedObject>(_ query: From<Object>) throws -> Int {
        let entity = entity(Object.self)
        let compiled = try query.compile(
            in: entity, schema: schema, dialect: store.dialect, ordered: false)
        let count = try readScalar(
            "SELECT count(*) FROM (SELECT _pk FROM \(entity.quotedTable) AS t0\(compiled.clauses)) AS counted",
            compiled.arguments)
        guard case .integer(let value) = count else { return 0 }
        return Int(value)
    }

    func fetchExists<Object: ManagedObject>(_ query: From<Object>) throws -> Bool {
        let entity = entity(Object.self)
        let compiled = try query.compile(
            in: entity, schema: schema, dialect: store.dialect, limit: 1, ordered: false)
        return try readScalar(
            "SELECT EXISTS (SELECT _pk FROM \(entity.quotedTable) AS t0\(compiled.clauses))",
            compiled.arguments) == .integer(1)
    }

    /// The context's own object for `id`, or `nil` when it no longer exists.
    func fetchExisting<Object: ManagedObject>(_ id: ObjectID<Object>) throws -> Object? {
        try lookForOtherWriters()
        let entity = schema.entity(reading: id) ?? entity(Object.self)
        return try existingObject(entity, rowID: id.rowID) as? Object
    }
}
