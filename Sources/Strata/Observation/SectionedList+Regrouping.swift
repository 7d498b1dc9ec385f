/// Telling, after a re-fetch, whether a commit split or joined sections that
/// share a name (a `SectionBy` whose names are not monotone in its key).
extension SectionedList {
    /// Whether an ID not in `updated` that both lists hold sits in sections
    /// of different identifiers, one of them of a name that repeats (in
    /// either list): the commit split such a section or joined two, which
    /// the monitor announces as a refetch, as its in-memory update does
    /// (Docs/Observing.md, Rule 6). Identifiers are names, with an
    /// occurrence number after a NUL from a name's second section on
    /// (``ListMonitor/sectionedRowIDs()``). O(n).
    func regroupsRepeatedNames(into new: SectionedList, updated: Set<ID>) -> Bool {
        func name(_ identifier: String) -> Substring { identifier.prefix { $0 != "\u{0}" } }
        let repeated = Set((sections + new.sections).map(\.identifier).filter { $0.contains("\u{0}") }
            .map(name))
        guard !repeated.isEmpty else { return false }
        var oldSection: [ID: String] = [:]
        for section in sections {
            for id in section.items { oldSection[id] = section.identifier }
        }
        for section in new.sections {
            for id in section.items where !updated.contains(id) {
                guard let old = oldSection[id], old != section.identifier else { continue }
                if repeated.contains(name(old)) || repeated.contains(name(section.identifier)) {
                    return true
                }
            }
        }
        return false
    }
}
