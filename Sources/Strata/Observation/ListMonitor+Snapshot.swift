/// Copying the monitored list into a ``ListSnapshot``.
extension ListMonitor {
    /// The list as it is now: section names and item IDs. O(n) copying of
    /// row IDs, no I/O and no evaluation of keys.
    func makeSnapshot() -> ListSnapshot<Object> {
        var items: [ObjectID<Object>] = []
        items.reserveCapacity(members.count)
        for member in members {
            items.append(ObjectID(entityName: entity.name, rowID: member.rowID, configuration: entity.configuration))
        }
        return ListSnapshot(sectionIDs: sectionRuns.map(\.name), items: items, sectionEnds: sectionEnds(sectionRuns))
    }
}
