import Foundation

/// A list of distinct IDs in sections with distinct identifiers: what a list monitor shows,
/// reduced to what a diff needs.
package struct SectionedList<ID: Hashable>: Equatable {
    /// One section: its identifier (the section name) and the IDs it holds, in order.
    package struct Section: Equatable {
        /// The section's identifier, unique within the list.
        package var identifier: String
        /// The IDs in the section, in display order.
        package var items: [ID]

        /// A section `identifier` holding `items`.
        package init(identifier: String, items: [ID]) {
            self.identifier = identifier
            self.items = items
        }
    }

    /// The sections, in display order.
    package var sections: [Section]

    /// A list of `sections`.
    package init(sections: [Section] = []) {
        self.sections = sections
    }

    /// A list built from `(identifier, items)` pairs, for tests and examples.
    ///
    /// ```swift
    /// SectionedList([("a", [1, 2]), ("b", [3])])
    /// ```
    init(_ sections: [(String, [ID])]) {
        self.sections = sections.map { Section(identifier: $0.0, items: $0.1) }
    }

    /// The ID at `indexPath` (section, item); traps when it is out of range.
    subscript(indexPath: IndexPath) -> ID {
        sections[indexPath.section].items[indexPath.item]
    }

    /// The number of IDs in all sections.
    var count: Int {
        sections.reduce(0) { $0 + $1.items.count }
    }
}

extension SectionedList: Sendable where ID: Sendable {}
extension SectionedList.Section: Sendable where ID: Sendable {}

extension SectionedList: CustomStringConvertible {
    /// The sections as `[a: 1 2 | b: 3]`, for test failure messages.
    package var description: String {
        let sections = sections.map { section in
            ([section.identifier + ":"] + section.items.map { "\($0)" }).joined(separator: " ")
        }
        return "[" + sections.joined(separator: " | ") + "]"
    }
}

/// The diff a list monitor falls back to after a re-fetch: the `ListChanges` from the list it
/// showed to the list it fetched.
///
/// Sections are matched by identifier; objects by ID. O((n + m) log(n + m)) in the worst case
/// for lists of n and m IDs, and O(n + m) expected when the survivors keep their relative order
/// (the usual case): one hashing pass over each list, then a longest increasing subsequence
/// (patience sorting, O(s log s)) over the s survivors of each section, skipped when they are
/// already in order.
package enum ListDiff {
    /// The changes from `old` to `new`, reporting `updated` IDs that survive unmoved as updates.
    ///
    /// - Sections whose identifier is only in `old` are deleted, only in `new` inserted. Shared
    ///   sections that changed relative order (a monitor never produces this) are reported as
    ///   deleted and inserted, keeping as many in place as possible.
    /// - An ID only in `old` is a delete, only in `new` an insert. An ID in both is a move when
    ///   its section changed (or was deleted and inserted) or it is not in the largest set of
    ///   its section's survivors that kept their relative order; so the moves are as few as
    ///   possible. Otherwise it is an update at its old index path if it is in `updated`.
    /// - IDs in `updated` that are deleted, inserted or moved add nothing.
    /// - An ID in `moved` (whose sort key changed) that survives is always a move, even to the
    ///   index path it had, as the in-memory update reports it; the others that kept their
    ///   order stay in place around it.
    ///
    /// Each list must hold distinct IDs and distinct section identifiers; a repeat traps.
    package static func changes<ID: Hashable>(
        from old: SectionedList<ID>, to new: SectionedList<ID>, updated: Set<ID>, moved: Set<ID> = []
    ) -> ListChanges {
        var changes = ListChanges()
        let newSectionOfOld = matchSections(old, new, into: &changes)

        var oldPositions = [ID: Position](minimumCapacity: old.count)
        for (sectionIndex, section) in old.sections.enumerated() {
            for (itemIndex, id) in section.items.enumerated() {
                let previous = oldPositions.updateValue(
                    Position(section: sectionIndex, item: itemIndex), forKey: id)
                precondition(previous == nil, "ID \(id) appears twice in the old list")
            }
        }
        // One hash lookup per new ID: whether each old ID survives is kept by old position.
        var survives = old.sections.map { [Bool](repeating: false, count: $0.items.count) }
        var insertedIDs = Set<ID>()
        // Each new item's old position, and whether it may stay in place (same section, key unchanged).
        var resolved: [(position: Position?, mayStay: Bool)] = []
        var stayedOldItems: [Int] = []
        for (sectionIndex, section) in new.sections.enumerated() {
            resolved.removeAll(keepingCapacity: true)
            stayedOldItems.removeAll(keepingCapacity: true)
            for id in section.items {
                let position = oldPositions[id]
                var mayStay = false
                if let position {
                    precondition(
                        !survives[position.section][position.item],
                        "ID \(id) appears twice in the new list")
                    survives[position.section][position.item] = true
                    mayStay = newSectionOfOld[position.section] == sectionIndex
                        && (moved.isEmpty || !moved.contains(id))
                    if mayStay { stayedOldItems.append(position.item) }
                } else {
                    precondition(
                        insertedIDs.insert(id).inserted, "ID \(id) appears twice in the new list")
                }
                resolved.append((position, mayStay))
            }
            let inOrder = longestIncreasingSubsequence(stayedOldItems)
            var nextStayed = 0
            for (itemIndex, (position, stays)) in resolved.enumerated() {
                let newPath = IndexPath(item: itemIndex, section: sectionIndex)
                guard let position else {
                    changes.inserts.append(newPath)
                    continue
                }
                if stays, inOrder[nextStayed] {
                    if !updated.isEmpty, updated.contains(section.items[itemIndex]) {
                        changes.updates.append(position.indexPath)
                    }
                } else {
                    changes.moves.append(.init(from: position.indexPath, to: newPath))
                }
                if stays { nextStayed += 1 }
            }
        }
        for (sectionIndex, flags) in survives.enumerated() {
            for (itemIndex, survived) in flags.enumerated() where !survived {
                changes.deletes.append(IndexPath(item: itemIndex, section: sectionIndex))
            }
        }
        return changes
    }

    /// An object's place in the old list, without `IndexPath`'s storage overhead.
    private struct Position {
        /// The section index.
        var section: Int
        /// The index within the section.
        var item: Int

        /// The position as an index path.
        var indexPath: IndexPath { IndexPath(item: item, section: section) }
    }

    /// Fills the section deletes and inserts of `changes`, and returns, for each old section,
    /// the index of the new section it stays as, or nil when it is deleted.
    private static func matchSections<ID>(
        _ old: SectionedList<ID>, _ new: SectionedList<ID>, into changes: inout ListChanges
    ) -> [Int?] {
        var oldIndexOf = [String: Int](minimumCapacity: old.sections.count)
        for (index, section) in old.sections.enumerated() {
            let previous = oldIndexOf.updateValue(index, forKey: section.identifier)
            precondition(
                previous == nil, "section \(section.identifier) appears twice in the old list")
        }
        var shared: [(old: Int, new: Int)] = []
        var newIdentifiers = Set<String>(minimumCapacity: new.sections.count)
        for (index, section) in new.sections.enumerated() {
            precondition(
                newIdentifiers.insert(section.identifier).inserted,
                "section \(section.identifier) appears twice in the new list")
            if let oldIndex = oldIndexOf[section.identifier] { shared.append((oldIndex, index)) }
        }
        var newSectionOfOld = [Int?](repeating: nil, count: old.sections.count)
        var kept = [Bool](repeating: false, count: new.sections.count)
        let inOrder = longestIncreasingSubsequence(shared.map(\.old))
        for (position, pair) in shared.enumerated() where inOrder[position] {
            newSectionOfOld[pair.old] = pair.new
            kept[pair.new] = true
        }
        changes.deletedSections = newSectionOfOld.indices.filter { newSectionOfOld[$0] == nil }
        changes.insertedSections = kept.indices.filter { !kept[$0] }
        return newSectionOfOld
    }

    /// Marks the members of one longest strictly increasing subsequence of `values` (distinct
    /// integers): O(n) when they are already increasing, O(n log n) by patience sorting
    /// otherwise.
    static func longestIncreasingSubsequence(_ values: [Int]) -> [Bool] {
        if zip(values, values.dropFirst()).allSatisfy({ $0 < $1 }) {
            return [Bool](repeating: true, count: values.count)
        }
        // tails[k]: position of the smallest value ending an increasing run of length k + 1.
        var tails: [Int] = []
        var predecessor = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { predecessor[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var members = [Bool](repeating: false, count: values.count)
        var position = tails.last ?? -1
        while position >= 0 {
            members[position] = true
            position = predecessor[position]
        }
        return members
    }
}
