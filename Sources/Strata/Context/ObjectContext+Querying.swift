import Foundation

/// The query operations the stack and transactions share. In a transaction
/// the read connection flushes pending changes first, so queries see them,
/// unless the query's tweak leaves them out (``ReadScope``).
extension ObjectContext {
    /// The rows `query` returns, each a value a term, in term order; an
    /// objectID term's value is the row's ID, as its text (`"Person/42"`).
    private func queryRows<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>, limit: Int? = nil
    ) throws -> (names: [String], rows: [[StoredValue]]) {
        let (names, rows) = try queryRowsWithIDs(query, limit: limit)
        return (names, rows.map { row in
            row.values.enumerated().map { column, value in
                guard query.select.terms[column].function == .objectID, case .integer(let rowID) = value
                else { return value }
                let id = AnyObjectID(
                    entityName: row.entity.name, rowID: rowID, configuration: row.entity.configuration)
                return .text(id.description)
            }
        })
    }

    /// The rows `query` returns, each with the entity of its object: the
    /// one queried, or in an inheritance tree, when the query selects an
    /// objectID term, the entity its discriminator names.
    private func queryRowsWithIDs<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>, limit: Int? = nil
    ) throws -> (names: [String], rows: [(values: [StoredValue], entity: EntityDescription)]) {
        let entity = entity(Object.self)
        let compiled = try query.compile(in: entity, schema: schema, dialect: store.dialect, limit: limit)
        let count = Int32(compiled.names.count)
        let tree = compiled.readsEntity ? TreeRows(entity, schema: schema) : nil
        let rows = try readRows(compiled.sql, compiled.arguments, scope: ReadScope(query.from.options)) {
            statement in
            let values = (0..<count).map { statement.value(at: $0) }
            // A row of another branch cannot match a query of this entity's family.
            let concrete = tree.flatMap { $0.entity(named: statement.value(at: count)) } ?? entity
            return (values, concrete)
        }
        return (compiled.names, rows)
    }

    /// The ID the first row's first term names, when that term is
    /// ``SelectTerm/objectID(as:)``; `nil` for no row or another term.
    func queryObjectID<Object: ManagedObject>(
        _ query: QueryChain<Object, ObjectID<Object>>
    ) throws -> ObjectID<Object>? {
        let row = try queryRowsWithIDs(query, limit: 1).rows.first
        guard query.select.terms[0].function == .objectID, let row, case .integer(let rowID) = row.values[0]
        else { return nil }
        return ObjectID(entityName: row.entity.name, rowID: rowID, configuration: row.entity.configuration)
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
