/// Checking that a store's tables have the shape its schema says.
extension TableDefinition {
    /// What is missing or different in the table of this name on
    /// `connection`, or `nil` when it has every column and index this
    /// definition has (extra columns and indexes are allowed). Reads only
    /// the catalogue, no row. The catalogue holds stored names, which differ
    /// from the schema's for long names on PostgreSQL (``SQLDialect/storedName(_:)``).
    func mismatch(on connection: Connection) throws -> String? {
        let stored = connection.dialect.storedName
        let present = try connection.columnNames(of: stored(name))
        guard !present.isEmpty else { return "the table \(name) is missing" }
        if let missing = columns.first(where: { !present.contains(stored($0.name)) }) {
            return "the table \(name) has no column \(missing.name)"
        }
        let indexes = try connection.indexes(of: stored(name))
        for index in self.indexes {
            guard let unique = indexes[stored(index.name)] else {
                return "the table \(name) has no index \(index.name)"
            }
            if index.isUnique, !unique { return "the index \(index.name) is not unique" }
        }
        return nil
    }
}
