/// A fetch compiled to SQL: the clauses that follow `SELECT ... FROM "T" AS t0`.
struct CompiledFetch {
    /// ` WHERE ... ORDER BY ... LIMIT ? OFFSET ?`.
    var clauses: String
    var arguments: [StoredValue]
}

extension From {
    /// Compiles the predicate, order and tweak. `limit` caps the fetch limit
    /// (fetchOne asks for 1); limit and offset are applied once, here.
    func compile(in entity: EntityDescription, schema: Schema, limit overrideLimit: Int? = nil) throws -> CompiledFetch {
        var compiler = SQLCompiler(schema: schema)
        let alias = SQLCompiler.rootAlias
        var sql = ""
        if let predicate {
            sql += " WHERE " + (try compiler.predicate(predicate.predicate, in: entity, alias: alias))
        }
        sql += " ORDER BY " + compiler.order(order, in: entity, alias: alias)
        let limit = overrideLimit.map { min($0, options.effectiveLimit ?? $0) } ?? options.effectiveLimit
        if limit != nil || options.fetchOffset > 0 {
            sql += " LIMIT \(compiler.bind(.integer(Int64(max(limit ?? -1, -1))))) "
                + "OFFSET \(compiler.bind(.integer(Int64(max(options.fetchOffset, 0)))))"
        }
        return CompiledFetch(clauses: sql, arguments: compiler.arguments)
    }
}
