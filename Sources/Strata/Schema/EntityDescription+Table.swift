extension EntityDescription {
    /// The entity's table: `_pk INTEGER PRIMARY KEY`, then a column per
    /// attribute, an index per foreign key and per `.indexed` field, and a
    /// unique index per `.unique` field.
    var table: TableDefinition {
        var columns = [TableDefinition.Column(name: "_pk", type: "INTEGER", isPrimaryKey: true)]
        var indexes: [TableDefinition.Index] = []
        for attribute in attributes {
            // Doubles get no declared type: a REAL column would store -0.0 as the integer 0.
            let type = attribute.storedType == .real ? "" : attribute.storedType.rawValue
            columns.append(.init(name: attribute.name, type: type))
            if attribute.options.contains(.unique) {
                indexes.append(.init(
                    name: "\(name)_\(attribute.name)_unique", columns: [attribute.name],
                    isUnique: true))
            } else if attribute.options.contains(.indexed) {
                indexes.append(.init(
                    name: "\(name)_\(attribute.name)_index", columns: [attribute.name],
                    isUnique: false))
            }
        }
        return TableDefinition(name: name, columns: columns, indexes: indexes, primaryKey: nil)
    }
}
