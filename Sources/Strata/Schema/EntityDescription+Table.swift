extension EntityDescription {
    /// The entity's table: `_pk INTEGER PRIMARY KEY`, then a column per
    /// attribute, an index per foreign key and per `.indexed` field, a
    /// unique index per `.unique` field, and one per compound index or
    /// unique constraint.
    ///
    /// In an inheritance tree only the root has a table, named after it: it
    /// holds the discriminator (`_entity TEXT`, indexed) and the columns of
    /// every entity of the tree, with their indexes named after the table.
    var table: TableDefinition {
        var columns = [TableDefinition.Column(name: "_pk", type: "INTEGER", isPrimaryKey: true)]
        var indexes: [TableDefinition.Index] = []
        for attribute in attributes {
            columns.append(.init(name: attribute.name, type: attribute.storedType.rawValue))
            if attribute.kind == .discriminator {
                // `<table>__entity_index`: no field's index has two underscores there.
                indexes.append(.init(
                    name: "\(tableName)_\(attribute.name)_index", columns: [attribute.name],
                    isUnique: false))
            } else if attribute.options.contains(.unique) {
                indexes.append(.init(
                    name: "\(tableName)_\(attribute.name)_unique", columns: [attribute.name],
                    isUnique: true))
            } else if attribute.options.contains(.indexed) {
                indexes.append(.init(
                    name: "\(tableName)_\(attribute.name)_index", columns: [attribute.name],
                    isUnique: false))
            }
        }
        for index in compoundIndexes {
            indexes.append(.init(name: index.name(in: tableName), columns: index.fields, isUnique: index.isUnique))
        }
        return TableDefinition(name: tableName, columns: columns, indexes: indexes, primaryKey: nil)
    }

    /// Whether the entity owns a table: it is outside any tree, or a tree's root.
    var ownsTable: Bool { tableIndex == index }
}
