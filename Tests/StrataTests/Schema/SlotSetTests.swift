import Testing
@testable import Strata

@Suite("SlotSet: the slots an update sets")
struct SlotSetTests {
    /// Random sets of slots, some past the 64 kept as bits, hold what a
    /// `Set<Int>` holds, list it in ascending order, and compare, hash and
    /// intersect alike.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func slotSetsAgreeWithSets(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        func randomSlots() -> [Int] {
            let width = [8, 64, 65, 130][Int(random.next() % 4)]
            return (0..<width).filter { _ in random.next() % 3 == 0 }
        }
        for _ in 0..<200 {
            let (a, b) = (randomSlots(), randomSlots())
            var setA = SlotSet(), setB = SlotSet()
            for slot in a { setA.insert(slot) }
            for slot in b { setB.insert(slot) }
            #expect(Array(setA) == a, "seed \(seed)")
            #expect(setA.count == a.count && setA.isEmpty == a.isEmpty, "seed \(seed)")
            #expect(Array(setA.intersection(setB)) == a.filter(Set(b).contains), "seed \(seed)")
            #expect((setA == setB) == (a == b), "seed \(seed): \(a) \(b)")
            if a == b { #expect(setA.hashValue == setB.hashValue, "seed \(seed)") }
        }
    }

    @Test
    func insertingASlotTwiceKeepsItOnce() {
        var slots = SlotSet()
        for slot in [3, 3, 70, 70, 0] { slots.insert(slot) }
        #expect(Array(slots) == [0, 3, 70])
    }
}
