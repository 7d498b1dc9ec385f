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
            if let joined = listJoinSelect(in: entity, schema: schema, dialect: dialect, limit: limit) {
                return joined
            }
            return try compiledSelect(in: entity, schema: schema, dialect: dialect, limit: limit)
        }
        if let known = SelectCache.entry(shape.key) {
            var arguments = known.arguments
            arguments[0] = shape.operand
            return (known.sql, arguments)
        }
        let compiled = try compiledSelect(in: entity, schema: schema, dialect: dialect, limit: limit)
        // The operand is the first argument: the entity has no discriminator
        // condition, and the limit and offset come after the predicate.
        guard compiled.arguments.first?.isIdentical(to: shape.operand) == true else { return compiled }
        SelectCache.add(SelectCache.Entry(
            key: shape.key, entity: entity, sql: compiled.sql, arguments: compiled.arguments))
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
            entity: ObjectIdentifier(entity), dialect: dialect, field: path.field,
            isDecimal: path.isDecimal, comparison: comparison, limit: limit)
        return (key, operand)
    }
}

extension From {
    /// On SQLite, the `SELECT` of a fetch whose whole predicate is membership
    /// of more than ``SQLCompiler/largestInlineList`` values in the row ID or
    /// in an indexed field of the entity's own row, with no order, limit or
    /// offset (the unique import's look-up of each batch of IDs):
    ///
    /// ```sql
    /// SELECT t0._pk, t0."code", ... FROM strata_values(?) AS v
    ///   CROSS JOIN "Item" AS t0 ON t0."code" = v.value ORDER BY t0._pk ASC
    /// ```
    ///
    /// The list is the outer loop, each value one look-up in the index, where
    /// `t0."code" IN (SELECT value FROM strata_values(?))` first copies the
    /// list into a temporary index: a b-tree built, its pages allocated and
    /// freed, for every statement (a third of the look-up's time). The rows
    /// are the same, in row-ID order as every fetch without an order: each
    /// value is listed once, and only when every value is of the field's own
    /// storage class (so no two of them equal one row's value, as an integer
    /// and a real, or two texts converted to one number, could) and none is
    /// NULL. `nil` for any other fetch, which compiles as before.
    func listJoinSelect(
        in entity: EntityDescription, schema: Schema, dialect: SQLDialect, limit: Int?
    ) -> (sql: String, arguments: [StoredValue])? {
        guard dialect == .sqlite, order == nil, options.fetchOffset == 0,
              limit == nil, options.effectiveLimit == nil,
              case let .isIn(path, values)? = predicate?.predicate,
              path.relationships.isEmpty, !path.isDecimal, !values.containsNull
        else { return nil }
        guard values.values.count > SQLCompiler.largestInlineList else { return nil }
        let column: String
        let storedType: StoredType
        if let field = path.field {
            guard let slot = entity.slot(of: field) else { return nil }
            let attribute = entity.attributes[slot]
            guard attribute.kind == .stored, !attribute.options.isDisjoint(with: [.unique, .indexed])
            else { return nil }
            column = SQL.quote(attribute.name)
            storedType = attribute.storedType
        } else {
            column = "_pk"
            storedType = .integer
        }
        guard storedType == .integer || storedType == .text,
              values.values.allSatisfy({ value in
                  switch value {
                  case .integer: storedType == .integer
                  case .text: storedType == .text
                  default: false
                  }
              })
        else { return nil }
        // Each value once: `IN` matches a row once however often its value is
        // listed (the set drops repeats unless its maker vouched for none).
        let present = values.distinctNonNullValues
        var sql = "SELECT \(entity.qualifiedSelectList) FROM strata_values(?) AS v "
            + "CROSS JOIN \(entity.quotedTable) AS t0 ON t0.\(column) = v.value"
        var arguments: [StoredValue] = [.blob(StoredValueList.encode(present))]
        let alias = SQLCompiler.rootAlias
        if let discriminator = entity.discriminatorCondition(
            alias: alias, includingSubentities: options.includesSubentities)
        {
            sql += " WHERE " + discriminator.sql
            arguments += discriminator.arguments
        }
        // The order every fetch without one has, as the compiler writes it.
        var compiler = SQLCompiler(schema: schema, dialect: dialect)
        return (sql + " ORDER BY " + compiler.order(order, in: entity, alias: alias), arguments)
    }
}

/// The compiled `SELECT`s of ``From/selectSQL(in:schema:dialect:limit:)``, shared by
/// every stack and thread of the process (a few entries per entity and field
/// queried this way).
///
/// Found without hashing: the entry found last is checked first, without
/// the lock (a lookup repeated in a loop finds it there); then, under the
/// lock, the entity's address picks a bucket whose few entries are compared
/// field by field. Hashing the key, a `String` among its parts, under a
/// lock was most of a lookup's cost (Docs/Performance.md, "fetchOne's lookup").
enum SelectCache {
    /// A query shape: equal keys compile to the same SQL text.
    struct Key: Equatable {
        let entity: ObjectIdentifier
        /// A schema's entities serve stores of either engine.
        let dialect: SQLDialect
        let field: String?
        /// A decimal field's order comparisons compare numbers, not texts.
        let isDecimal: Bool
        let comparison: WherePredicate.Comparison
        let limit: Int?

        /// The bucket of the shapes of `entity`: its address, past the
        /// alignment bits that every object's share, folded.
        var bucket: Int {
            let address = UInt(bitPattern: entity) >> 4
            return Int(truncatingIfNeeded: (address ^ (address >> 7)) & UInt(bucketCount - 1))
        }
    }

    /// A compiled shape. Never freed once kept, nor changed, so that
    /// ``lastFound`` can point to one without the lock.
    final class Entry: Sendable {
        let key: Key
        /// Kept alive so that no other entity can take its identifier.
        let entity: EntityDescription
        let sql: String
        let arguments: [StoredValue]

        init(key: Key, entity: EntityDescription, sql: String, arguments: [StoredValue]) {
            self.key = key
            self.entity = entity
            self.sql = sql
            self.arguments = arguments
        }
    }

    /// The most shapes kept; later ones compile on every query (raw SQL and
    /// paths never reach the cache: only a program with that many entity and
    /// field pairs would). Kept entries are never dropped, so that one
    /// ``lastFound`` points to stays valid.
    static let capacity = 512
    /// A power of two.
    static let bucketCount = 64

    private struct Table {
        var buckets = [[Entry]](repeating: [], count: bucketCount)
        var count = 0

        func entry(_ key: Key) -> Entry? {
            let bucket = buckets[key.bucket]
            for index in bucket.indices where bucket[index].key == key { return bucket[index] }
            return nil
        }
    }

    private static let table = Locked(Table())
    /// The entry a lookup found or added last.
    private static let lastFound = LastFound<Entry>()

    /// The compiled shape of `key`, if kept.
    static func entry(_ key: Key) -> Entry? {
        if let last = lastFound.entry(), last.key == key { return last }
        guard let entry = table.withLock({ $0.entry(key) }) else { return nil }
        lastFound.remember(entry)
        return entry
    }

    /// Keeps `entry`, unless its shape is kept already (another thread
    /// compiled it meanwhile: the same text) or the cache is full.
    static func add(_ entry: Entry) {
        let kept = table.withLock { table -> Bool in
            guard table.count < capacity, table.entry(entry.key) == nil else { return false }
            table.buckets[entry.key.bucket].append(entry)
            table.count += 1
            return true
        }
        if kept { lastFound.remember(entry) }
    }
}
