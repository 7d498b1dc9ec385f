import Foundation

/// Look-ups that answer `nil` rather than trap, as CoreStore's `ListSnapshot`
/// has them: for positions and index paths that may be stale, and for the
/// section an item is in.
extension ListSnapshot {
    /// The item ID at `position` in the whole list, or `nil` outside it.
    ///
    /// ```swift
    /// if let id = snapshot[safeIndex: row] { show(id) }
    /// ```
    public subscript(safeIndex position: Int) -> ObjectID<Object>? {
        indices.contains(position) ? self[position] : nil
    }

    /// The item ID at `indexPath` (section, item), or `nil` when the list has
    /// no such section or the section no such item.
    ///
    /// ```swift
    /// let id = snapshot[safeIndexPath: IndexPath(item: 3, section: 1)]
    /// ```
    public subscript(safeIndexPath indexPath: IndexPath) -> ObjectID<Object>? {
        guard sectionIDs.indices.contains(indexPath.section),
              (0..<numberOfItems(inSection: indexPath.section)).contains(indexPath.item)
        else { return nil }
        return self[indexPath]
    }

    /// The identifier (name) of the section holding the item with `id`, or
    /// `nil` if the list does not hold it. O(n).
    ///
    /// ```swift
    /// let city = snapshot.sectionID(containing: person.objectID)
    /// ```
    public func sectionID(containing id: ObjectID<Object>) -> String? {
        indexPath(of: id).map { sectionIDs[$0.section] }
    }
}
