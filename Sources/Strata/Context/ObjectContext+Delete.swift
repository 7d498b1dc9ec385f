/// Deleting objects and applying delete rules.
extension ObjectContext {
    /// Deletes `object`, applying each relationship's delete rule: nullify
    /// unlinks, cascade deletes, deny is checked when the transaction commits.
    func delete(_ object: ManagedObject) throws {
        try exclusively { try deleteObject(object) }
    }

    private func deleteObject(_ object: ManagedObject) throws {
        guard !object.isDeleted else { return }
        let entity = object.entity!
        let undoRecord = undoHistory?.recording(in: self)
        undoRecord?.noteObject(object)
        if object.isWritten {
            willChange(object)
        }
        object.isDeleted = true
        for relationship in entity.relationships.values.sorted(by: { $0.name < $1.name }) {
            let related = try loadRelated(of: object, relationship)
            switch relationship.deleteRule {
            case .deny:
                guard !related.isEmpty else { break }
                let owner = ObjectKey(entity, object.rowID)
                let check: DenyCheck
                if DenyCheck.isJudgedByRelatedRows(relationship, inverse: inverse(of: relationship)) {
                    check = DenyCheck(relationship: relationship, rowIDs: related.map(\.rowID), owner: owner)
                } else {
                    check = DenyCheck(relationship: relationship, rowIDs: [object.rowID], owner: owner)
                }
                denyChecks.append(check)
                if let undoRecord {
                    undoRecord.noteDenial(of: object, check)
                    // The commit deletes these links once their other ends are gone too.
                    if case let .linkTable(table, ownerColumn, _, _) = relationship.storage {
                        try undoRecord.noteLinks(in: table, where: ownerColumn, is: object.rowID)
                    }
                }
            case .cascade:
                try unlink(object, relationship, from: related)
                for member in related { try delete(member) }
            case .nullify:
                try unlink(object, relationship, from: related)
            }
        }
        try clearIncomingReferences(to: object)
    }

    /// Removes the links of `relationship` between a deleted object and its related objects.
    private func unlink(
        _ object: ManagedObject, _ relationship: RelationshipDescription, from related: [ManagedObject]
    ) throws {
        let inverse = inverse(of: relationship)
        let target = targetEntity(of: relationship)
        switch relationship.storage {
        case .foreignKey:
            guard let inverse else { return }
            for member in related where !member.isDeleted {
                if case .foreignKey(let inverseSlot) = inverse.storage {
                    assign(.null, slot: inverseSlot, of: member)
                } else {
                    noteRelationshipChange(target, member.rowID, inverse.name)
                }
            }
        case let .inverseForeignKey(targetSlot, orderSlot):
            for member in related where !member.isDeleted {
                assign(.null, slot: targetSlot, of: member)
                if let orderSlot { assign(.null, slot: orderSlot, of: member) }
            }
        case let .linkTable(table, ownerColumn, _, _):
            let connection = try writeConnection()
            try undoHistory?.recording(in: self)?.noteLinks(in: table, where: ownerColumn, is: object.rowID)
            try connection.run(
                "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(ownerColumn)) = ?",
                [.integer(object.rowID)])
            if let inverse {
                for member in related { noteRelationshipChange(target, member.rowID, inverse.name) }
            }
        }
    }

    /// Clears links to a deleted object held by relationships that have no
    /// inverse: ones to its entity or to an entity it inherits from, each
    /// visited once, on the entity that declares it.
    private func clearIncomingReferences(to object: ManagedObject) throws {
        let entity = object.entity!
        for source in schema.entities {
            for relationship in source.relationships.values
            where relationship.inverse == nil && relationship.entity == source.name
                && targetEntity(of: relationship).includes(entity) {
                switch relationship.storage {
                case .foreignKey(let slot):
                    let column = SQL.quote(source.attributes[slot].name)
                    let holders = try fetchObjects(
                        source,
                        sql: "SELECT \(source.selectList) FROM \(source.quotedTable) WHERE \(column) = ?",
                        arguments: [.integer(object.rowID)])
                    for holder in holders where !holder.isDeleted {
                        assign(.null, slot: slot, of: holder)
                    }
                case let .linkTable(table, ownerColumn, targetColumn, _):
                    let connection = try writeConnection()
                    let owners = try connection.query(
                        "SELECT \(SQL.quote(ownerColumn)) FROM \(SQL.quote(table)) "
                            + "WHERE \(SQL.quote(targetColumn)) = ?", [.integer(object.rowID)]
                    ) { $0.int64(at: 0) }
                    guard !owners.isEmpty else { continue }
                    try undoHistory?.recording(in: self)?.noteLinks(
                        in: table, where: targetColumn, is: object.rowID)
                    try connection.run(
                        "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(targetColumn)) = ?",
                        [.integer(object.rowID)])
                    for owner in owners { noteRelationshipChange(source, owner, relationship.name) }
                case .inverseForeignKey:
                    break
                }
            }
        }
    }

    /// Fails the commit if a `.deny` relationship of a deleted object still
    /// holds objects, judged against the transaction's final (flushed) state,
    /// one query per relationship: a link the transaction undid after the
    /// deletion (a one-to-one partner given to another object, a member
    /// given another owner) denies nothing. When none does, the link rows the deleted
    /// objects own through such relationships point only at deleted objects,
    /// and go.
    func checkDenyRules() throws {
        guard !denyChecks.isEmpty else { return }
        let connection = try writeConnection()
        var checks: [String: DenyCheck] = [:]
        for check in denyChecks {
            let key = check.relationship.entity + "." + check.relationship.name
            checks[key, default: DenyCheck(relationship: check.relationship, rowIDs: [])].rowIDs
                .append(contentsOf: check.rowIDs)
        }
        for key in checks.keys.sorted() {
            let relationship = checks[key]!.relationship
            let target = targetEntity(of: relationship)
            let list = SQL.rowIDList(checks[key]!.rowIDs)
            let sql: String
            switch relationship.storage {
            case .foreignKey:
                if case .foreignKey(let inverseSlot) = inverse(of: relationship)?.storage {
                    // One-to-one: the partner's key back says whether the link
                    // still stands; the deleted row's own key is gone with it.
                    let column = SQL.quote(target.attributes[inverseSlot].name)
                    sql = "SELECT count(*) FROM \(target.quotedTable) "
                        + "WHERE \(column) \(connection.dialect.inRowIDList)"
                } else {
                    sql = "SELECT count(*) FROM \(target.quotedTable) WHERE _pk \(connection.dialect.inRowIDList)"
                }
            case .inverseForeignKey(let targetSlot, _):
                sql = "SELECT count(*) FROM \(target.quotedTable) "
                    + "WHERE \(SQL.quote(target.attributes[targetSlot].name)) \(connection.dialect.inRowIDList)"
            case let .linkTable(table, ownerColumn, targetColumn, _):
                sql = "SELECT count(*) FROM \(SQL.quote(table)) JOIN \(target.quotedTable) "
                    + "ON _pk = \(SQL.quote(targetColumn)) WHERE \(SQL.quote(ownerColumn)) \(connection.dialect.inRowIDList)"
            }
            if case .integer(let remaining) = try connection.scalar(sql, [list]), remaining > 0 {
                throw StrataError.deleteDenied(
                    entity: relationship.entity, relationship: relationship.name, relatedCount: Int(remaining))
            }
        }
        for check in checks.values {
            guard case let .linkTable(table, ownerColumn, _, _) = check.relationship.storage else { continue }
            try connection.run(
                "DELETE FROM \(SQL.quote(table)) WHERE \(SQL.quote(ownerColumn)) \(connection.dialect.inRowIDList)",
                [SQL.rowIDList(check.rowIDs)])
        }
    }
}
