/// Copying the monitored list into a ``ListSnapshot``.
extension ListMonitor {
    /// The list as it is now: section names and item IDs, with `updated` as
    /// the snapshot's ``ListSnapshot/updatedItemIDs``. O(n) copying of row
    /// IDs, no I/O and no evaluation of keys.
    func makeSnapshot(updated: Set<ObjectID<Object>> = []) -> ListSnapshot<Object> {
        var items: [ObjectID<Object>] = []
        items.reserveCapacity(members.count)
        // In an inheritance tree each ID names its object's concrete entity, as
        // `objectID` and `fetchObjectIDs` do, so that the IDs compare equal.
        let namesConcreteEntity = entity.sharesTable
        for member in members {
            let name = namesConcreteEntity ? (member.object.entity ?? entity).name : entity.name
            items.append(ObjectID(entityName: name, rowID: member.rowID, configuration: entity.configuration))
        }
        return ListSnapshot(
            sectionIDs: sectionRuns.map(\.name), items: items, sectionEnds: sectionEnds(sectionRuns),
            updatedItemIDs: updated,
            indexTitleOfSection: { [sectionBy] in sectionBy?.indexTitle(ofSectionNamed: $0) })
    }
}
