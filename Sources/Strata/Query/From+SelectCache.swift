/// The `SELECT` of the commonest query shape, compiled once: one comparison
/// of a field of the entity's own row with a value, no order, no offset
/// (`From<Person>().where(\.$email == email)`, a lookup repeated with a new
/// value each time). Building its SQL text costs more than SQLite's own
/// work for a lookup by a unique index; for this shape the text depends on
/// the field and the operator only, so it is compiled once per entity,
/// field, operator and limit, and later queries bind their value into it.
///
/// Every other query compiles as before; so does the first of each shape,
/// which makes the SQL and the arguments the cache hands out the same as
/// the compiler's.
extension From {
    /// `SELECT <entity.selectList> FROM <table> AS t0 <clauses>` and its
    /// arguments, `limit` capping the query's own limit as in ``compile(in:schema:dialect:limit:)``.
    func selectSQL(
        in entity: EntityDescription, schema: Schema, dialect: SQLDialect, limit: Int? = nil
    ) throws -> (sql: String, arguments: [StoredValue]) {
        guard let shape = selectShape(in: entity, dialect: dialect, limit: limit) else {
            return try compiledSelect(in: entity, schema: schema, dialect: dialect, limit: limit)
        }
        if let known = SelectCache.shared.withLock({ $0[shape.key] }) {
            var arguments = known.arguments
            arguments[0] = shape.operand
            return (known.sql, arguments)
        }
        let compiled = try compiledSelect(in: entity, schema: schema, dialect: dialect, limit: limit)
        // The operand is the first argument: the entity has no discriminator
        // condition, and the limit and offset come after the predicate.
        guard compiled.arguments.first?.isIdentical(to: shape.operand) == true else { return compiled }
        SelectCache.shared.withLock { cache in
            if cache.count >= SelectCache.capacity { cache.removeAll() }
            cache[shape.key] = SelectCache.Entry(entity: entity, sql: compiled.sql, arguments: compiled.arguments)
        }
        return compiled
    }

    private func compiledSelect(
        in entity: EntityDescription, schema: Schema, dialect: SQLDialect, limit: Int?
    ) throws -> (sql: String, arguments: [StoredValue]) {
        let compiled = try compile(in: entity, schema: schema, dialect: dialect, limit: limit)
        return ("SELECT \(entity.selectList) FROM \(entity.quotedTable) AS t0\(compiled.clauses)", compiled.arguments)
    }

    /// The cache key and the operand, when the query has the cached shape
    /// (and a value the compiler would not refuse: text holding NUL where
    /// text cannot hold it).
    private func selectShape(
        in entity: EntityDescription, dialect: SQLDialect, limit: Int?
    ) -> (key: SelectCache.Key, operand: StoredValue)? {
        guard order == nil, options.fetchOffset == 0, !entity.sharesTable,
              case let .compare(path, comparison, operand)? = predicate?.predicate,
              path.relationships.isEmpty, !operand.isNull,
              dialect.textHoldsNUL || !operand.isTextHoldingNUL
        else { return nil }
        let limit = limit.map { min($0, options.effectiveLimit ?? $0) } ?? options.effectiveLimit
        let key = SelectCache.Key(
            entity: ObjectIdentifier(entity), dialect: dialect, field: path.field, comparison: comparison, limit: limit)
        return (key, operand)
    }
}

/// The compiled `SELECT`s of ``From/selectSQL(in:schema:dialect:limit:)``, shared by
/// every stack and thread of the process (a few entries per entity and field
/// queried this way).
enum SelectCache {
    struct Key: Hashable {
        let entity: ObjectIdentifier
        /// A schema's entities serve stores of either engine.
        let dialect: SQLDialect
        let field: String?
        let comparison: WherePredicate.Comparison
        let limit: Int?
    }

    struct Entry {
        /// Kept alive so that no other entity can take its identifier.
        let entity: EntityDescription
        let sql: String
        let arguments: [StoredValue]
    }

    /// Past this many shapes the cache starts again (raw SQL and paths never
    /// reach it; only a program with that many entity and field pairs would).
    static let capacity = 512

    static let shared = Locked<[Key: Entry]>([:])
}
