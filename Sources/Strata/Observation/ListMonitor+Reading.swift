import Foundation

/// Reading the list: counts, objects by position, sections and where an
/// object is, in CoreStore's spelling. The plain subscripts and
/// `sectionInfo(at:)` trap on a position out of range, as an array does;
/// the `safe` forms answer `nil` instead.
extension ListMonitor {
    // MARK: Counts

    /// How many sections the list has: always 1 for an unsectioned list,
    /// empty or not (as in NSFetchedResultsController and CoreStore).
    public func numberOfSections() -> Int { sectionRuns.count }

    /// Whether the list has a section: always for an unsectioned list.
    public func hasSections() -> Bool { !sectionRuns.isEmpty }

    /// How many objects the list holds.
    public func numberOfObjects() -> Int { members.count }

    /// How many objects section `section` holds; traps when there is no such section.
    public func numberOfObjects(in section: Int) -> Int { sectionRuns[section].count }

    /// How many objects section `section` holds, or `nil` when there is no such section.
    public func numberOfObjects(safelyIn section: Int) -> Int? {
        sectionRuns.indices.contains(section) ? sectionRuns[section].count : nil
    }

    /// Whether the list holds any object.
    public func hasObjects() -> Bool { !members.isEmpty }

    /// Whether section `section` holds any object; `false` when there is no such section.
    public func hasObjects(in section: Int) -> Bool { (numberOfObjects(safelyIn: section) ?? 0) > 0 }

    // MARK: Objects

    /// The object at `index` in the whole list.
    public subscript(index: Int) -> Object {
        uncheckedDowncast(members[index].object, to: Object.self)
    }

    /// The object at `index` in the whole list, or `nil` when out of range.
    ///
    /// ```swift
    /// if let first = monitor[safeIndex: 0] { print(first.name) }
    /// ```
    public subscript(safeIndex index: Int) -> Object? {
        (0..<members.count).contains(index) ? self[index] : nil
    }

    /// The object at `indexPath` (section, item).
    public subscript(indexPath: IndexPath) -> Object {
        uncheckedDowncast(members[position(of: indexPath)].object, to: Object.self)
    }

    /// The object at `indexPath`, or `nil` when either index is out of range.
    public subscript(safeIndexPath indexPath: IndexPath) -> Object? {
        self[safeSectionIndex: indexPath.section, safeItemIndex: indexPath.item]
    }

    /// The object at `itemIndex` in section `sectionIndex`.
    public subscript(sectionIndex: Int, itemIndex: Int) -> Object {
        self[IndexPath(item: itemIndex, section: sectionIndex)]
    }

    /// The object at `itemIndex` in section `sectionIndex`, or `nil` when
    /// either index is out of range.
    ///
    /// ```swift
    /// let person = monitor[safeSectionIndex: 2, safeItemIndex: 0]
    /// ```
    public subscript(safeSectionIndex sectionIndex: Int, safeItemIndex itemIndex: Int) -> Object? {
        guard let count = numberOfObjects(safelyIn: sectionIndex), (0..<count).contains(itemIndex) else {
            return nil
        }
        return self[sectionIndex, itemIndex]
    }

    /// Every object, in list order.
    public func objectsInAllSections() -> [Object] {
        members.map { uncheckedDowncast($0.object, to: Object.self) }
    }

    /// The objects of section `section`; traps when there is no such section.
    public func objects(in section: Int) -> [Object] { sectionInfo(at: section).objects }

    /// The objects of section `section`, or `nil` when there is no such section.
    public func objects(safelyIn section: Int) -> [Object]? { sectionInfo(safelyAt: section)?.objects }

    // MARK: Sections

    /// The section's name, index title and objects; traps when there is no such section.
    public func sectionInfo(at section: Int) -> ListSectionInfo<Object> {
        sectionInfo(at: section, of: sectionRuns, in: members)
    }

    /// Section `section` of a list held as `runs` over `members`: the
    /// current list, or the one before a change (for a deleted section).
    func sectionInfo(at section: Int, of runs: [ListSection], in members: ListMembers)
        -> ListSectionInfo<Object>
    {
        let start = Self.position(of: IndexPath(item: 0, section: section), in: runs)
        let objects = members.entries(in: start..<(start + runs[section].count)).map {
            uncheckedDowncast($0.object, to: Object.self)
        }
        let name = runs[section].name
        return ListSectionInfo(
            name: name, objects: objects, indexTitle: indexTitle(ofSectionNamed: name) ?? "")
    }

    /// The section's name, index title and objects, or `nil` when there is no such section.
    public func sectionInfo(safelyAt section: Int) -> ListSectionInfo<Object>? {
        sectionRuns.indices.contains(section) ? sectionInfo(at: section) : nil
    }

    /// Every section's name, index title and objects, in order.
    public func sections() -> [ListSectionInfo<Object>] {
        sectionRuns.indices.map(sectionInfo(at:))
    }

    /// The names of the sections, in order.
    public func sectionNames() -> [String] { sectionRuns.map(\.name) }

    /// The index titles for a table view's section index: each section's
    /// ``ListSectionInfo/indexTitle``, in section order, each title once
    /// (sections "Ann" and "Avery" share "A" when the transformer gives
    /// first letters). Sections without one (the `sectionIndexTransformer`
    /// answered `nil` or "") are left out, so a list sectioned without a
    /// transformer, or not sectioned, answers `[]`, as CoreStore's does.
    ///
    /// ```swift
    /// let monitor = try stack.monitorList(From<Person>().sectionBy(
    ///     \.$name, sectionIndexTransformer: { $0?.first.map { $0.uppercased() } }))
    /// monitor.sectionIndexTitles()   // ["A", "B", "D"]
    /// ```
    public func sectionIndexTitles() -> [String] {
        sectionIndex.index
    }

    /// The section a table view's section index should scroll to for
    /// `sectionIndexTitle`, the title at `sectionIndex` in
    /// ``sectionIndexTitles()``: the first section with that index title.
    /// For a title no section has, the section of the title at
    /// `sectionIndex`, else the last section (0 for an empty list): with no
    /// section index at all (no transformer), always the last section.
    ///
    /// ```swift
    /// let section = monitor.targetSection(forSectionIndexTitle: "B", at: 1)
    /// ```
    public func targetSection(forSectionIndexTitle sectionIndexTitle: String, at sectionIndex: Int) -> Int {
        self.sectionIndex.section(forTitle: sectionIndexTitle, at: sectionIndex)
    }

    /// The index title of a section named `name`, as the SectionBy gives
    /// it; `nil` (none) in an unsectioned list.
    func indexTitle(ofSectionNamed name: String) -> String? {
        sectionBy?.indexTitle(ofSectionNamed: name)
    }

    /// The section index of the list as it is now.
    private var sectionIndex: SectionIndexTitles {
        SectionIndexTitles(names: sectionRuns.map(\.name), title: indexTitle(ofSectionNamed:))
    }

    // MARK: Where an object is

    /// Where `object` (of any context) is in the whole list, or `nil`.
    ///
    /// ```swift
    /// if let row = monitor.index(of: person) { print("row \(row)") }
    /// ```
    public func index(of object: Object) -> Int? {
        // Of this store: an object of another store (another stack's, or
        // another configuration's) with the same row ID is not in the list.
        guard object.entity != nil, object.context?.store === main.context.store,
              let key = keysByRowID[object.rowID]
        else { return nil }
        return members.position(of: key)
    }

    /// Where `object` (of any context) is in the list, by section and item, or `nil`.
    public func indexPath(of object: Object) -> IndexPath? {
        index(of: object).map(indexPath(ofPosition:))
    }
}
