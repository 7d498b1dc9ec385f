import Foundation

/// A copy of a list's shape: its section identifiers and, in
/// order, the ``ObjectID``s of the objects in each section.
///
/// A snapshot holds no objects, so it is `Sendable`: hand it to any task or
/// thread, and fetch the objects you need there by ID. As a collection it is
/// every item ID of every section, in list order.
///
/// ```swift
/// let publisher = try stack.publishList(
///     From<Person>().sectionBy(\.$city).orderBy(.ascending(\.$name)))
/// let snapshot = publisher.snapshot
/// for section in 0..<snapshot.numberOfSections {
///     print(snapshot.sectionIDs[section], snapshot.itemIDs(inSection: section).count)
/// }
/// Task.detached { print(snapshot.count) }  // snapshots cross threads
/// ```
///
/// Section identifiers are the ``SectionBy`` names; an unsectioned list has
/// one section named `""`, empty or not (as a ``ListMonitor`` has), and an
/// empty sectioned list has none. Two
/// sections share a name only when a ``SectionBy`` names different key values
/// alike and other values sort between them.
public struct ListSnapshot<Object: ManagedObject>: Sendable, Equatable, RandomAccessCollection {
    /// The section identifiers (the section names), in order.
    ///
    /// ```swift
    /// let names = publisher.snapshot.sectionIDs  // ["Berlin", "Paris"]
    /// ```
    public let sectionIDs: [String]

    /// Every item, in list order.
    private let items: [ObjectID<Object>]

    /// `sectionEnds[s]` is the position just past section `s`'s last item.
    private let sectionEnds: [Int]

    /// The items the change that made this snapshot inserted, moved or
    /// updated, as a ``ListMonitor`` reports them: the rows a data source
    /// reloads, since an item's ID stays the same when its object changes.
    /// A commit a monitor's observers hear of as a refetch (sections of one
    /// name split or joined) names the items it inserted or updated too.
    /// Empty in a publisher's first snapshot, after a `refetch`, and in a
    /// snapshot you make. Equality leaves it out: two snapshots are equal
    /// when they list the same sections and items.
    ///
    /// ```swift
    /// publisher.addObserver(self) { publisher in
    ///     let snapshot = publisher.snapshot
    ///     reload(rowsOf: snapshot.updatedItemIDs.compactMap(snapshot.indexPath(of:)))
    /// }
    /// ```
    public internal(set) var updatedItemIDs: Set<ObjectID<Object>>

    /// CoreStore's name for ``updatedItemIDs``.
    public var updatedItemIdentifiers: Set<ObjectID<Object>> { updatedItemIDs }

    /// The index title of a section named by its argument (`nil` for none):
    /// the ``SectionBy``'s, in a publisher's snapshot, kept through edits;
    /// none in a snapshot you make. Equality leaves it out, as it does
    /// ``updatedItemIDs``.
    var indexTitleOfSection: @Sendable (String) -> String?

    /// An empty snapshot: no sections, no items.
    ///
    /// ```swift
    /// let nothing = ListSnapshot<Person>()
    /// assert(nothing.isEmpty && nothing.numberOfSections == 0)
    /// ```
    public init() {
        self.init(sections: [])
    }

    /// A snapshot of `sections`, each a section identifier and its item IDs in order.
    ///
    /// ```swift
    /// let snapshot = ListSnapshot(sections: [("A", [ann.objectID]), ("B", [bob.objectID])])
    /// ```
    public init(sections: [(id: String, itemIDs: [ObjectID<Object>])]) {
        var items: [ObjectID<Object>] = []
        items.reserveCapacity(sections.reduce(0) { $0 + $1.itemIDs.count })
        var ends: [Int] = []
        ends.reserveCapacity(sections.count)
        for section in sections {
            items.append(contentsOf: section.itemIDs)
            ends.append(items.count)
        }
        self.init(sectionIDs: sections.map(\.id), items: items, sectionEnds: ends)
    }

    /// The flat form the monitor builds directly; `sectionEnds` must be
    /// non-decreasing, one per section, the last equal to `items.count`.
    init(
        sectionIDs: [String], items: [ObjectID<Object>], sectionEnds: [Int],
        updatedItemIDs: Set<ObjectID<Object>> = [],
        indexTitleOfSection: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        precondition(sectionIDs.count == sectionEnds.count && (sectionEnds.last ?? 0) == items.count)
        self.sectionIDs = sectionIDs
        self.items = items
        self.sectionEnds = sectionEnds
        self.updatedItemIDs = updatedItemIDs
        self.indexTitleOfSection = indexTitleOfSection
    }

    /// Equal when both list the same sections, named alike, holding the same
    /// items in the same order; ``updatedItemIDs`` is not compared, nor how
    /// sections are titled in a section index (the ``SectionBy``'s closure,
    /// which cannot be compared).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.sectionIDs == rhs.sectionIDs && lhs.sectionEnds == rhs.sectionEnds && lhs.items == rhs.items
    }

    // MARK: Sections

    /// How many sections the list has.
    ///
    /// ```swift
    /// let sections = publisher.snapshot.numberOfSections
    /// ```
    public var numberOfSections: Int { sectionIDs.count }

    /// Whether the list has a section: always for an unsectioned list, as
    /// ``ListMonitor/hasSections()`` answers.
    ///
    /// ```swift
    /// if !snapshot.hasSections() { showPlaceholder() }
    /// ```
    public func hasSections() -> Bool { !sectionIDs.isEmpty }

    /// Whether the list holds any item.
    ///
    /// ```swift
    /// let empty = !publisher.snapshot.hasItems()
    /// ```
    public func hasItems() -> Bool { !items.isEmpty }

    /// Whether section `section` holds any item; `false` when there is no such section.
    ///
    /// ```swift
    /// if snapshot.hasItems(inSection: 1) { print(snapshot.itemIDs(inSection: 1)) }
    /// ```
    public func hasItems(inSection section: Int) -> Bool {
        sectionIDs.indices.contains(section) && !range(ofSection: section).isEmpty
    }

    /// How many items the list holds, in all sections (the collection's `count`).
    ///
    /// ```swift
    /// let rows = snapshot.numberOfItems
    /// ```
    public var numberOfItems: Int { items.count }

    /// Every item ID, in list order, across sections.
    ///
    /// ```swift
    /// let ids: [ObjectID<Person>] = snapshot.itemIDs
    /// ```
    public var itemIDs: [ObjectID<Object>] { items }

    /// The item IDs of section `section`, in order, indexed from 0 as in
    /// CoreStore (an array, not a slice of the whole list, whose indices
    /// would start at the section's first position).
    ///
    /// ```swift
    /// let first = snapshot.itemIDs(inSection: 1).first
    /// ```
    ///
    /// - Precondition: `0 <= section < numberOfSections`.
    public func itemIDs(inSection section: Int) -> [ObjectID<Object>] {
        Array(items[range(ofSection: section)])
    }

    /// How many items section `section` holds.
    ///
    /// ```swift
    /// let rows = snapshot.numberOfItems(inSection: 0)
    /// ```
    public func numberOfItems(inSection section: Int) -> Int {
        range(ofSection: section).count
    }

    // MARK: Index paths

    /// Where the item with `id` is, as (section, item), or `nil` if the list
    /// does not hold it. O(n): a linear search.
    ///
    /// ```swift
    /// if let path = snapshot.indexPath(of: person.objectID) { print(path.section, path.item) }
    /// ```
    public func indexPath(of id: ObjectID<Object>) -> IndexPath? {
        guard let position = items.firstIndex(of: id) else { return nil }
        return indexPath(ofPosition: position)
    }

    /// The item ID at `indexPath` (section, item).
    ///
    /// ```swift
    /// let first = snapshot[IndexPath(item: 0, section: 1)]
    /// ```
    ///
    /// - Precondition: the index path is inside the list.
    public subscript(indexPath: IndexPath) -> ObjectID<Object> {
        let range = range(ofSection: indexPath.section)
        checkUsage((0..<range.count).contains(indexPath.item), "Strata: item \(indexPath.item) is out of range")
        return items[range.lowerBound + indexPath.item]
    }

    /// The (section, item) index path of the item at `position` in the whole list.
    ///
    /// ```swift
    /// let path = snapshot.indexPath(ofPosition: snapshot.count - 1)
    /// ```
    public func indexPath(ofPosition position: Int) -> IndexPath {
        checkUsage(items.indices.contains(position), "Strata: position \(position) is out of range")
        return IndexPath(position: position, sectionEnds: sectionEnds)
    }

    private func range(ofSection section: Int) -> Range<Int> {
        checkUsage(sectionIDs.indices.contains(section), "Strata: section \(section) is out of range")
        return (section == 0 ? 0 : sectionEnds[section - 1])..<sectionEnds[section]
    }

    // MARK: RandomAccessCollection

    /// The position of the first item: 0.
    public var startIndex: Int { 0 }

    /// One past the last item's position: the number of items.
    public var endIndex: Int { items.count }

    /// The item ID at `position` in the whole list, across sections.
    ///
    /// ```swift
    /// let firstID = snapshot[0]
    /// ```
    public subscript(position: Int) -> ObjectID<Object> { items[position] }
}

extension ListSnapshot: CustomStringConvertible {
    /// The sections and their row IDs, e.g. `["A": [1, 4], "B": [2]]`.
    public var description: String {
        let sections = sectionIDs.indices.map { section in
            "\"\(sectionIDs[section])\": \(itemIDs(inSection: section).map(\.rowID))"
        }
        return "[\(sections.joined(separator: ", "))]"
    }
}
