extension Schema {
    /// Names the store would give two things at once. Strata derives table and
    /// index names by joining names with `_` (`Person_age_index`,
    /// `_strata_link_Person_friends`), so distinct declarations can meet:
    /// entity `A` with field `b_c` and entity `A_b` with field `c` both index
    /// into `A_b_c_index`. SQLite keeps tables and indexes in one namespace,
    /// without case, and would refuse the second when the store is created;
    /// two relationships meeting in one link table would silently share its
    /// rows. Either is refused here, as a schema mistake.
    static func nameClashes(
        _ entities: [EntityDescription], linkTables: [TableDefinition]
    ) -> [StrataError] {
        var problems: [StrataError] = []
        // The relationships stored in each link table: one, or one and its inverse.
        var linkOwners: [String: Set<String>] = [:]
        for entity in entities {
            for relationship in entity.relationships.values.sorted(by: { $0.name < $1.name })
            where relationship.entity == entity.name {
                guard case .linkTable(let table, _, _, _) = relationship.storage else { continue }
                let this = "\(relationship.entity).\(relationship.name)"
                let inverse = relationship.inverse.map { "\(relationship.target).\($0)" }
                let pair = Set([this] + (inverse.map { [$0] } ?? []))
                if let owners = linkOwners[table], owners != pair {
                    problems.append(.invalidSchema(
                        entity: entity.name, field: relationship.name,
                        reason: "its link table \(table) is also the one of "
                            + "\(owners.sorted().joined(separator: " and ")); rename the relationship "
                            + "or its entity (names joined with _ meet)"))
                } else {
                    linkOwners[table] = pair
                }
            }
        }
        // Every table and index, by its name without case.
        var named: [String: String] = [:]
        func claim(_ name: String, _ what: String, entity: String, field: String?) {
            if let other = named[name.lowercased()] {
                problems.append(.invalidSchema(
                    entity: entity, field: field,
                    reason: "\(what) and \(other) would both be named \(name); rename the field "
                        + "or the entity (names joined with _ meet)"))
            } else {
                named[name.lowercased()] = what
            }
        }
        for entity in entities where entity.ownsTable {
            let table = entity.table
            claim(table.name, "the table of \(entity.name)", entity: entity.name, field: nil)
            for index in table.indexes {
                claim(
                    index.name, "the index of \(table.name) on \(index.columns.joined(separator: ", "))",
                    entity: entity.name, field: index.columns.count == 1 ? index.columns[0] : nil)
            }
        }
        for table in linkTables {
            claim(table.name, "the link table \(table.name)", entity: table.name, field: nil)
            for index in table.indexes {
                claim(index.name, "the index of \(table.name)", entity: table.name, field: nil)
            }
        }
        return problems
    }
}
