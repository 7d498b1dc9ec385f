import Foundation

/// The query operations the stack and transactions share. In a transaction
/// the read connection flushes pending changes first, so queries see them.
extension ObjectContext {
    /// The rows `query` returns, each a value a term, in term order.
    private func queryRows<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>, limit: Int? = nil
    ) throws -> (names: [String], rows: [[StoredValue]]) {
        let compiled = try query.compile(in: entity(Object.self), schema: schema, dialect: store.dialect, limit: limit)
        let count = Int32(compiled.names.count)
        let rows = try readRows(compiled.sql, compiled.arguments) { statement in
            (0..<count).map { statement.value(at: $0) }
        }
        return (compiled.names, rows)
    }

    func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ query: QueryChain<Object, Result>
    ) throws -> Result? {
        // A count, sum or average is a number, never a point in time (a `Date`
        // reads any number as seconds since 1970): as CoreStore, which reads
        // dates from date values only, it is nil as a `Date`.
        if Result.self == Date.self, query.select.terms.first?.function.computesNumber == true {
            return nil
        }
        guard let value = try queryRows(query, limit: 1).rows.first?.first, !value.isNull else {
            return nil
        }
        if let exact = try? Result(storedValue: value) { return exact }
        // A real (an average, a sum of reals) narrows as CoreStore reads it through
        // NSNumber: toward zero into an integer type, to the nearest `Float`.
        guard case .real(let real) = value, real.isFinite else { return nil }
        switch Result.storedType {
        case .integer:
            return Int64(exactly: real.rounded(.towardZero)).flatMap { try? Result(storedValue: .integer($0)) }
        case .real:
            return try? Result(storedValue: .real(Double(Float(real))))
        case .text, .blob:
            return nil
        }
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

    func fetchUnique<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        let entity = entity(Object.self)
        // Two rows are enough to tell one match from several.
        let select = try query.selectSQL(in: entity, schema: schema, dialect: store.dialect, limit: 2)
        let objects = try fetchObjects(entity, sql: select.sql, arguments: select.arguments, as: Object.self)
        return objects.count == 1 ? objects[0] : nil
    }
}
