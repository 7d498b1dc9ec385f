/// The fingerprint of a schema: the first 16 bytes, in hex, of the SHA-256 of
/// a canonical text that lists every table, column, column type, optionality
/// and index, sorted by name. It ignores the version name, default values,
/// delete rules and declaration order, which do not change what is stored,
/// and changes whenever anything stored does.
enum SchemaFingerprint {
    static func canonicalText(_ entities: [EntityDescription], linkTables: [TableDefinition]) -> String {
        var lines: [String] = []
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name)")
            if let tree = entity.tree {
                // Only entities of a tree have this line, so other entities'
                // text, and the fingerprints of schemas without inheritance, stay as they were.
                lines.append("  parent \(tree.parentName ?? "-") table \(tree.rootName)")
            }
            for attribute in entity.fieldAttributes.sorted(by: { $0.name < $1.name }) {
                var flags: [String] = [attribute.isOptional ? "optional" : "required"]
                if attribute.options.contains(.unique) { flags.append("unique") }
                if attribute.options.contains(.indexed) { flags.append("indexed") }
                let kind: String
                switch attribute.kind {
                case .stored: kind = "stored"
                case .coded: kind = "coded"
                case .foreignKey: kind = "to-one"
                case .order: kind = "order"
                case .discriminator: kind = "discriminator"
                }
                lines.append("  \(attribute.name) \(kind) \(attribute.storedType.rawValue) "
                             + flags.joined(separator: " "))
            }
            // Only a table with indexes over several fields has these lines, so
            // that the fingerprints of schemas without them stay as they were.
            if entity.ownsTable {
                lines += entity.compoundIndexes.map {
                    "  \($0.isUnique ? "unique" : "index") (\($0.fields.joined(separator: ", ")))"
                }.sorted()
            }
            // A subentity lists the relationships it declares, not the inherited ones.
            for relationship in entity.relationships.values.sorted(by: { $0.name < $1.name })
            where relationship.entity == entity.name {
                lines.append("  \(relationship.name) -> \(relationship.target) "
                             + "\(relationship.cardinality.rawValue) inverse "
                             + (relationship.inverse ?? "-"))
            }
        }
        for table in linkTables {
            lines.append("link \(table.name) " + table.columns.map(\.name).joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    static func compute(_ entities: [EntityDescription], linkTables: [TableDefinition]) -> String {
        let digest = SHA256.hash(Array(canonicalText(entities, linkTables: linkTables).utf8))
        return digest.prefix(16).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
