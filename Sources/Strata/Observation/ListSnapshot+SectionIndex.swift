/// A snapshot's section index, for a table view's `sectionIndexTitles(for:)`
/// and `tableView(_:sectionForSectionIndexTitle:at:)`: each section's
/// index title as the list's ``SectionBy`` gives it (its
/// `sectionIndexTransformer`; without one, as in CoreStore, no section has
/// a title and the index is empty), the same titles
/// ``ListMonitor/sectionIndexTitles()`` answers. A section you add is titled
/// by the SectionBy of the snapshot it was edited from; a snapshot you make
/// has no titles.
extension ListSnapshot {
    /// The index title of section `section`, as CoreStore's data source
    /// adapters' `sectionIndexTitle(for:)`; `nil` when the section has none
    /// (its `sectionIndexTransformer` answered `nil` or "", or the list has
    /// no transformer) or there is no such section.
    ///
    /// ```swift
    /// let title = publisher.snapshot.sectionIndexTitle(for: 0)   // "A"; nil without a transformer
    /// ```
    public func sectionIndexTitle(for section: Int) -> String? {
        sectionIDs.indices.contains(section) ? sectionIndex.titles[section] : nil
    }

    /// The index titles for a table view's section index: each section's,
    /// in section order, each title once; sections without one are left
    /// out (all of them without a transformer: `[]`). The same as
    /// ``ListMonitor/sectionIndexTitles()`` of the list.
    ///
    /// ```swift
    /// publisher.snapshot.sectionIndexTitles()   // ["A", "B", "D"]
    /// ```
    public func sectionIndexTitles() -> [String] {
        sectionIndex.index
    }

    /// The section a table view's section index should scroll to for
    /// `sectionIndexTitle`, the title at `sectionIndex` in
    /// ``sectionIndexTitles()``, as ``ListMonitor/targetSection(forSectionIndexTitle:at:)``
    /// answers it: the first section with that title.
    ///
    /// ```swift
    /// let section = snapshot.targetSection(forSectionIndexTitle: "B", at: 1)
    /// ```
    public func targetSection(forSectionIndexTitle sectionIndexTitle: String, at sectionIndex: Int) -> Int {
        self.sectionIndex.section(forTitle: sectionIndexTitle, at: sectionIndex)
    }

    private var sectionIndex: SectionIndexTitles {
        SectionIndexTitles(names: sectionIDs, title: indexTitleOfSection)
    }
}
