/// A set of an entity's value slots, such as the columns one `UPDATE` sets or
/// the fields a commit changed in one object: the first 64 slots as bits, so
/// that an entity of up to 64 attributes needs no allocation per set (a flush
/// makes one per changed object).
struct SlotSet: Hashable, Sequence {
    /// Slots 0..<64, one bit each.
    private var low: UInt64 = 0
    /// Slots from 64 on, ascending.
    private var high: [Int] = []

    var isEmpty: Bool { low == 0 && high.isEmpty }

    /// How many slots the set holds.
    var count: Int { low.nonzeroBitCount + high.count }

    /// Adds `slot`; slots from 64 on must come in ascending order.
    mutating func insert(_ slot: Int) {
        if slot < 64 {
            low |= 1 << UInt64(slot)
        } else if high.last.map({ $0 < slot }) ?? true {
            high.append(slot)
        }
    }

    /// The slots also in `other`.
    func intersection(_ other: SlotSet) -> SlotSet {
        var result = SlotSet()
        result.low = low & other.low
        result.high = high.filter(other.high.contains)
        return result
    }

    /// The slots in ascending order.
    func makeIterator() -> Iterator { Iterator(bits: low, high: high.makeIterator()) }

    struct Iterator: IteratorProtocol {
        var bits: UInt64
        var high: IndexingIterator<[Int]>

        mutating func next() -> Int? {
            guard bits != 0 else { return high.next() }
            let slot = bits.trailingZeroBitCount
            bits &= bits - 1
            return slot
        }
    }
}
