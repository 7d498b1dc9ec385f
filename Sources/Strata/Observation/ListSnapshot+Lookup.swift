import Foundation

/// Look-ups that answer `nil` or an empty result rather than trap, as
/// CoreStore's `ListSnapshot` has them: for positions and index paths that may
/// be stale, for the section an item is in, and for sections named by their
/// identifier instead of their index.
///
/// Section identifiers are the section names, which a ``SectionBy`` may give
/// to two sections (see ``ListSnapshot``); a look-up by identifier answers for
/// the first section with it. An identifier no section has is an empty section
/// to these look-ups, never a trap (CoreStore's traps on some of them).
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

    /// The item ID at item `itemIndex` of section `sectionIndex`, as
    /// `snapshot[IndexPath(item: itemIndex, section: sectionIndex)]`.
    ///
    /// ```swift
    /// let first = snapshot[1, 0]  // section 1, item 0
    /// ```
    ///
    /// - Precondition: the section and the item are inside the list.
    public subscript(sectionIndex: Int, itemIndex: Int) -> ObjectID<Object> {
        self[IndexPath(item: itemIndex, section: sectionIndex)]
    }

    /// The item ID at item `itemIndex` of section `sectionIndex`, or `nil`
    /// when the list has no such section or the section no such item.
    ///
    /// ```swift
    /// let id = snapshot[safeSectionIndex: 1, safeItemIndex: 3]
    /// ```
    public subscript(safeSectionIndex sectionIndex: Int, safeItemIndex itemIndex: Int)
        -> ObjectID<Object>?
    {
        self[safeIndexPath: IndexPath(item: itemIndex, section: sectionIndex)]
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

    /// The position of the item with `id` in the whole list, across sections,
    /// or `nil` if the list does not hold it. O(n).
    ///
    /// ```swift
    /// if let row = snapshot.indexOfItem(withID: person.objectID) { print(snapshot[row]) }
    /// ```
    public func indexOfItem(withID id: ObjectID<Object>) -> Int? {
        firstIndex(of: id)
    }

    // MARK: Sections by identifier

    /// The index of the first section named `sectionID`, or `nil` if no
    /// section has that identifier.
    ///
    /// ```swift
    /// let paris = snapshot.indexOfSection(withID: "Paris")
    /// ```
    public func indexOfSection(withID sectionID: String) -> Int? {
        sectionIDs.firstIndex(of: sectionID)
    }

    /// The item IDs of the first section named `sectionID`, in order; empty
    /// if no section has that identifier.
    ///
    /// ```swift
    /// for id in snapshot.itemIDs(inSectionWithID: "Paris") { print(id) }
    /// ```
    public func itemIDs(inSectionWithID sectionID: String) -> [ObjectID<Object>] {
        guard let section = indexOfSection(withID: sectionID) else { return [] }
        return itemIDs(inSection: section)
    }

    /// The item IDs at `indices` (positions inside the section) of the first
    /// section named `sectionID`, in the order of `indices`. A position
    /// outside the section, or an identifier no section has, contributes
    /// nothing, so the result may be shorter than `indices`.
    ///
    /// ```swift
    /// let firstTwo = snapshot.itemIDs(inSectionWithID: "Paris", atIndices: [0, 1])
    /// ```
    public func itemIDs(
        inSectionWithID sectionID: String, atIndices indices: some Sequence<Int>
    ) -> [ObjectID<Object>] {
        let section = itemIDs(inSectionWithID: sectionID)
        return indices.compactMap { index in section.indices.contains(index) ? section[index] : nil }
    }

    /// How many items the first section named `sectionID` holds; 0 if no
    /// section has that identifier.
    ///
    /// ```swift
    /// let rows = snapshot.numberOfItems(inSectionWithID: "Paris")
    /// ```
    public func numberOfItems(inSectionWithID sectionID: String) -> Int {
        indexOfSection(withID: sectionID).map(numberOfItems(inSection:)) ?? 0
    }

    /// Whether the first section named `sectionID` holds any item; `false` if
    /// no section has that identifier.
    ///
    /// ```swift
    /// if !snapshot.hasItems(inSectionWithID: "Paris") { showPlaceholder() }
    /// ```
    public func hasItems(inSectionWithID sectionID: String) -> Bool {
        numberOfItems(inSectionWithID: sectionID) > 0
    }
}
