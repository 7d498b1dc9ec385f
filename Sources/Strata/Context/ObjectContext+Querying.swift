import Foundation

/// The query operations the stack and transactions share. In a transaction
/// the read connection flushes pending changes first, so queries see them,
/// unless the query's tweak leaves them out (``ReadScope``).
extension ObjectContext {
    /// The rows `query` returns, each a value a term, in term order.
    private func queryRows<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>, limit: Int? = nil
    ) throws -> (names: [String], rows: [[StoredValue]]) {
        let compiled = try query.compile(in: entity(Object.self), schema: schema, dialect: store.dialect, limit: limit)
        let count = Int32(compiled.names.count)
        let rows = try readRows(compiled.sql, compiled.arguments, scope: ReadScope(query.from.options)) { statement in
            (0..<count).map { statement.value(at: $0) }
        }
        return (compiled.names, rows)
    }

    func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ query: QueryChain<Object, Result>
    ) throws -> Result? {
        guard let value = try queryRows(query, limit: 1).rows.first?.first, !value.isNull else {
            return nil
        }
        // Read as CoreStore reads it (SelectTerm+Reading.swift).
        return query.select.terms[0].read(value, as: Result.self)
    }

    func queryAttributes<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>
    ) throws -> [[String: StoredValue]] {
        let (names, rows) = try queryRows(query)
        return rows.map { row in
            var attributes: [String: StoredValue] = [:]
            for (name, value) in zip(names, row) where !value.isNull {
                attributes[name] = value
            }
            return attributes
        }
    }

}
