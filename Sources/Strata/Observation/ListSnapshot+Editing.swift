import Foundation

/// Editing a snapshot, as CoreStore's `ListSnapshot` allows before it is
/// handed to a data source: items and sections appended, inserted, deleted,
/// moved and marked reloaded. A snapshot is a value, so an edit changes that
/// copy only, never the list it was taken of or the publisher's snapshot.
///
/// ```swift
/// var snapshot = publisher.snapshot
/// snapshot.appendSections(withIDs: ["Pinned"])
/// snapshot.appendItems(withIDs: [favorite.objectID], toSectionWithID: "Pinned")
/// snapshot.reloadItems(withIDs: [edited.objectID])
/// apply(snapshot)
/// ```
///
/// Each item ID and each new section ID may appear once: adding one the
/// snapshot holds already, or naming an item, a section, an index or an
/// index path the snapshot does not have, traps with a message saying so
/// (CoreStore traps on most of them). Deleting an ID the snapshot does not
/// hold does nothing. ``updatedItemIDs`` keeps the items still there, and
/// gains the reloaded ones. Each edit takes time in the size of the list.
extension ListSnapshot {
    // MARK: Items

    /// Appends items to the end of the section with `sectionID`, or of the
    /// last section when it is `nil`.
    public mutating func appendItems<C: Collection<ObjectID<Object>>>(
        withIDs itemIDs: C, toSectionWithID sectionID: String? = nil
    ) {
        edit { sections in
            let section: Int
            if let sectionID {
                section = Self.index(of: sectionID, in: sections)
            } else {
                checkUsage(!sections.isEmpty, "Strata: the snapshot has no section to append items to; "
                    + "append one first with appendSections(withIDs:)")
                section = sections.count - 1
            }
            sections[section].itemIDs.append(contentsOf: itemIDs)
        }
    }

    /// Appends items to the end of section `sectionIndex`.
    public mutating func appendItems<C: Collection<ObjectID<Object>>>(
        with itemIDs: C, toSectionAt sectionIndex: Int
    ) {
        edit { sections in
            Self.checkSection(sectionIndex, in: sections)
            sections[sectionIndex].itemIDs.append(contentsOf: itemIDs)
        }
    }

    /// Inserts items just before the item with `beforeItemID`, in its section.
    public mutating func insertItems<C: Collection<ObjectID<Object>>>(
        withIDs itemIDs: C, beforeItemID: ObjectID<Object>
    ) {
        edit { sections in
            let path = Self.path(of: beforeItemID, in: sections)
            sections[path.section].itemIDs.insert(contentsOf: itemIDs, at: path.item)
        }
    }

    /// Inserts items just after the item with `afterItemID`, in its section.
    public mutating func insertItems<C: Collection<ObjectID<Object>>>(
        withIDs itemIDs: C, afterItemID: ObjectID<Object>
    ) {
        edit { sections in
            let path = Self.path(of: afterItemID, in: sections)
            sections[path.section].itemIDs.insert(contentsOf: itemIDs, at: path.item + 1)
        }
    }

    /// Inserts items at `indexPath`: the first of them takes that place, the
    /// item there and the ones after it follow them. The item index may be
    /// the section's item count, to append.
    public mutating func insertItems<C: Collection<ObjectID<Object>>>(
        withIDs itemIDs: C, at indexPath: IndexPath
    ) {
        edit { sections in
            Self.checkSection(indexPath.section, in: sections)
            checkUsage(
                (0...sections[indexPath.section].itemIDs.count).contains(indexPath.item),
                "Strata: item \(indexPath.item) is out of range of section \(indexPath.section)")
            sections[indexPath.section].itemIDs.insert(contentsOf: itemIDs, at: indexPath.item)
        }
    }

    /// Deletes the items with these IDs; IDs the snapshot does not hold are ignored.
    public mutating func deleteItems<C: Collection<ObjectID<Object>>>(withIDs itemIDs: C) {
        let deleted = Set(itemIDs)
        edit { sections in
            for section in sections.indices { sections[section].itemIDs.removeAll(where: deleted.contains) }
        }
    }

    /// Deletes the items at these index paths, each as it is before the call.
    public mutating func deleteItems<C: Collection<IndexPath>>(at itemIndexPaths: C) {
        deleteItems(withIDs: itemIndexPaths.map { self[$0] })
    }

    /// Deletes every item; the sections stay, empty, as in CoreStore.
    public mutating func deleteAllItems() {
        edit { sections in
            for section in sections.indices { sections[section].itemIDs.removeAll() }
        }
    }

    /// Moves the item with `itemID` just before the item with `beforeItemID`,
    /// into that item's section.
    public mutating func moveItem(withID itemID: ObjectID<Object>, beforeItemID: ObjectID<Object>) {
        guard itemID != beforeItemID else { return }
        edit { sections in
            Self.remove(itemID, from: &sections)
            let path = Self.path(of: beforeItemID, in: sections)
            sections[path.section].itemIDs.insert(itemID, at: path.item)
        }
    }

    /// Moves the item with `itemID` just after the item with `afterItemID`,
    /// into that item's section.
    public mutating func moveItem(withID itemID: ObjectID<Object>, afterItemID: ObjectID<Object>) {
        guard itemID != afterItemID else { return }
        edit { sections in
            Self.remove(itemID, from: &sections)
            let path = Self.path(of: afterItemID, in: sections)
            sections[path.section].itemIDs.insert(itemID, at: path.item + 1)
        }
    }

    /// Moves the item at `itemIndexPath` to `newIndexPath`, an index path in
    /// the list without the moved item (its place once moved).
    public mutating func moveItem(at itemIndexPath: IndexPath, to newIndexPath: IndexPath) {
        let itemID = self[itemIndexPath]
        edit { sections in
            Self.remove(itemID, from: &sections)
            Self.checkSection(newIndexPath.section, in: sections)
            checkUsage(
                (0...sections[newIndexPath.section].itemIDs.count).contains(newIndexPath.item),
                "Strata: item \(newIndexPath.item) is out of range of section \(newIndexPath.section)")
            sections[newIndexPath.section].itemIDs.insert(itemID, at: newIndexPath.item)
        }
    }

    /// Marks the items with these IDs as reloaded: they join ``updatedItemIDs``.
    public mutating func reloadItems<C: Collection<ObjectID<Object>>>(withIDs itemIDs: C) {
        let held = Set(itemIDs)
        for itemID in itemIDs {
            checkUsage(held.contains(itemID), "Strata: the snapshot holds no item \(itemID) to reload")
        }
        updatedItemIDs.formUnion(itemIDs)
    }

    /// Marks the items at these index paths as reloaded.
    public mutating func reloadItems<C: Collection<IndexPath>>(at itemIndexPaths: C) {
        updatedItemIDs.formUnion(itemIndexPaths.map { self[$0] })
    }

    // MARK: Sections

    /// Appends empty sections with these IDs to the end of the list.
    public mutating func appendSections<C: Collection<String>>(withIDs sectionIDs: C) {
        edit { sections in sections.append(contentsOf: sectionIDs.map { ($0, []) }) }
    }

    /// Inserts empty sections with these IDs just before the section with `beforeSectionID`.
    public mutating func insertSections<C: Collection<String>>(
        withIDs sectionIDs: C, beforeSectionID: String
    ) {
        edit { sections in
            let index = Self.index(of: beforeSectionID, in: sections)
            sections.insert(contentsOf: sectionIDs.map { ($0, []) }, at: index)
        }
    }

    /// Inserts empty sections with these IDs just after the section with `afterSectionID`.
    public mutating func insertSections<C: Collection<String>>(
        withIDs sectionIDs: C, afterSectionID: String
    ) {
        edit { sections in
            let index = Self.index(of: afterSectionID, in: sections)
            sections.insert(contentsOf: sectionIDs.map { ($0, []) }, at: index + 1)
        }
    }

    /// Inserts empty sections with these IDs at `sectionIndex` (up to the
    /// number of sections, to append).
    public mutating func insertSections<C: Collection<String>>(_ sectionIDs: C, at sectionIndex: Int) {
        edit { sections in
            checkUsage(
                (0...sections.count).contains(sectionIndex),
                "Strata: section \(sectionIndex) is out of range")
            sections.insert(contentsOf: sectionIDs.map { ($0, []) }, at: sectionIndex)
        }
    }

    /// Deletes the sections with these IDs and their items; IDs no section
    /// has are ignored.
    public mutating func deleteSections<C: Collection<String>>(withIDs sectionIDs: C) {
        let deleted = Set(sectionIDs)
        edit { sections in sections.removeAll { deleted.contains($0.id) } }
    }

    /// Deletes the sections at these indices (as they are before the call) and their items.
    public mutating func deleteSections<C: Collection<Int>>(at sectionIndices: C) {
        edit { sections in
            for index in sectionIndices { Self.checkSection(index, in: sections) }
            for index in Set(sectionIndices).sorted(by: >) { sections.remove(at: index) }
        }
    }

    /// Moves the section with `sectionID` just before the section with `beforeSectionID`.
    public mutating func moveSection(withID sectionID: String, beforeSectionID: String) {
        guard sectionID != beforeSectionID else { return }
        edit { sections in
            let moved = sections.remove(at: Self.index(of: sectionID, in: sections))
            sections.insert(moved, at: Self.index(of: beforeSectionID, in: sections))
        }
    }

    /// Moves the section with `sectionID` just after the section with `afterSectionID`.
    public mutating func moveSection(withID sectionID: String, afterSectionID: String) {
        guard sectionID != afterSectionID else { return }
        edit { sections in
            let moved = sections.remove(at: Self.index(of: sectionID, in: sections))
            sections.insert(moved, at: Self.index(of: afterSectionID, in: sections) + 1)
        }
    }

    /// Moves section `sectionIndex` to `newSectionIndex`, an index in the
    /// list without the moved section (its place once moved).
    public mutating func moveSection(at sectionIndex: Int, to newSectionIndex: Int) {
        edit { sections in
            Self.checkSection(sectionIndex, in: sections)
            let moved = sections.remove(at: sectionIndex)
            checkUsage(
                (0...sections.count).contains(newSectionIndex),
                "Strata: section \(newSectionIndex) is out of range")
            sections.insert(moved, at: newSectionIndex)
        }
    }

    /// Marks every item of the sections with these IDs as reloaded (they
    /// join ``updatedItemIDs``); IDs no section has are ignored.
    public mutating func reloadSections<C: Collection<String>>(withIDs sectionIDs: C) {
        let reloaded = Set(sectionIDs)
        for section in self.sectionIDs.indices where reloaded.contains(self.sectionIDs[section]) {
            updatedItemIDs.formUnion(itemIDs(inSection: section))
        }
    }

    /// Marks every item of the sections at these indices as reloaded.
    public mutating func reloadSections<C: Collection<Int>>(at sectionIndices: C) {
        for section in sectionIndices { updatedItemIDs.formUnion(itemIDs(inSection: section)) }
    }

    // MARK: Editing

    private typealias Sections = [(id: String, itemIDs: [ObjectID<Object>])]

    /// Applies `change` to the sections, then checks that every item and
    /// section ID is there once (a section ID the list already held twice,
    /// as a ``SectionBy`` may name two, stays allowed).
    private mutating func edit(_ change: (inout Sections) -> Void) {
        var sections: Sections = sectionIDs.indices.map { (sectionIDs[$0], itemIDs(inSection: $0)) }
        let repeatedBefore = Self.repeated(sectionIDs)
        change(&sections)
        var seen: Set<ObjectID<Object>> = []
        for section in sections {
            for itemID in section.itemIDs {
                checkUsage(
                    seen.insert(itemID).inserted, "Strata: the snapshot would hold item \(itemID) twice")
            }
        }
        let repeatedAfter = Self.repeated(sections.map(\.id))
        checkUsage(
            repeatedAfter.isSubset(of: repeatedBefore),
            "Strata: the snapshot would hold two sections with ID "
                + "\(repeatedAfter.subtracting(repeatedBefore).sorted())")
        let updated = updatedItemIDs.intersection(seen)
        let indexTitleOfSection = self.indexTitleOfSection
        self = ListSnapshot(sections: sections)
        updatedItemIDs = updated
        self.indexTitleOfSection = indexTitleOfSection
    }

    private static func repeated(_ ids: [String]) -> Set<String> {
        var seen: Set<String> = [], repeated: Set<String> = []
        for id in ids where !seen.insert(id).inserted { repeated.insert(id) }
        return repeated
    }

    private static func index(of sectionID: String, in sections: Sections) -> Int {
        guard let index = sections.firstIndex(where: { $0.id == sectionID }) else {
            misuse("Strata: the snapshot has no section with ID \"\(sectionID)\"")
        }
        return index
    }

    private static func checkSection(_ index: Int, in sections: Sections) {
        checkUsage(sections.indices.contains(index), "Strata: section \(index) is out of range")
    }

    private static func path(of itemID: ObjectID<Object>, in sections: Sections) -> IndexPath {
        for (section, entry) in sections.enumerated() {
            if let item = entry.itemIDs.firstIndex(of: itemID) {
                return IndexPath(item: item, section: section)
            }
        }
        misuse("Strata: the snapshot holds no item \(itemID)")
    }

    private static func remove(_ itemID: ObjectID<Object>, from sections: inout Sections) {
        let path = path(of: itemID, in: sections)
        sections[path.section].itemIDs.remove(at: path.item)
    }
}
