/// A fetch compiled to SQL: the clauses that follow `SELECT ... FROM "T" AS t0`.
struct CompiledFetch {
    /// ` WHERE ... ORDER BY ... LIMIT ? OFFSET ?`.
    var clauses: String
    var arguments: [StoredValue]
}

/// The rows a bulk write changes, compiled: `DELETE FROM <table> WHERE
/// <condition>`, `UPDATE <table> SET ... WHERE <condition>`.
struct CompiledTarget {
    /// The table, with the alias the condition reads it by.
    var table: String
    /// The condition, or `nil` for every row.
    var condition: String?
    var arguments: [StoredValue]

    /// ` WHERE <condition>`, or nothing.
    var whereClause: String { condition.map { " WHERE " + $0 } ?? "" }

}

extension From {
    /// Compiles the predicate, order and tweak. `limit` caps the fetch limit
    /// (fetchOne asks for 1); limit and offset are applied once, here.
    /// Without `ordered`, no `ORDER BY`: for counts, which no order changes
    /// (how many of the matches a limit and an offset leave is the same in
    /// any order), and which would otherwise sort every match under a limit.
    func compile(
        in entity: EntityDescription, schema: Schema, dialect: SQLDialect,
        limit overrideLimit: Int? = nil, ordered: Bool = true
    ) throws -> CompiledFetch {
        // An order a count does not apply is still refused when it is invalid.
        try order?.check()
        var compiler = SQLCompiler(schema: schema, dialect: dialect)
        let limit = overrideLimit.map { min($0, options.effectiveLimit ?? $0) } ?? options.effectiveLimit
        let clauses = try clauses(&compiler, in: entity, limit: limit, ordered: ordered)
        return CompiledFetch(clauses: clauses, arguments: compiler.arguments)
    }

    /// Compiles the rows the query selects as the target of a `DELETE` or
    /// an `UPDATE`.
    ///
    /// Without a limit or offset: `"T" AS t0 WHERE ...`, and no `ORDER BY`,
    /// which would only cost. With one: `"T" WHERE _pk IN (SELECT t0._pk FROM
    /// "T" AS t0 WHERE ... ORDER BY ... LIMIT ? OFFSET ?)`, exactly the
    /// objects `fetchAll` returns (SQLite orders a `DELETE` only with a
    /// `LIMIT`, and PostgreSQL has no `DELETE ... LIMIT`).
    func compileTarget(in entity: EntityDescription, schema: Schema, dialect: SQLDialect) throws -> CompiledTarget {
        try order?.check()
        var compiler = SQLCompiler(schema: schema, dialect: dialect)
        let alias = SQLCompiler.rootAlias
        guard options.effectiveLimit != nil || options.fetchOffset > 0 else {
            let condition = try compiler.condition(
                predicate?.predicate, in: entity, alias: alias,
                includingSubentities: options.includesSubentities)
            return CompiledTarget(
                table: "\(entity.quotedTable) AS \(alias)", condition: condition, arguments: compiler.arguments)
        }
        let clauses = try clauses(&compiler, in: entity, limit: options.effectiveLimit)
        return CompiledTarget(
            table: entity.quotedTable,
            condition: "_pk IN (SELECT \(alias)._pk FROM \(entity.quotedTable) AS \(alias)\(clauses))",
            arguments: compiler.arguments)
    }

    private func clauses(
        _ compiler: inout SQLCompiler, in entity: EntityDescription, limit: Int?,
        ordered: Bool = true
    ) throws -> String {
        let alias = SQLCompiler.rootAlias
        var sql = ""
        if let condition = try compiler.condition(
            predicate?.predicate, in: entity, alias: alias, includingSubentities: options.includesSubentities
        ) {
            sql += " WHERE " + condition
        }
        if ordered { sql += " ORDER BY " + compiler.order(order, in: entity, alias: alias) }
        if limit != nil || options.fetchOffset > 0 {
            sql += " LIMIT \(compiler.bind(.integer(SQL.limitValue(limit)))) "
                + "OFFSET \(compiler.bind(.integer(Int64(max(options.fetchOffset, 0)))))"
        }
        return sql
    }
}

extension SQLCompiler {
    /// The condition a query's rows meet: its predicate, and for an entity
    /// of an inheritance tree that is not its root, that the row is of the
    /// entity or a subentity (or, without `includingSubentities`, for any
    /// entity of a tree, that the row is of the entity itself); `nil` when
    /// every row of the table is kept.
    ///
    /// ```sql
    /// t0."_entity" IN (?, ?) AND (t0."age" >= ?)
    /// ```
    mutating func condition(
        _ predicate: WherePredicate?, in entity: EntityDescription, alias: String,
        includingSubentities: Bool = true
    ) throws -> String? {
        // Bound in the order the placeholders appear: the discriminator's first.
        let discriminator = entity.discriminatorCondition(
            alias: alias, includingSubentities: includingSubentities)
        for value in discriminator?.arguments ?? [] { _ = bind(value) }
        guard let predicate else { return discriminator?.sql }
        let sql = try self.predicate(predicate, in: entity, alias: alias)
        guard let discriminator else { return sql }
        return "\(discriminator.sql) AND (\(sql))"
    }
}
