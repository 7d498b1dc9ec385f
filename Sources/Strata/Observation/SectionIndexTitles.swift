/// A table view's section index over a list's sections, as ``ListMonitor``
/// and ``ListSnapshot`` both answer it, from the section names and the
/// ``SectionBy``'s index title of a name: one computation, so the two agree.
struct SectionIndexTitles {
    /// Each section's index title, in section order; `nil` for none.
    let titles: [String?]

    init(names: [String], title: (String) -> String?) {
        titles = names.map(title)
    }

    /// The titles of the index: each section's, in section order, each once
    /// (sections "Ann" and "Avery" share "A"), those without one left out.
    var index: [String] {
        var seen: Set<String> = []
        return titles.compactMap { title in
            guard let title, seen.insert(title).inserted else { return nil }
            return title
        }
    }

    /// The section the index entry `title`, at `position` in ``index``,
    /// leads to: the first section with that title; for a title no section
    /// has, the first section of the entry at `position`, else the last
    /// section (0 for no section).
    func section(forTitle title: String, at position: Int) -> Int {
        if let section = titles.firstIndex(of: title) { return section }
        let index = self.index
        if index.indices.contains(position), let section = titles.firstIndex(of: index[position]) {
            return section
        }
        return max(titles.count - 1, 0)
    }
}
