/// Each member's key by row ID, for finding where a changed object was.
///
/// A commit of k changes reads and writes k entries at random; in a
/// dictionary each costs a hash and three places in memory (control bytes,
/// keys, values), which for a list of 100,000 members are mostly cache
/// misses. Row IDs are mostly dense (SQLite hands them out in order), so
/// keys sit in an array indexed by row ID: one place per entry. Row IDs past
/// what that array would justify (about four slots per member, at least
/// 64, so that a small list costs little) go to a dictionary, as in the
/// identity map.
struct ListKeyMap {
    /// By row ID; an entry whose row ID differs from its index is empty.
    private var direct: ContiguousArray<ListKey> = []
    private var overflow: [Int64: ListKey] = [:]
    private(set) var count = 0

    init() {}

    init(_ keys: [ListKey]) {
        // Sized once for the largest row ID when the array would be dense enough.
        if let largest = keys.lazy.map(\.rowID).max(), largest >= 0,
           largest < Int64(max(64, 4 * (keys.count + 1))) {
            direct = ContiguousArray(repeating: Self.empty, count: Int(largest) + 1)
        }
        for key in keys { updateValue(key, forKey: key.rowID) }
    }

    /// The key of the member with `rowID`, or `nil`.
    subscript(rowID: Int64) -> ListKey? {
        get {
            if rowID >= 0, rowID < Int64(direct.count) {
                let key = direct[Int(rowID)]
                return key.rowID == rowID ? key : nil
            }
            return overflow[rowID]
        }
        set {
            if let newValue {
                updateValue(newValue, forKey: rowID)
            } else {
                removeValue(forKey: rowID)
            }
        }
    }

    /// Sets the key of the member with `rowID`; returns the one it replaces.
    @discardableResult
    mutating func updateValue(_ key: ListKey, forKey rowID: Int64) -> ListKey? {
        if rowID >= 0, rowID < Int64(direct.count) {
            let old = direct[Int(rowID)]
            direct[Int(rowID)] = key
            if old.rowID == rowID { return old }
            count += 1
            return nil
        }
        // The array grows while it stays at most ~4 slots per member.
        let limit = Int64(max(64, 4 * (count + 1)))
        if rowID >= 0, rowID < limit {
            grow(to: min(Int(limit), max(Int(rowID) + 1, direct.count * 2)))
            // Growing may have moved this row's key in from the overflow.
            let old = direct[Int(rowID)]
            direct[Int(rowID)] = key
            if old.rowID == rowID { return old }
            count += 1
            return nil
        }
        let old = overflow.updateValue(key, forKey: rowID)
        if old == nil { count += 1 }
        return old
    }

    /// Forgets the member with `rowID`; returns its key.
    @discardableResult
    mutating func removeValue(forKey rowID: Int64) -> ListKey? {
        if rowID >= 0, rowID < Int64(direct.count) {
            let old = direct[Int(rowID)]
            guard old.rowID == rowID else { return nil }
            direct[Int(rowID)] = Self.empty
            count -= 1
            return old
        }
        let old = overflow.removeValue(forKey: rowID)
        if old != nil { count -= 1 }
        return old
    }

    /// An empty slot: no row ID is -1 (SQLite's are positive), so it never matches its index.
    private static let empty = ListKey([], specs: [], rowID: -1)

    /// Extends the array to `size` slots, moving in the overflow's keys of
    /// the new range (the array is read first).
    private mutating func grow(to size: Int) {
        let oldCount = direct.count
        direct.append(contentsOf: repeatElement(Self.empty, count: size - oldCount))
        guard !overflow.isEmpty else { return }
        for (rowID, key) in overflow where rowID >= Int64(oldCount) && rowID < Int64(size) {
            direct[Int(rowID)] = key
        }
        overflow = overflow.filter { $0.key < Int64(oldCount) || $0.key >= Int64(size) }
    }
}
