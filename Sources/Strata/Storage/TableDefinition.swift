/// The shape of one table, independent of objects: what the schema asks the
/// storage layer to create.
struct TableDefinition: Sendable, Equatable {
    struct Column: Sendable, Equatable {
        var name: String
        /// The storage class (`INTEGER`, `REAL`, `TEXT`, `BLOB`, or empty for
        /// any); ``SQLDialect/columnType(_:)`` says how each engine declares it.
        var type: String
        var isPrimaryKey = false
    }

    struct Index: Sendable, Equatable {
        var name: String
        var columns: [String]
        var isUnique: Bool
    }

    var name: String
    var columns: [Column]
    var indexes: [Index]
    var primaryKey: [String]?

    /// The statements that create the table and its indexes, naming them by
    /// their schema names (see ``SQLDialect/storedName(_:)``).
    func createStatements(in dialect: SQLDialect) -> [String] {
        var columnSQL = columns.map { column -> String in
            var text = SQL.quote(column.name)
            let type = dialect.columnType(column.type)
            if !type.isEmpty { text += " " + type }
            if column.isPrimaryKey { text += " PRIMARY KEY" }
            return text
        }
        if let primaryKey {
            columnSQL.append("PRIMARY KEY (\(primaryKey.map(SQL.quote).joined(separator: ", ")))")
        }
        var statements = [
            "CREATE TABLE \(SQL.quote(name)) (\(columnSQL.joined(separator: ", ")))"
        ]
        for index in indexes {
            statements.append(
                "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(SQL.quote(index.name)) ON "
                    + "\(SQL.quote(name)) (\(index.columns.map(SQL.quote).joined(separator: ", ")))")
        }
        return statements
    }
}
