/// Following the objects related to a monitored object (opt-in).
extension ObjectMonitor {
    /// The row IDs an observed relationship of the monitored object holds,
    /// kept current from each change set.
    struct RelatedMembers {
        let relationship: RelationshipDescription
        let target: EntityDescription
        private(set) var rowIDs: Set<Int64>

        init(of owner: ManagedObject, relationship name: String, in context: ObjectContext) throws {
            guard let entity = owner.entity, let relationship = entity.relationships[name] else {
                misuse("Strata: \(Object.self) has no relationship named '\(name)'.")
            }
            self.relationship = relationship
            self.target = context.targetEntity(of: relationship)
            self.rowIDs = Set(try context.loadRelated(of: owner, relationship).map(\.rowID))
        }

        /// Brings the members up to `changeSet`; `true` when a member was
        /// updated or the membership changed.
        ///
        /// Membership through a foreign key (to-one, or to-many whose inverse is
        /// a to-one) is decided from the change set's values alone; through a
        /// link table it is read again when the commit touched it.
        mutating func follow(
            _ changeSet: ChangeSet, owner: ManagedObject, ownerUpdate: ChangeSet.Update?,
            in context: ObjectContext
        ) -> Bool {
            // A base target's members may be of any subentity.
            let targetChanges = changeSet.changes(of: target)
            let previous = rowIDs
            switch relationship.storage {
            case .foreignKey(let slot):
                if let ownerUpdate, case .integer(let rowID) = ownerUpdate.values[slot] {
                    rowIDs = [rowID]
                } else if ownerUpdate != nil {
                    rowIDs = []
                }
                rowIDs.subtract(targetChanges?.deleted ?? [])
            case .inverseForeignKey(let targetSlot, _):
                guard let targetChanges else { break }
                let ownerKey = StoredValue.integer(owner.rowID)
                rowIDs.subtract(targetChanges.deleted)
                for (rowID, update) in targetChanges.updated {
                    if update.values[targetSlot] == ownerKey {
                        rowIDs.insert(rowID)
                    } else {
                        rowIDs.remove(rowID)
                    }
                }
                for (rowID, values) in targetChanges.inserted where values[targetSlot] == ownerKey {
                    rowIDs.insert(rowID)
                }
            case .linkTable:
                let touched =
                    ownerUpdate?.changedFields.contains(relationship.name) == true
                    || !(targetChanges?.deleted.isDisjoint(with: rowIDs) ?? true)
                guard touched else { break }
                do {
                    rowIDs = Set(try context.loadRelated(of: owner, relationship).map(\.rowID))
                } catch {
                    StrataLog.warning(
                        .observation,
                        "An ObjectMonitor could not read \(relationship.entity).\(relationship.name): \(error)"
                    )
                    rowIDs.subtract(targetChanges?.deleted ?? [])
                }
            }
            if rowIDs != previous { return true }
            guard let updated = targetChanges?.updated, !updated.isEmpty else { return false }
            return rowIDs.contains { updated[$0] != nil }
        }
    }
}
