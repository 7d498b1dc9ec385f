/// Naming the rows bulk writes changed by their concrete entity, for the
/// change set: bulk writes keep rows by table, and an inheritance tree's
/// table holds rows of every entity of the tree.
extension ObjectContext {
    /// One entity's share of what bulk writes changed.
    typealias EntityBulkChanges = (
        entity: EntityDescription, deleted: Set<Int64>, updated: [Int64: Set<String>], cleared: Bool
    )

    /// What `bulk` changed, per entity. A table outside any tree is its
    /// entity's, as it is. A tree's rows go to their concrete entity: a
    /// deleted row's was read as it was deleted; a changed row's is its
    /// registered object's, else read in one query per tree; a cleared tree
    /// clears every entity of it.
    func bulkChangesByEntity(_ bulk: BulkChanges) throws -> [EntityBulkChanges] {
        var result: [EntityBulkChanges] = []
        for table in schema.entities where table.ownsTable {
            let deleted = bulk.deleted[table.index] ?? []
            let updated = bulk.updated[table.index] ?? [:]
            let cleared = bulk.cleared.contains(table.index)
            guard !deleted.isEmpty || !updated.isEmpty || cleared else { continue }
            guard let tree = table.tree else {
                result.append((table, deleted, updated, cleared))
                continue
            }
            let recorded = bulk.deletedEntities[table.index] ?? [:]
            var concrete: [Int64: Int] = [:]
            var unknown: [Int64] = []
            for rowID in Set(deleted).union(updated.keys) {
                if let index = recorded[rowID] ?? registered(table, rowID)?.entity?.index {
                    concrete[rowID] = index
                } else {
                    unknown.append(rowID)
                }
            }
            if !unknown.isEmpty {
                let rows = TreeRows(table, schema: schema)
                let connection = try writeConnection()
                let read = try connection.query(
                    "SELECT _pk, \(SQL.quote(EntityTree.discriminatorColumn)) FROM \(table.quotedTable) "
                        + "WHERE _pk \(connection.dialect.inRowIDList)", [SQL.rowIDList(unknown)]
                ) { ($0.int64(at: 0), rows.entity(named: $0.value(at: 1))?.index) }
                for (rowID, index) in read { concrete[rowID] = index }
            }
            var byEntity: [Int: (deleted: Set<Int64>, updated: [Int64: Set<String>])] = [:]
            for rowID in deleted { byEntity[concrete[rowID] ?? table.index, default: ([], [:])].deleted.insert(rowID) }
            for (rowID, fields) in updated {
                byEntity[concrete[rowID] ?? table.index, default: ([], [:])].updated[rowID] = fields
            }
            for index in tree.family {
                let changes = byEntity[index]
                guard changes != nil || cleared else { continue }
                result.append((schema.entities[index], changes?.deleted ?? [], changes?.updated ?? [:], cleared))
            }
        }
        return result
    }
}
