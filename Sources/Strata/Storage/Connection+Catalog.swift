/// What a store's catalogue says: its tables, their columns and indexes.
/// Reads no row of data. Names are as stored, which on PostgreSQL differs
/// from the schema's for a name past 63 bytes (``SQLDialect/storedName(_:)``).
extension Connection {
    /// The names of the store's tables (SQLite's own left out; on a server,
    /// the tables of the store's schema).
    func tableNames() throws -> [String] {
        let sql = switch dialect {
        case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        case .postgreSQL: "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()"
        }
        return try query(sql) { $0.value(at: 0) }.compactMap { value in
            if case .text(let name) = value { return name }
            return nil
        }
    }

    /// Whether the store has a table named `name` in the schema.
    func hasTable(_ name: String) throws -> Bool {
        try tableNames().contains(dialect.storedName(name))
    }

    /// The column names of table `name`; empty when there is no such table.
    func columnNames(of table: String) throws -> Set<String> {
        let sql = switch dialect {
        case .sqlite: "SELECT name FROM pragma_table_info(?)"
        case .postgreSQL:
            "SELECT column_name::text FROM information_schema.columns "
                + "WHERE table_schema = current_schema() AND table_name = ?"
        }
        return Set(try query(sql, [.text(table)]) { $0.value(at: 0) }.compactMap { value in
            if case .text(let name) = value { return name }
            return nil
        })
    }

    /// The indexes of table `name`, each with whether it is unique.
    func indexes(of table: String) throws -> [String: Bool] {
        let sql = switch dialect {
        case .sqlite: "SELECT name, \"unique\" FROM pragma_index_list(?)"
        case .postgreSQL:
            "SELECT c.relname::text, i.indisunique::int FROM pg_index i "
                + "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid "
                + "WHERE t.relnamespace = current_schema()::regnamespace AND t.relname = ?"
        }
        var indexes: [String: Bool] = [:]
        for case (.text(let index), .integer(let unique)) in try query(sql, [.text(table)], {
            ($0.value(at: 0), $0.value(at: 1))
        }) {
            indexes[index] = unique != 0
        }
        return indexes
    }
}
