/// Checking that a store's tables have the shape its schema says.
extension TableDefinition {
    /// What is missing or different in the table of this name on
    /// `connection`, or `nil` when it has every column and index this
    /// definition has (extra columns and indexes are allowed). Reads only
    /// the catalogue: a few pragmas, no row.
    func mismatch(on connection: Connection) throws -> String? {
        let columnRows = try connection.query("SELECT name FROM pragma_table_info(?)", [.text(name)]) {
            $0.value(at: 0)
        }
        guard !columnRows.isEmpty else { return "the table \(name) is missing" }
        let present = Set(columnRows.compactMap { value -> String? in
            if case .text(let text) = value { return text }
            return nil
        })
        if let missing = columns.first(where: { !present.contains($0.name) }) {
            return "the table \(name) has no column \(missing.name)"
        }
        let indexRows = try connection.query(
            "SELECT name, \"unique\" FROM pragma_index_list(?)", [.text(name)]
        ) { ($0.value(at: 0), $0.value(at: 1)) }
        var indexes: [String: Bool] = [:]
        for case (.text(let index), .integer(let unique)) in indexRows { indexes[index] = unique != 0 }
        for index in self.indexes {
            guard let unique = indexes[index.name] else {
                return "the table \(name) has no index \(index.name)"
            }
            if index.isUnique, !unique { return "the index \(index.name) is not unique" }
        }
        return nil
    }
}
