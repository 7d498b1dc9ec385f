/// Compiles a fetch to SQL. Identifiers come from the schema and are quoted;
/// every value is a bound parameter.
struct CompiledFetch {
    /// ` WHERE ... ORDER BY ... LIMIT ? OFFSET ?`, to follow `SELECT ... FROM "T"`.
    var clauses: String
    var arguments: [StoredValue]
}

extension From {
    func compile(in entity: EntityDescription, limit overrideLimit: Int? = nil) throws -> CompiledFetch {
        var sql = ""
        var arguments: [StoredValue] = []
        if let predicate {
            sql += " WHERE " + (try Self.compile(predicate.predicate, entity, &arguments))
        }
        let keys = (order?.keys ?? []).map { key in
            "\(column(key.field, in: entity)) \(key.isAscending ? "ASC" : "DESC")"
        }
        sql += " ORDER BY " + (keys + ["_pk ASC"]).joined(separator: ", ")
        let limit = overrideLimit.map { min($0, options.fetchLimit ?? $0) } ?? options.fetchLimit
        if limit != nil || options.fetchOffset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments.append(.integer(Int64(max(limit ?? -1, -1))))
            arguments.append(.integer(Int64(max(options.fetchOffset, 0))))
        }
        return CompiledFetch(clauses: sql, arguments: arguments)
    }

    private static func compile(
        _ predicate: Where<Object>.Predicate, _ entity: EntityDescription, _ arguments: inout [StoredValue]
    ) throws -> String {
        switch predicate {
        case .constant(let value):
            return value ? "1" : "0"
        case let .compare(field, op, value):
            let name = column(field, in: entity)
            if case .null = value {
                switch op {
                case .equal: return "\(name) IS NULL"
                case .notEqual: return "\(name) IS NOT NULL"
                default: return "0"   // an order comparison with NULL is never true
                }
            }
            arguments.append(value)
            return op == .notEqual ? "\(name) IS NOT ?" : "\(name) \(op.rawValue) ?"
        case let .and(lhs, rhs):
            return "(\(try compile(lhs, entity, &arguments)) AND \(try compile(rhs, entity, &arguments)))"
        case let .or(lhs, rhs):
            return "(\(try compile(lhs, entity, &arguments)) OR \(try compile(rhs, entity, &arguments)))"
        case .not(let inner):
            // A comparison with a NULL field is NULL in SQL and false in Swift; make
            // it false before negating, so that `!` agrees with the in-memory answer.
            return "NOT coalesce(\(try compile(inner, entity, &arguments)), 0)"
        case .invalid(let error):
            throw error
        }
    }
}

private func column(_ field: String, in entity: EntityDescription) -> String {
    guard entity.slot(of: field) != nil else {
        preconditionFailure("Strata: \(entity.name) has no stored field '\(field)'.")
    }
    return SQL.quote(field)
}
