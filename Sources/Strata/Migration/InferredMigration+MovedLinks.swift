/// The links of a relationship whose storage a step moves, as Core Data's
/// lightweight migration carries them instead of the relationship starting
/// empty: a to-one becoming a to-many (or its one-to-many partner becoming a
/// many-to-many) moves from a foreign-key column to a link table, and each
/// key the column held becomes one link; a relationship without an inverse
/// that gains an inverse to-one moves from its link table, or its own
/// to-one column, to that to-one's column on the other side.
extension InferredMigration {
    /// Fills the link table `table` (being built under its temporary name)
    /// from the foreign-key column that stored the relationship before, when
    /// one side of the relationship continues a to-one, or a one-to-many
    /// kept by its members' to-one, between the same entities' predecessors:
    ///
    /// ```sql
    /// INSERT INTO "_strata_migrating__strata_link_Shelter_strays" ("source", "target")
    ///     SELECT "shelter", "_pk" FROM "Stray" WHERE "shelter" IS NOT NULL
    ///         AND "shelter" IN (SELECT "_pk" FROM "_strata_migrating_Shelter")
    ///         AND "_pk" IN (SELECT "_pk" FROM "_strata_migrating_Stray")
    /// ```
    ///
    /// Only links whose two objects the step carried are written.
    func copyLinksFromForeignKeys(
        _ table: TableDefinition, sources: [String: EntityDescription], on connection: Connection
    ) throws {
        // Either side of the pair may continue a to-one; the side whose old
        // one-to-many kept positions, when it is ordered still, gives them.
        var chosen: (RelationshipDescription, ForeignKeyLinks)?
        for entity in destination.entities {
            for relationship in entity.relationships.values.sorted(by: { $0.name < $1.name })
            where relationship.entity == entity.name {
                guard case let .linkTable(name, _, _, order) = relationship.storage,
                      name == table.name,
                      let old = sources[entity.name],
                      let previous = RenameMatching.match(
                          [relationship], in: Array(old.relationships.values)).first ?? nil,
                      carriesLinks(from: previous.target, to: relationship.target),
                      var keys = foreignKeyLinks(of: previous)
                else { continue }
                if order == nil { keys.position = nil }
                if chosen == nil || (chosen?.1.position == nil && keys.position != nil) {
                    chosen = (relationship, keys)
                }
            }
        }
        guard let (relationship, keys) = chosen,
              case let .linkTable(_, ownerColumn, targetColumn, order) = relationship.storage,
              let owner = destination.entity(named: relationship.entity),
              let target = destination.entity(named: relationship.target)
        else { return }
        func building(_ name: String) -> String {
            "(SELECT \"_pk\" FROM \(SQL.quote(Self.temporaryPrefix + name)))"
        }
        var columns = [ownerColumn, targetColumn].map(SQL.quote)
        var values = [keys.owner, keys.target]
        if let order, let position = keys.position {
            columns.append(SQL.quote(order))
            values.append(position)
        }
        try connection.execute(
            "INSERT INTO \(SQL.quote(Self.temporaryPrefix + table.name)) "
                + "(\(columns.joined(separator: ", "))) "
                + "SELECT \(values.joined(separator: ", ")) FROM \(keys.table) "
                + "WHERE \(keys.column) IS NOT NULL AND \(keys.owner) IN \(building(owner.tableName)) "
                + "AND \(keys.target) IN \(building(target.tableName))")
    }

    /// Where an old relationship kept its links in a foreign-key column.
    struct ForeignKeyLinks {
        /// The old table.
        var table: String
        /// The key column, quoted.
        var column: String
        /// The expressions reading each link's owner and target row IDs.
        var owner: String
        var target: String
        /// The member's old position, for an ordered one-to-many.
        var position: String?
    }

    /// Where the old relationship `previous` kept its links in a foreign-key
    /// column; `nil` for a link table.
    private func foreignKeyLinks(of previous: RelationshipDescription) -> ForeignKeyLinks? {
        switch previous.storage {
        case .foreignKey(let slot):
            // A to-one: the owner's row holds the target's row ID.
            guard let owner = source.entity(named: previous.entity) else { return nil }
            let column = SQL.quote(owner.attributes[slot].name)
            return ForeignKeyLinks(
                table: owner.quotedTable, column: column, owner: SQL.quote("_pk"), target: column)
        case let .inverseForeignKey(targetSlot, orderSlot):
            // A one-to-many: each member's row holds its owner's row ID (and its position).
            guard let member = source.entity(named: previous.target) else { return nil }
            let column = SQL.quote(member.attributes[targetSlot].name)
            return ForeignKeyLinks(
                table: member.quotedTable, column: column, owner: column, target: SQL.quote("_pk"),
                position: orderSlot.map { SQL.quote(member.attributes[$0].name) })
        case .linkTable:
            return nil
        }
    }

    /// The SQL that reads, for a row of `old`, the key of the new to-one
    /// `attribute` of `entity` from where the relationship's inverse kept
    /// its links before: the inverse (its owner's successor continuing a
    /// relationship to `old`'s entity) was stored in a link table, or was a
    /// to-one whose column pointed at this row. `nil` when neither holds.
    ///
    /// ```sql
    /// (SELECT min(l."source") FROM "_strata_link_Host_labels" AS l WHERE l."target" = "Label"."_pk")
    /// (SELECT min(o."_pk") FROM "Host" AS o WHERE o."buddy" = "Pal"."_pk")
    /// ```
    ///
    /// An object the old relationship linked to several owners keeps the
    /// one with the smallest row ID: a to-one holds one.
    ///
    /// `row` is the row ID the subquery looks up: by default the old row's,
    /// for the copy's `SELECT`; a transform, which inserts rows one by one,
    /// updates its new table afterwards with that table's.
    func keysFromInverse(
        of attribute: AttributeDescription, in entity: EntityDescription, old: EntityDescription,
        row: String? = nil
    ) -> String? {
        guard case .foreignKey(let name) = attribute.kind,
              let relationship = entity.relationships[name],
              let inverseName = relationship.inverse,
              let owner = destination.entity(named: relationship.target),
              let inverse = owner.relationships[inverseName],
              let oldOwner = zip(destination.entities, predecessors).first(where: {
                  $0.0.name == inverse.entity
              })?.1,
              let previous = RenameMatching.match(
                  [inverse], in: Array(oldOwner.relationships.values)).first ?? nil,
              successorName(of: previous.target) == inverse.target
        else { return nil }
        let row = row ?? "\(old.quotedTable).\"_pk\""
        switch previous.storage {
        case .linkTable where inverse.isToOne:
            // A to-many made a one-to-one: its own new column starts empty
            // (a to-many becoming a to-one does), so this side does too.
            return nil
        case let .linkTable(table, ownerColumn, targetColumn, _):
            return "(SELECT min(l.\(SQL.quote(ownerColumn))) FROM \(SQL.quote(table)) AS l "
                + "WHERE l.\(SQL.quote(targetColumn)) = \(row))"
        case .foreignKey(let slot):
            guard let declaring = source.entity(named: previous.entity) else { return nil }
            return "(SELECT min(o.\"_pk\") FROM \(declaring.quotedTable) AS o "
                + "WHERE o.\(SQL.quote(declaring.attributes[slot].name)) = \(row))"
        case .inverseForeignKey:
            return nil
        }
    }
}
