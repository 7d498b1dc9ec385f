/// Checking that a store's tables have the shape its schema says.
extension TableDefinition {
    /// What is missing or different in the table of this name on
    /// `connection`, or `nil` when it has every column and index this
    /// definition has (extra columns and indexes are allowed). Reads only
    /// the catalogue, no row.
    func mismatch(on connection: Connection) throws -> String? {
        let present = try connection.columnNames(of: name)
        guard !present.isEmpty else { return "the table \(name) is missing" }
        if let missing = columns.first(where: { !present.contains($0.name) }) {
            return "the table \(name) has no column \(missing.name)"
        }
        let indexes = try connection.indexes(of: name)
        for index in self.indexes {
            guard let unique = indexes[connection.dialect.indexName(index.name)] else {
                return "the table \(name) has no index \(index.name)"
            }
            if index.isUnique, !unique { return "the index \(index.name) is not unique" }
        }
        return nil
    }
}
