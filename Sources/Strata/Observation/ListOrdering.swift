/// Sorting for the monitor, outside the main actor: a closure formed in a
/// main-actor method is isolated to it, and Swift checks the executor on
/// every call when such a closure is handed to a generic algorithm. These
/// run once per changed member, so they stay nonisolated.
enum ListOrdering {
    /// `keys` in ascending order, and the index in `keys` of each.
    static func sorted(_ keys: [ListKey]) -> (order: [Int], keys: [ListKey]) {
        let order = ascending(keys.count) { keys[$0] }
        var sorted: [ListKey] = []
        sorted.reserveCapacity(order.count)
        for index in order { sorted.append(keys[index]) }
        return (order, sorted)
    }

    /// The members at `indices`, in list order: their indices in
    /// `members`, their keys and their section names.
    static func sorted(
        _ indices: [Int], of members: [ListMember]
    ) -> (order: [Int], keys: [ListKey], names: [String]) {
        let order = ascending(indices.count) { members[indices[$0]].key }.map { indices[$0] }
        var keys: [ListKey] = [], names: [String] = []
        keys.reserveCapacity(order.count)
        names.reserveCapacity(order.count)
        for index in order {
            keys.append(members[index].key)
            names.append(members[index].section)
        }
        return (order, keys, names)
    }

    /// The entries of the members at `order`, each with its final position.
    static func entries(
        at positions: [Int], of order: [Int], in members: [ListMember]
    ) -> [(position: Int, entry: ListEntry)] {
        var entries: [(position: Int, entry: ListEntry)] = []
        entries.reserveCapacity(order.count)
        for (position, index) in zip(positions, order) {
            entries.append((position, ListEntry(object: members[index].object, key: members[index].key)))
        }
        return entries
    }

    /// A key's words and row ID as plain values: sorting these moves no
    /// reference (a key's optional tail made each comparison of two keys
    /// retain and release it twice). Keys whose words tie compare in full
    /// when either has a tail.
    private struct Prefix {
        let first: UInt64, second: UInt64, third: UInt64
        let rowID: Int64
        let index: Int
        let hasTail: Bool
    }

    /// `0..<count` in ascending order of `key(index)`.
    private static func ascending(_ count: Int, key: (Int) -> ListKey) -> [Int] {
        var prefixes = (0..<count).map { index in
            let key = key(index)
            return Prefix(
                first: key.first, second: key.second, third: key.third, rowID: key.rowID,
                index: index, hasTail: key.tail != nil)
        }
        prefixes.sort { lhs, rhs in
            if lhs.first != rhs.first { return lhs.first < rhs.first }
            if lhs.second != rhs.second { return lhs.second < rhs.second }
            if lhs.third != rhs.third { return lhs.third < rhs.third }
            if lhs.hasTail || rhs.hasTail { return key(lhs.index) < key(rhs.index) }
            return lhs.rowID < rhs.rowID
        }
        return prefixes.map(\.index)
    }
}

/// Walks a list's sections forward: the section and item of each of a
/// series of ascending positions, a step per section passed instead of a
/// binary search each.
struct SectionCursor {
    private let sections: [ListSection]
    private var section = 0
    private var start = 0

    init(_ sections: [ListSection]) {
        self.sections = sections
    }

    /// The section holding `position` and its item there; `position` must
    /// not be below the one asked before.
    mutating func locate(_ position: Int) -> (section: Int, item: Int) {
        while section < sections.count - 1, start + sections[section].count <= position {
            start += sections[section].count
            section += 1
        }
        return (section, position - start)
    }
}
