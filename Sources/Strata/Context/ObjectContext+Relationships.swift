/// Reading and setting relationships, keeping both sides in step.
extension ObjectContext {
    /// The objects `relationship` of `object` points to, in order.
    func related(of object: ManagedObject, relationship: RelationshipDescription) -> [ManagedObject] {
        do {
            return try loadRelated(of: object, relationship)
        } catch {
            StrataLog.warning(.objects, "reading \(relationship.entity).\(relationship.name) failed: \(error)")
            return []
        }
    }

    func loadRelated(of object: ManagedObject, _ relationship: RelationshipDescription) throws -> [ManagedObject] {
        let target = targetEntity(of: relationship)
        switch relationship.storage {
        case .foreignKey(let slot):
            guard case .integer(let rowID) = object.value(at: slot) else { return [] }
            return try existingObject(target, rowID: rowID).map { [$0] } ?? []
        case .inverseForeignKey, .linkTable:
            return try loadLinked(ofRow: object.rowID, relationship)
        }
    }

    /// The objects related to the row `rowID` through a relationship whose
    /// links live outside the row (a to-many), in the relationship's order,
    /// deleted ones left out: one query, which needs no object for the row.
    func loadLinked(ofRow rowID: Int64, _ relationship: RelationshipDescription) throws
        -> [ManagedObject]
    {
        let target = targetEntity(of: relationship)
        return try fetchObjects(
            target, sql: linkedRowsSQL(relationship, selecting: target.selectList), arguments: [.integer(rowID)]
        ).filter { !$0.isDeleted }
    }

    /// The IDs of the objects ``loadLinked(ofRow:_:)`` returns, in the same
    /// order, read without making or registering any object: only their row
    /// IDs (and, in an inheritance tree, their concrete entities).
    func linkedObjectIDs(ofRow rowID: Int64, _ relationship: RelationshipDescription) throws
        -> [AnyObjectID]
    {
        let target = targetEntity(of: relationship)
        let tree = target.sharesTable ? TreeRows(target, schema: schema) : nil
        let columns = tree == nil ? "_pk" : "_pk, \(SQL.quote(EntityTree.discriminatorColumn))"
        let rows = try readRows(linkedRowsSQL(relationship, selecting: columns), [.integer(rowID)]) {
            statement -> (rowID: Int64, entity: EntityDescription?) in
            (statement.int64(at: 0), tree.map { $0.entity(of: statement) } ?? target)
        }
        return rows.compactMap { row in
            // A row of another branch of the tree is not one of the target's.
            guard let entity = row.entity, registered(target, row.rowID)?.isDeleted != true else { return nil }
            return AnyObjectID(entityName: entity.name, rowID: row.rowID, configuration: entity.configuration)
        }
    }

    /// The `SELECT` of `columns` of the rows related to one row (its row ID
    /// the one parameter) through a relationship whose links live outside
    /// the row, in the relationship's order.
    private func linkedRowsSQL(_ relationship: RelationshipDescription, selecting columns: String) -> String {
        let target = targetEntity(of: relationship)
        switch relationship.storage {
        case .foreignKey:
            preconditionFailure("\(relationship.entity).\(relationship.name) is stored in the row")
        case let .inverseForeignKey(targetSlot, orderSlot):
            let column = SQL.quote(target.attributes[targetSlot].name)
            let order = orderSlot.map { SQL.quote(target.attributes[$0].name) + ", " } ?? ""
            return "SELECT \(columns) FROM \(target.quotedTable) WHERE \(column) = ? ORDER BY \(order)_pk"
        case let .linkTable(table, ownerColumn, targetColumn, orderColumn):
            let order = orderColumn.map { SQL.quote($0) } ?? "NULL"
            return "SELECT \(columns) FROM \(target.quotedTable) JOIN "
                + "(SELECT \(SQL.quote(targetColumn)) AS _link_target, \(order) AS _link_order "
                + "FROM \(SQL.quote(table)) WHERE \(SQL.quote(ownerColumn)) = ?) AS _links "
                + "ON _pk = _link_target ORDER BY _link_order, _pk"
        }
    }

    func targetEntity(of relationship: RelationshipDescription) -> EntityDescription {
        schema.entity(named: relationship.target)!
    }

    /// The entity that declares the relationship: its objects' subentities inherit it.
    func declaringEntity(of relationship: RelationshipDescription) -> EntityDescription {
        schema.entity(named: relationship.entity)!
    }

    func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        relationship.inverse.flatMap { targetEntity(of: relationship).relationships[$0] }
    }

    /// Sets a relationship of a writable object to `objects`, updating inverses.
    func setRelated(_ objects: [ManagedObject], of owner: ManagedObject, relationship: RelationshipDescription) {
        let target = targetEntity(of: relationship)
        for object in objects {
            checkUsage(
                object.context === self,
                "Strata: \(relationship.entity).\(relationship.name) was set to an object of another "
                    + "context. Bring it into this transaction first with tx.edit(object).")
            checkUsage(
                object.entity.map(target.includes) ?? false,
                "Strata: \(relationship.entity).\(relationship.name) holds \(target.name) objects, "
                    + "not \(object.entity?.name ?? "?").")
        }
        // A link to a deleted object would dangle once saved: as Core Data's
        // save, the commit fails, and the relationship keeps what it held.
        if let deleted = objects.first(where: \.isDeleted) {
            deferredError = deferredError ?? .invalidValue(
                entity: relationship.entity, field: relationship.name,
                reason: "was set to a \(deleted.entity?.name ?? target.name) object the transaction deleted")
            return
        }
        do {
            switch relationship.storage {
            case .foreignKey(let slot):
                try setToOne(owner, slot: slot, relationship, to: objects.first)
            case let .inverseForeignKey(targetSlot, orderSlot):
                try setInverseForeignKeyMembers(
                    owner, relationship, objects, targetSlot: targetSlot, orderSlot: orderSlot)
            case let .linkTable(table, ownerColumn, targetColumn, orderColumn):
                try setLinkMembers(
                    owner, relationship, objects,
                    link: (table, ownerColumn, targetColumn, orderColumn))
            }
        } catch {
            // A relationship setter cannot throw; the failure resurfaces at commit.
            deferredError = deferredError ?? translated(error)
        }
    }

    /// Points a to-one relationship at `target`, keeping the inverse in step.
    func setToOne(
        _ object: ManagedObject, slot: Int, _ relationship: RelationshipDescription,
        to target: ManagedObject?
    ) throws {
        let oldValue = object.value(at: slot)
        let newValue: StoredValue = target.map { .integer($0.rowID) } ?? .null
        guard !oldValue.isIdentical(to: newValue) else { return }
        let targetEntity = targetEntity(of: relationship)
        if let inverse = inverse(of: relationship) {
            switch inverse.storage {
            case .foreignKey(let inverseSlot):
                // One-to-one: both sides hold a key; unhook the old partners first.
                if case .integer(let oldRowID) = oldValue,
                   let oldPartner = try existingObject(targetEntity, rowID: oldRowID) {
                    assign(.null, slot: inverseSlot, of: oldPartner)
                }
                if let target {
                    // The partner's previous partner is of the entity declaring the
                    // relationship (or a subentity of it), not necessarily of `object`'s.
                    if case .integer(let rowID) = target.value(at: inverseSlot),
                       let previous = try existingObject(declaringEntity(of: relationship), rowID: rowID),
                       previous !== object {
                        assign(.null, slot: slot, of: previous)
                    }
                    assign(.integer(object.rowID), slot: inverseSlot, of: target)
                }
            case .inverseForeignKey(_, let orderSlot):
                if case .integer(let oldRowID) = oldValue {
                    noteRelationshipChange(targetEntity, oldRowID, inverse.name)
                }
                if let target {
                    noteRelationshipChange(targetEntity, target.rowID, inverse.name)
                    if let orderSlot {
                        assign(.integer(try nextPosition(in: inverse, of: target)), slot: orderSlot, of: object)
                    }
                } else if let orderSlot {
                    assign(.null, slot: orderSlot, of: object)
                }
            case .linkTable:
                break
            }
        }
        assign(newValue, slot: slot, of: object)
    }

    /// The position after the last member of an ordered one-to-many relationship.
    private func nextPosition(in relationship: RelationshipDescription, of owner: ManagedObject) throws -> Int64 {
        guard case let .inverseForeignKey(targetSlot, orderSlot?) = relationship.storage else { return 0 }
        let target = targetEntity(of: relationship)
        let value = try readScalar(
            "SELECT max(\(SQL.quote(target.attributes[orderSlot].name))) FROM \(target.quotedTable) "
                + "WHERE \(SQL.quote(target.attributes[targetSlot].name)) = ?",
            [.integer(owner.rowID)])
        if case .integer(let last) = value { return last + 1 }
        return 0
    }

    private func setInverseForeignKeyMembers(
        _ owner: ManagedObject, _ relationship: RelationshipDescription, _ objects: [ManagedObject],
        targetSlot: Int, orderSlot: Int?
    ) throws {
        let current = try loadRelated(of: owner, relationship)
        let wanted = uniqued(objects)
        // Unordered: the same members in any order are no change (Transactions.md, Rule 6).
        let unchanged =
            orderSlot == nil
            ? Set(current) == Set(wanted)
            : current.map(ObjectIdentifier.init) == wanted.map(ObjectIdentifier.init)
        guard !unchanged else { return }
        let wantedSet = Set(wanted)
        for member in current where !wantedSet.contains(member) {
            assign(.null, slot: targetSlot, of: member)
            if let orderSlot { assign(.null, slot: orderSlot, of: member) }
        }
        let currentSet = Set(current)
        for member in wanted where !currentSet.contains(member) {
            if case .integer(let previousOwner) = member.value(at: targetSlot) {
                noteRelationshipChange(owner.entity!, previousOwner, relationship.name)
            }
            assign(.integer(owner.rowID), slot: targetSlot, of: member)
        }
        if let orderSlot {
            for (position, member) in wanted.enumerated() {
                assign(.integer(Int64(position)), slot: orderSlot, of: member)
            }
        }
        noteRelationshipChange(owner.entity!, owner.rowID, relationship.name)
    }

    private func setLinkMembers(
        _ owner: ManagedObject, _ relationship: RelationshipDescription, _ objects: [ManagedObject],
        link: (table: String, owner: String, target: String, order: String?)
    ) throws {
        let current = try loadRelated(of: owner, relationship)
        let wanted = uniqued(objects)
        if link.order == nil ? Set(current) == Set(wanted) : current == wanted { return }
        let connection = try writeConnection()
        let undoRecord = undoHistory?.recording(in: self)
        try undoRecord?.noteLinks(in: link.table, where: link.owner, is: owner.rowID)
        let table = SQL.quote(link.table)
        let ownerColumn = SQL.quote(link.owner)
        let targetColumn = SQL.quote(link.target)
        let wantedSet = Set(wanted)
        let currentSet = Set(current)
        let inverse = inverse(of: relationship)
        let targetEntity = targetEntity(of: relationship)
        for member in current where !wantedSet.contains(member) {
            try connection.run(
                "DELETE FROM \(table) WHERE \(ownerColumn) = ? AND \(targetColumn) = ?",
                [.integer(owner.rowID), .integer(member.rowID)])
            if let inverse { noteRelationshipChange(targetEntity, member.rowID, inverse.name) }
        }
        // The other side's position column, when that side is ordered: new links go last.
        let otherOrder: String? = {
            guard let inverse, case let .linkTable(_, _, _, order?) = inverse.storage else { return nil }
            return order
        }()
        for member in wanted where !currentSet.contains(member) {
            try undoRecord?.noteLinks(in: link.table, where: link.owner, is: owner.rowID, and: member.rowID)
            if let otherOrder {
                try connection.run(
                    "INSERT INTO \(table) (\(ownerColumn), \(targetColumn), \(SQL.quote(otherOrder))) "
                        + "VALUES (?, ?, (SELECT coalesce(max(\(SQL.quote(otherOrder))) + 1, 0) "
                        + "FROM \(table) WHERE \(targetColumn) = ?))",
                    [.integer(owner.rowID), .integer(member.rowID), .integer(member.rowID)])
            } else {
                try connection.run(
                    "INSERT INTO \(table) (\(ownerColumn), \(targetColumn)) VALUES (?, ?)",
                    [.integer(owner.rowID), .integer(member.rowID)])
            }
            if let inverse { noteRelationshipChange(targetEntity, member.rowID, inverse.name) }
        }
        if let order = link.order {
            for (position, member) in wanted.enumerated() {
                try connection.run(
                    "UPDATE \(table) SET \(SQL.quote(order)) = ? WHERE \(ownerColumn) = ? "
                        + "AND \(targetColumn) = ?",
                    [.integer(Int64(position)), .integer(owner.rowID), .integer(member.rowID)])
            }
        }
        noteRelationshipChange(owner.entity!, owner.rowID, relationship.name)
    }

    /// Fails the commit if an object it created, or whose to-many
    /// relationship it changed, holds a number of members outside the
    /// relationship's `minCount` and `maxCount`, counted in the flushed
    /// state: one query per bounded relationship that changed.
    func checkMemberCounts(_ changes: [String: ChangeSet.EntityChanges]) throws {
        let bounded = changes.compactMap { name, entityChanges in
            schema.entity(named: name).flatMap { $0.boundedRelationships.isEmpty ? nil : ($0, entityChanges) }
        }
        for (entity, entityChanges) in bounded.sorted(by: { $0.0.name < $1.0.name }) {
            for relationship in entity.boundedRelationships {
                var owners = entityChanges.inserted.map(\.rowID) + entityChanges.insertedUnread
                for (rowID, update) in entityChanges.updated
                where update.changedFields.contains(relationship.name) {
                    owners.append(rowID)
                }
                for (rowID, fields) in entityChanges.updatedUnread where fields.contains(relationship.name) {
                    owners.append(rowID)
                }
                guard !owners.isEmpty else { continue }
                let counts = try memberCounts(of: owners, relationship)
                for owner in owners.sorted() {
                    let count = counts[owner] ?? 0
                    if let violation = relationship.counts.violation(by: count) {
                        throw StrataError.invalidValue(
                            entity: entity.name, field: relationship.name,
                            reason: "\(entity.name)/\(owner) would hold \(count) objects, \(violation)")
                    }
                }
            }
        }
    }

    /// How many objects `relationship` of each owner holds; owners holding none are absent.
    private func memberCounts(
        of owners: [Int64], _ relationship: RelationshipDescription
    ) throws -> [Int64: Int] {
        let connection = try writeConnection()
        let target = targetEntity(of: relationship)
        let sql: String
        switch relationship.storage {
        case .foreignKey:
            return [:]
        case .inverseForeignKey(let targetSlot, _):
            let column = SQL.quote(target.attributes[targetSlot].name)
            sql = "SELECT \(column), count(*) FROM \(target.quotedTable) "
                + "WHERE \(column) \(connection.dialect.inRowIDList) GROUP BY \(column)"
        case let .linkTable(table, ownerColumn, targetColumn, _):
            let owner = SQL.quote(ownerColumn)
            sql = "SELECT \(owner), count(*) FROM \(SQL.quote(table)) JOIN \(target.quotedTable) "
                + "ON _pk = \(SQL.quote(targetColumn)) WHERE \(owner) \(connection.dialect.inRowIDList) "
                + "GROUP BY \(owner)"
        }
        let rows = try connection.query(sql, [SQL.rowIDList(owners)]) { row in
            (row.value(at: 0), row.value(at: 1))
        }
        var counts: [Int64: Int] = [:]
        for case (.integer(let owner), .integer(let count)) in rows { counts[owner] = Int(count) }
        return counts
    }

    private func uniqued(_ objects: [ManagedObject]) -> [ManagedObject] {
        var seen: Set<ObjectIdentifier> = []
        return objects.filter { seen.insert(ObjectIdentifier($0)).inserted }
    }
}
