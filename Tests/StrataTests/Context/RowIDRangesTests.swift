import Testing

@testable import Strata

@Suite("Row ID ranges")
struct RowIDRangesTests {
    /// Random row IDs added in random order, runs and duplicates among them:
    /// the ranges hold exactly the IDs a `Set` holds, in ascending order, and
    /// answer every membership question as the set does.
    @Test func rangesHoldExactlyTheRowIDsAdded() {
        for _ in 0..<50 {
            var random = SplitMix64.random()
            var ranges = RowIDRanges()
            var expected = Set<Int64>()
            let span = 1 + Int64(random.next() % 200)
            for _ in 0..<Int(random.next() % 300) {
                var rowID = 1 + Int64(random.next() % UInt64(span))
                // Mostly upward runs, as a transaction gives IDs out.
                if random.next() % 3 != 0, let last = expected.max() { rowID = last + 1 }
                ranges.insert(rowID)
                expected.insert(rowID)
            }
            #expect(Array(ranges) == expected.sorted(), "seed \(random.seed)")
            #expect(ranges.count == expected.count, "seed \(random.seed)")
            #expect(ranges.isEmpty == expected.isEmpty, "seed \(random.seed)")
            for rowID in 0...(span + 2) where ranges.contains(rowID) != expected.contains(rowID) {
                Issue.record("seed \(random.seed): contains(\(rowID)) is \(ranges.contains(rowID))")
            }
        }
    }
}
