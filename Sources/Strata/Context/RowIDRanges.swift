/// A set of row IDs kept as sorted, disjoint, non-adjacent ranges: a million
/// consecutive IDs take one range. Adding an ID above every other is a
/// comparison; any other add and a membership test are binary searches.
/// Meant for the row IDs a transaction gives out, which are positive and
/// below `Int64.max`.
struct RowIDRanges: Sequence {
    private var ranges: [ClosedRange<Int64>] = []

    var isEmpty: Bool { ranges.isEmpty }

    /// How many row IDs the set holds.
    var count: Int { ranges.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }

    func contains(_ rowID: Int64) -> Bool {
        let index = firstRange(endingAtOrAbove: rowID)
        return index < ranges.count && ranges[index].lowerBound <= rowID
    }

    mutating func insert(_ rowID: Int64) {
        if let last = ranges.last, last.upperBound < rowID {
            if last.upperBound == rowID &- 1 {
                ranges[ranges.count - 1] = last.lowerBound...rowID
            } else {
                ranges.append(rowID...rowID)
            }
            return
        }
        // The first range that holds the ID or could grow to take it from below.
        let index = firstRange(endingAtOrAbove: rowID &- 1)
        guard index < ranges.count else {
            ranges.append(rowID...rowID)
            return
        }
        let range = ranges[index]
        if range.contains(rowID) { return }
        if range.upperBound == rowID &- 1 {
            // Grows up, and joins the next range when that starts right after.
            if index + 1 < ranges.count, ranges[index + 1].lowerBound == rowID &+ 1 {
                ranges[index] = range.lowerBound...ranges[index + 1].upperBound
                ranges.remove(at: index + 1)
            } else {
                ranges[index] = range.lowerBound...rowID
            }
        } else if range.lowerBound == rowID &+ 1 {
            ranges[index] = rowID...range.upperBound
        } else {
            ranges.insert(rowID...rowID, at: index)
        }
    }

    /// The index of the first range whose upper bound is at least `rowID`
    /// (`ranges.count` when none is).
    private func firstRange(endingAtOrAbove rowID: Int64) -> Int {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < rowID { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func makeIterator() -> FlattenSequence<[ClosedRange<Int64>]>.Iterator {
        ranges.joined().makeIterator()
    }
}
