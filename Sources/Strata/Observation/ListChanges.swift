import Foundation

/// The changes that turn one sectioned list into the next, in the batch-update convention of
/// `NSFetchedResultsController` and UIKit's `performBatchUpdates`.
///
/// Old-side positions (`deletedSections`, `deletes`, `Move.from`, `updates`) index the list
/// before the change; new-side positions (`insertedSections`, `inserts`, `Move.to`) index the
/// list after it. Every object appears at most once: a surviving object whose position among
/// the other survivors changed, or whose section changed, is one move (even if it was also
/// updated); an update is reported only for a surviving object that did not move. A section
/// deletion comes with the deletes (or moves out) of every object it held, and a section
/// insertion with the inserts (or moves in) of every object it holds.
///
/// ```swift
/// // [a: [1, 2, 3], b: [4, 5]]  →  [a: [1, 3], b: [4, 2, 5]]
/// ListChanges(moves: [.init(from: IndexPath(item: 1, section: 0),
///                           to: IndexPath(item: 1, section: 1))])
/// ```
package struct ListChanges: Sendable, Equatable {
    /// One surviving object that changed position: from its old index path to its new one.
    struct Move: Sendable, Hashable {
        /// The object's index path in the old list.
        var from: IndexPath
        /// The object's index path in the new list.
        var to: IndexPath
    }

    /// A description of why a batch of changes cannot be applied to a list.
    struct Inconsistency: Error, Equatable, CustomStringConvertible {
        /// What is wrong, naming the offending index path or section.
        var description: String
    }

    /// Indices, in the old list, of sections that are gone; ascending.
    var deletedSections: [Int] = []
    /// Indices, in the new list, of sections that are new; ascending.
    var insertedSections: [Int] = []
    /// Old index paths of objects that left the list; ascending.
    var deletes: [IndexPath] = []
    /// New index paths of objects that joined the list; ascending.
    var inserts: [IndexPath] = []
    /// Surviving objects that changed position or section; ascending by new index path.
    var moves: [Move] = []
    /// Old index paths of surviving, unmoved objects that were updated; ascending.
    var updates: [IndexPath] = []

    /// Whether there is nothing to report.
    package var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletes.isEmpty
            && inserts.isEmpty && moves.isEmpty && updates.isEmpty
    }
}

extension ListChanges {
    /// Applies these changes to `old` the way UIKit applies a batch update, and returns the
    /// result; a consistent batch returns exactly `new`.
    ///
    /// First, against the old indices, the item deletes and move sources are removed, then the
    /// deleted sections (each must be empty by then); next, against the new indices, the
    /// inserted sections are added (empty), then the inserted items and move destinations,
    /// ascending. Updates change nothing but must name surviving, unmoved objects. Inserted
    /// sections take their identifier and inserted items their ID from `new`, so the comparison
    /// with `new` checks where every surviving object ended up. O(n + k log k) for a list of
    /// n objects and k changes.
    ///
    /// - Throws: `Inconsistency` when an index path is out of range or malformed, a position is
    ///   named twice, an update names a deleted or moved object, a deleted section keeps
    ///   objects, or the section or object counts do not add up to `new`.
    func apply<ID: Hashable>(
        to old: SectionedList<ID>, insertingFrom new: SectionedList<ID>
    ) throws(Inconsistency) -> SectionedList<ID> {
        let deletedSectionSet = try Self.uniqueIndices(
            deletedSections, below: old.sections.count, role: "deleted section")
        let removed = try oldSidePaths(in: old)

        // Phase 1, old indices: remove deleted and moved objects, then deleted sections.
        var remaining: [SectionedList<ID>.Section] = []
        for (sectionIndex, section) in old.sections.enumerated() {
            var kept: [ID] = []
            for (itemIndex, id) in section.items.enumerated()
            where !removed.contains(IndexPath(item: itemIndex, section: sectionIndex)) {
                kept.append(id)
            }
            if deletedSectionSet.contains(sectionIndex) {
                guard kept.isEmpty else {
                    throw Inconsistency(
                        description: "section \(sectionIndex) is deleted but \(kept.count) of "
                            + "its objects are neither deleted nor moved out")
                }
            } else {
                remaining.append(.init(identifier: section.identifier, items: kept))
            }
        }

        // Phase 2, new indices: insert empty sections, then objects ascending.
        let sectionCount = remaining.count + insertedSections.count
        guard sectionCount == new.sections.count else {
            throw Inconsistency(
                description: "the batch leaves \(sectionCount) sections but the new list has "
                    + "\(new.sections.count)")
        }
        let insertedSectionSet = try Self.uniqueIndices(
            insertedSections, below: sectionCount, role: "inserted section")
        var result: [SectionedList<ID>.Section] = []
        result.reserveCapacity(sectionCount)
        var survivors = remaining.makeIterator()
        for sectionIndex in 0..<sectionCount {
            if insertedSectionSet.contains(sectionIndex) {
                result.append(.init(identifier: new.sections[sectionIndex].identifier, items: []))
            } else if let survivor = survivors.next() {
                result.append(survivor)
            }
        }
        for (sectionIndex, additions) in try newSideAdditions(old: old, new: new) {
            result[sectionIndex].items = try Self.merge(
                additions, into: result[sectionIndex].items, section: sectionIndex)
        }
        return SectionedList(sections: result)
    }

    /// The old index paths of deletes and move sources, after checking them and the updates.
    private func oldSidePaths<ID: Hashable>(
        in old: SectionedList<ID>
    ) throws(Inconsistency) -> Set<IndexPath> {
        var removed = Set<IndexPath>(minimumCapacity: deletes.count + moves.count)
        for path in deletes + moves.map(\.from) {
            try Self.check(path, in: old, role: "deleted or moved object")
            guard removed.insert(path).inserted else {
                throw Inconsistency(description: "old index path \(path) is deleted or moved twice")
            }
        }
        var updated = Set<IndexPath>(minimumCapacity: updates.count)
        for path in updates {
            try Self.check(path, in: old, role: "updated object")
            guard !removed.contains(path) else {
                throw Inconsistency(
                    description: "update at \(path) names a deleted or moved object")
            }
            guard updated.insert(path).inserted else {
                throw Inconsistency(description: "old index path \(path) is updated twice")
            }
        }
        return removed
    }

    /// The inserted and moved-in objects of each new section, sorted by new item index.
    private func newSideAdditions<ID: Hashable>(
        old: SectionedList<ID>, new: SectionedList<ID>
    ) throws(Inconsistency) -> [Int: [(item: Int, id: ID)]] {
        var targets = Set<IndexPath>(minimumCapacity: inserts.count + moves.count)
        var additions: [Int: [(item: Int, id: ID)]] = [:]
        func add(_ path: IndexPath, _ id: ID) throws(Inconsistency) {
            guard path.count == 2, new.sections.indices.contains(path.section), path.item >= 0
            else {
                throw Inconsistency(description: "new index path \(path) is out of range")
            }
            guard targets.insert(path).inserted else {
                throw Inconsistency(description: "new index path \(path) is filled twice")
            }
            additions[path.section, default: []].append((path.item, id))
        }
        for path in inserts {
            try Self.check(path, in: new, role: "inserted object")
            try add(path, new[path])
        }
        for move in moves {
            try add(move.to, old[move.from])
        }
        for key in additions.keys {
            additions[key]!.sort { $0.item < $1.item }
        }
        return additions
    }

    /// `items` with `additions` (sorted, distinct item indices) inserted ascending, as
    /// successive `insert(_:at:)` calls would, in one linear pass.
    private static func merge<ID>(
        _ additions: [(item: Int, id: ID)], into items: [ID], section: Int
    ) throws(Inconsistency) -> [ID] {
        let count = items.count + additions.count
        if let last = additions.last, last.item >= count {
            throw Inconsistency(
                description: "new index path \(IndexPath(item: last.item, section: section)) is "
                    + "past the end of a section that ends with \(count) objects")
        }
        var merged: [ID] = []
        merged.reserveCapacity(count)
        var nextAddition = 0
        var nextItem = 0
        for index in 0..<count {
            if nextAddition < additions.count, additions[nextAddition].item == index {
                merged.append(additions[nextAddition].id)
                nextAddition += 1
            } else {
                merged.append(items[nextItem])
                nextItem += 1
            }
        }
        return merged
    }

    /// Checks that `path` names an object of `list`.
    private static func check<ID: Hashable>(
        _ path: IndexPath, in list: SectionedList<ID>, role: String
    ) throws(Inconsistency) {
        guard path.count == 2, list.sections.indices.contains(path.section),
            list.sections[path.section].items.indices.contains(path.item)
        else {
            throw Inconsistency(description: "\(role) at \(path) is out of range")
        }
    }

    /// `indices` as a set, after checking each is in `0..<bound` and none repeats.
    private static func uniqueIndices(
        _ indices: [Int], below bound: Int, role: String
    ) throws(Inconsistency) -> Set<Int> {
        var set = Set<Int>(minimumCapacity: indices.count)
        for index in indices {
            guard (0..<bound).contains(index) else {
                throw Inconsistency(description: "\(role) \(index) is out of range 0..<\(bound)")
            }
            guard set.insert(index).inserted else {
                throw Inconsistency(description: "\(role) \(index) is named twice")
            }
        }
        return set
    }
}

extension ListChanges: CustomStringConvertible {
    /// The non-empty categories, one per line, for test failure messages.
    package var description: String {
        func line(_ name: String, _ values: [some CustomStringConvertible]) -> String? {
            values.isEmpty ? nil : "\(name): \(values.map(\.description).joined(separator: " "))"
        }
        let lines = [
            line("deletedSections", deletedSections), line("insertedSections", insertedSections),
            line("deletes", deletes), line("inserts", inserts),
            line("moves", moves.map { "\($0.from)->\($0.to)" }), line("updates", updates),
        ]
        let text = lines.compactMap { $0 }.joined(separator: "\n")
        return text.isEmpty ? "no changes" : text
    }
}
