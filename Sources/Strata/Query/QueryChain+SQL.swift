/// A query compiled to one SQL statement, with the names of its columns.
struct CompiledQuery {
    var sql: String
    var arguments: [StoredValue]
    /// The terms' names, one a column.
    var names: [String]
}

extension QueryChain {
    /// Compiles the query to
    /// `SELECT terms FROM "T" AS t0 WHERE ... GROUP BY ... ORDER BY ... LIMIT ? OFFSET ?`.
    /// `limit` caps the fetch limit (queryValue asks for 1).
    ///
    /// The order: a grouped query sorts by the order's keys, then by the group
    /// keys, so groups come in a total order; an ungrouped aggregate has one
    /// row and no `ORDER BY`; a selection of attributes sorts as a fetch does,
    /// ending with the row ID.
    func compile(
        in entity: EntityDescription, schema: Schema, dialect: SQLDialect, limit overrideLimit: Int? = nil
    ) throws -> CompiledQuery {
        var compiler = SQLCompiler(schema: schema, dialect: dialect)
        let alias = SQLCompiler.rootAlias
        // Arguments bind in the order their placeholders appear, so clauses compile in SQL order.
        let columns = select.terms.map { term in
            "\(term.sql(&compiler, in: entity, alias: alias)) AS \(SQL.quote(term.name))"
        }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(entity.quotedTable) AS \(alias)"
        if let condition = try compiler.condition(from.predicate?.predicate, in: entity, alias: alias) {
            sql += " WHERE " + condition
        }
        let groupKeys = (groupBy?.paths ?? []).map { compiler.value($0, in: entity, alias: alias) }
        if !groupKeys.isEmpty {
            sql += " GROUP BY " + groupKeys.joined(separator: ", ")
            let sortTerms = compiler.sortTerms(from.order, in: entity, alias: alias)
            sql +=
                " ORDER BY " + (sortTerms + groupKeys.map { "\($0) ASC NULLS FIRST" }).joined(separator: ", ")
        } else if !select.aggregates {
            sql += " ORDER BY " + compiler.order(from.order, in: entity, alias: alias)
        }
        let options = from.options
        let limit = overrideLimit.map { min($0, options.effectiveLimit ?? $0) } ?? options.effectiveLimit
        if limit != nil || options.fetchOffset > 0 {
            sql +=
                " LIMIT \(compiler.bind(.integer(SQL.limitValue(limit)))) "
                + "OFFSET \(compiler.bind(.integer(Int64(max(options.fetchOffset, 0)))))"
        }
        return CompiledQuery(
            sql: sql, arguments: compiler.arguments, names: select.terms.map(\.name))
    }
}

extension SelectTerm {
    /// The term's SQL expression, without its name.
    func sql(_ compiler: inout SQLCompiler, in entity: EntityDescription, alias: String) -> String {
        guard let path else { return "count(*)" }
        let value = compiler.value(path, in: entity, alias: alias)
        switch function {
        case .value: return value
        case .average where !isDecimal:
            return compiler.dialect.average(value)
        case .sum, .average, .minimum, .maximum:
            // `rawValue` is the SQL name: sum, avg, min, max.
            return isDecimal ? "strata_decimal_\(function.rawValue)(\(value))" : "\(function.rawValue)(\(value))"
        case .count: return "count(\(value))"
        }
    }
}

extension SQLCompiler {
    /// The `ORDER BY` terms of `order`'s keys alone, without the row ID, which
    /// a grouped query cannot sort by.
    fileprivate mutating func sortTerms<Object>(
        _ order: OrderBy<Object>?, in entity: EntityDescription, alias: String
    ) -> [String] {
        var terms: [String] = []
        for key in order?.keys ?? [] {
            var expression = value(key.path, in: entity, alias: alias)
            if !key.options.isEmpty {
                expression = "strata_fold(\(expression), \(key.options.rawValue))"
            }
            let direction = key.isAscending ? "ASC" : "DESC"
            terms.append("\(expression) \(direction) NULLS \(key.nullsFirst ? "FIRST" : "LAST")")
        }
        return terms
    }
}
