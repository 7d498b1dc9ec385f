/// Copying the monitored list into a ``ListSnapshot``.
extension ListMonitor {
    /// The list as it is now: section names and item IDs. O(n) copying of
    /// row IDs, no I/O and no evaluation of keys.
    func makeSnapshot() -> ListSnapshot<Object> {
        var items: [ObjectID<Object>] = []
        items.reserveCapacity(members.count)
        for member in members { items.append(ObjectID(entityName: entity.name, rowID: member.rowID)) }
        var ends: [Int] = []
        ends.reserveCapacity(sections.count)
        var end = 0
        for section in sections {
            end += section.count
            ends.append(end)
        }
        return ListSnapshot(sectionIDs: sections.map(\.name), items: items, sectionEnds: ends)
    }
}
