/// A query compiled to one SQL statement, with the names of its columns.
struct CompiledQuery {
    var sql: String
    var arguments: [StoredValue]
    /// The terms' names, one a column.
    var names: [String]
    /// Whether one more column follows the terms: the discriminator of an
    /// inheritance tree's row, which names the entity of its objectID terms.
    var readsEntity = false
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
        // A clause named by a string that names no usable field (in SQL order).
        if let problem = select.terms.lazy.compactMap(\.problem).first ?? select.problem ?? groupBy?.problem {
            throw problem
        }
        try from.order?.check()
        var compiler = SQLCompiler(schema: schema, dialect: dialect)
        let alias = SQLCompiler.rootAlias
        // A path is compiled once and its text reused wherever the query reads
        // it: PostgreSQL accepts a selected or sorted path of a grouped query
        // only when its text is that of a `GROUP BY` term, and each compile
        // of a path through a relationship names its subquery's table afresh.
        var paths: [ValuePath: String] = [:]
        func value(_ path: ValuePath) -> String {
            if let sql = paths[path] { return sql }
            let sql = compiler.value(path, in: entity, alias: alias)
            paths[path] = sql
            return sql
        }
        // Arguments bind in the order their placeholders appear, so clauses compile in SQL order.
        var columns = try select.terms.map { term in
            guard term.function.isPerObject else {
                return "\(term.sql(value: term.path.map(value), dialect: dialect)) AS \(SQL.quote(term.name))"
            }
            guard groupBy?.paths.isEmpty != false, !select.aggregates else {
                let what = term.function == .objectID ? "an object's ID is" : "a relationship's count is"
                throw StrataError.invalidValue(
                    entity: entity.name, field: term.name,
                    reason: "\(what) one per object, and a query with GroupBy "
                        + "or an aggregate returns rows that are not objects")
            }
            // The row ID; the context makes it the ID (ObjectContext+Querying.swift).
            guard term.function == .relatedCount, let relationship = term.path?.field else {
                return "\(alias)._pk AS \(SQL.quote(term.name))"
            }
            // A relationship's count is a subquery per object, not a value on a path.
            let count = try compiler.relatedCount(
                ValuePath(field: nil), relationship, in: entity, alias: alias)
            return "\(count.sql) AS \(SQL.quote(term.name))"
        }
        // An ID names its row's concrete entity: read the discriminator after the terms.
        let readsEntity = entity.sharesTable && select.terms.contains { $0.function == .objectID }
        if readsEntity { columns.append("\(alias).\(SQL.quote(EntityTree.discriminatorColumn))") }
        try checkGroupKeys(in: entity)
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(entity.quotedTable) AS \(alias)"
        if let condition = try compiler.condition(
            from.predicate?.predicate, in: entity, alias: alias,
            includingSubentities: from.options.includesSubentities
        ) {
            sql += " WHERE " + condition
        }
        let groupKeys = (groupBy?.paths ?? []).map(value)
        if !groupKeys.isEmpty {
            sql += " GROUP BY " + groupKeys.joined(separator: ", ")
            let sortTerms = (from.order?.keys ?? []).map { $0.sql(value: value($0.path)) }
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
            sql: sql, arguments: compiler.arguments, names: select.terms.map(\.name),
            readsEntity: readsEntity)
    }
}

extension QueryChain {
    /// Throws when a query whose rows are groups (it groups, or aggregates
    /// into one row) reads a value that is not a group key: a selected
    /// field, or in a grouped query a sort key. Such a value has no one
    /// value in a group: SQLite would answer with an arbitrary row's,
    /// PostgreSQL refuses (SQLSTATE 42803), and Core Data allows only group
    /// keys and aggregates beside a `GROUP BY`. Every store refuses it the same way.
    func checkGroupKeys(in entity: EntityDescription) throws {
        let keys = groupBy?.paths ?? []
        guard !keys.isEmpty || select.aggregates else { return }
        for term in select.terms where term.function == .value {
            guard let path = term.path, !keys.contains(path) else { continue }
            throw StrataError.invalidValue(
                entity: entity.name, field: term.name,
                reason: "a query with GroupBy or an aggregate returns one row per group, and "
                    + "\(path) is not a group key; group by it, or select an aggregate of it")
        }
        guard !keys.isEmpty else { return }  // one row: the order is not applied
        for key in from.order?.keys ?? [] where !keys.contains(key.path) {
            throw StrataError.invalidValue(
                entity: entity.name, field: key.path.description,
                reason: "a grouped query sorts its groups by their keys, and \(key.path) is "
                    + "not one of them")
        }
    }
}

extension SelectTerm {
    /// The term's SQL expression, without its name, given the SQL of its
    /// path's value (`nil` for a count of objects).
    func sql(value: String?, dialect: SQLDialect) -> String {
        guard let value else { return "count(*)" }
        switch function {
        case .value, .relatedCount, .objectID: return value
        case .sum where valueKind == .text || valueKind == .blob:
            return "coalesce(sum(\(dialect.leadingNumber(value))), 0.0)"
        case .average where valueKind == .text || valueKind == .blob:
            return dialect.average(dialect.leadingNumber(value))
        case .minimum where valueKind == .blob, .maximum where valueKind == .blob:
            return dialect.blobExtreme(function.rawValue, value)
        case .average where !isDecimal:
            return dialect.average(value)
        // A sum of no values is 0, not NULL, as Core Data's is (it sums with
        // SQLite's `total`, which would make a sum of integers a real).
        case .sum where valueKind == .integer:
            return "coalesce(\(dialect.integerSum(value)), 0)"
        case .sum where isDecimal:
            return "coalesce(strata_decimal_sum(\(value)), '0')"
        case .sum:
            return "coalesce(sum(\(value)), 0.0)"
        case .average, .minimum, .maximum:
            // `rawValue` is the SQL name: avg, min, max.
            return isDecimal ? "strata_decimal_\(function.rawValue)(\(value))" : "\(function.rawValue)(\(value))"
        case .count: return "count(\(value))"
        }
    }
}

