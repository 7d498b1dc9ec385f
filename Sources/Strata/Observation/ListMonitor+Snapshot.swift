/// Copying the monitored list into a ``ListSnapshot``.
extension ListMonitor {
    /// The list as it is now: section names and item IDs, with `updated`
    /// and the members whose row IDs are in `updatedRows` as the snapshot's
    /// ``ListSnapshot/updatedItemIDs``. O(n) copying of row IDs, no I/O and
    /// no evaluation of keys.
    func makeSnapshot(
        updated: Set<ObjectID<Object>> = [], updatedRows: Set<Int64> = []
    ) -> ListSnapshot<Object> {
        var updated = updated
        var items: [ObjectID<Object>] = []
        items.reserveCapacity(members.count)
        // In an inheritance tree each ID names its object's concrete entity, as
        // `objectID` and `fetchObjectIDs` do, so that the IDs compare equal.
        let namesConcreteEntity = entity.sharesTable
        for member in members {
            let name = namesConcreteEntity ? (member.object.entity ?? entity).name : entity.name
            let id = ObjectID<Object>(entityName: name, rowID: member.rowID, configuration: entity.configuration)
            items.append(id)
            if updatedRows.contains(member.rowID) { updated.insert(id) }
        }
        return ListSnapshot(
            sectionIDs: sectionRuns.map(\.name), items: items, sectionEnds: sectionEnds(sectionRuns),
            updatedItemIDs: updated,
            indexTitleOfSection: { [sectionBy] in sectionBy?.indexTitle(ofSectionNamed: $0) })
    }
}
