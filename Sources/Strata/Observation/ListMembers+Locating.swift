/// Finding where a batch of a monitor's members are before a commit moves
/// them.
extension ListMembers {
    /// Where the entries placed with `keys` are (row IDs distinct): the
    /// keys' indices, each with its position, the positions ascending; a key
    /// not in the list has none.
    ///
    /// A few keys are sorted and found by galloping searches, O(k log n).
    /// A batch that is a good part of the list is found in one walk over its
    /// row IDs instead: sorting 10,000 keys cost more than walking 45,000
    /// members.
    /// `walking: false` always searches (for tests).
    func locate(_ keys: [ListKey], walking: Bool = true) -> (order: [Int], positions: [Int?]) {
        if walking, let found = locateByWalking(keys) { return found }
        let (order, ascending) = ListOrdering.sorted(keys)
        return (order, positions(ofAscending: ascending))
    }

    /// ``locate(_:)`` by one walk over the list, or `nil` when the batch is
    /// small beside the list or its row IDs too far apart for a table
    /// indexed by row ID (which, like the walk, costs O(n)).
    func locateByWalking(
        _ keys: [ListKey], minimumBatch: Int = 64
    ) -> (order: [Int], positions: [Int?])? {
        guard keys.count >= minimumBatch, keys.count * 32 >= count else { return nil }
        var largest: Int64 = -1
        for index in keys.indices {
            guard keys[index].rowID >= 0 else { return nil }
            largest = Swift.max(largest, keys[index].rowID)
        }
        guard largest < Int64(4 * count + 1_024) else { return nil }
        // The index of each key by its row ID; -1 for none, and -2 once found.
        var indexByRowID = [Int32](repeating: -1, count: Int(largest) + 1)
        for index in keys.indices { indexByRowID[Int(keys[index].rowID)] = Int32(index) }
        var order: [Int] = [], positions: [Int?] = []
        order.reserveCapacity(keys.count)
        positions.reserveCapacity(keys.count)
        var start = 0
        for chunk in chunks {
            chunk.withUnsafeBufferPointer { entries in
                for offset in entries.indices {
                    let rowID = entries[offset].key.rowID
                    guard rowID <= largest, rowID >= 0 else { continue }
                    let index = indexByRowID[Int(rowID)]
                    guard index >= 0 else { continue }
                    order.append(Int(index))
                    positions.append(start + offset)
                    indexByRowID[Int(rowID)] = -2
                }
            }
            start += chunk.count
        }
        if order.count < keys.count {
            for index in keys.indices where indexByRowID[Int(keys[index].rowID)] >= 0 {
                order.append(index)
                positions.append(nil)
            }
        }
        return (order, positions)
    }
}
