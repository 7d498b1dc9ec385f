import Testing

@testable import Strata

/// Predicates far larger than SQLite's expression depth limit (1,000) and
/// its default IN-list comfort zone still fetch exactly what Swift filtering finds.
@MainActor
@Suite("Where: large predicates")
struct LargePredicateTests {
    private static let itemCount = 6_000
    private static let termCount = 5_000

    /// Items numbered 0..<6,000 with text "n<number>"; returned in row-ID order.
    private func makeItems() throws -> (DataStack, [ProbeItem], TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for number in 0..<Self.itemCount {
                let item = tx.create(Into<ProbeItem>())
                item.number = number
                item.text = "n\(number)"
                item.maybe = number.isMultiple(of: 7) ? nil : number
            }
        })
        return (stack, try stack.fetchAll(From<ProbeItem>()), directory)
    }

    /// 5,000 distinct numbers out of 0..<6,000, and some that match nothing.
    private func chosenNumbers(seed: UInt64) -> [Int] {
        var random = SplitMix64(seed: seed)
        let matching = Array(
            (0..<Self.itemCount).shuffled(using: &random).prefix(Self.termCount - 100))
        return matching + (0..<100).map { Self.itemCount + $0 }
    }

    /// Every 40th item: enough to compare evaluation in memory at a bounded cost.
    private func sampled(_ items: [ProbeItem]) -> [ProbeItem] {
        stride(from: 0, to: items.count, by: 40).map { items[$0] }
    }

    private func rowIDs(_ items: [ProbeItem], where test: (ProbeItem) -> Bool) -> [Int64] {
        items.filter(test).map(\.rowID)
    }

    @Test func anyOfFiveThousandEqualitiesFetchesTheirObjects() throws {
        let (stack, items, directory) = try makeItems()
        let numbers = chosenNumbers(seed: 11)
        let wanted = Set(numbers)
        // On one field: compiled as IN lists.
        let sameField = Where<ProbeItem>.any(numbers.map { \.$number == $0 })
        let fetched = try stack.fetchAll(From<ProbeItem>().where(sameField)).map(\.rowID)
        #expect(fetched == rowIDs(items) { wanted.contains($0.number) })
        #expect(fetched.count == Self.termCount - 100)
        // On alternating fields: a balanced OR tree of 5,000 terms.
        let mixed = Where<ProbeItem>.any(
            numbers.enumerated().map { index, number in
                index.isMultiple(of: 2) ? \.$number == number : \.$text == "n\(number)"
            })
        #expect(try stack.fetchAll(From<ProbeItem>().where(mixed)).map(\.rowID) == fetched)
        // In memory too, on a sample (5,000 terms an object is slow in a debug build).
        let sample = sampled(items)
        #expect(
            sample.filter { mixed.evaluate($0) == true }.map(\.rowID)
                == sample.filter { wanted.contains($0.number) }.map(\.rowID))
        withExtendedLifetime(directory) {}
    }

    @Test func fiveThousandElementInListFetchesItsObjects() throws {
        let (stack, items, directory) = try makeItems()
        let numbers = chosenNumbers(seed: 12)
        let wanted = Set(numbers)
        let expected = rowIDs(items) { wanted.contains($0.number) }
        #expect(
            try stack.fetchAll(From<ProbeItem>().where(Where(\.$number, in: numbers))).map(\.rowID)
                == expected)
        #expect(
            try stack.fetchAll(From<ProbeItem>().where(numbers ~= \ProbeItem.$number)).map(\.rowID)
                == expected)
        // With nil among the values, NULLs match too.
        let optional: [Int?] = numbers.map { $0 } + [nil]
        let withNil = try stack.fetchAll(From<ProbeItem>().where(Where(\.$maybe, in: optional)))
            .map(\.rowID)
        #expect(withNil == rowIDs(items) { $0.maybe == nil || wanted.contains($0.maybe!) })
        // Negated, the rest.
        let negated = try stack.fetchAll(From<ProbeItem>().where(!Where(\.$number, in: numbers)))
            .map(\.rowID)
        #expect(negated == rowIDs(items) { !wanted.contains($0.number) })
        withExtendedLifetime(directory) {}
    }

    @Test func allOfFiveThousandInequalitiesFetchesTheRest() throws {
        let (stack, items, directory) = try makeItems()
        let numbers = chosenNumbers(seed: 13)
        let unwanted = Set(numbers)
        let predicate = Where<ProbeItem>.all(numbers.map { \.$number != $0 })
        let fetched = try stack.fetchAll(From<ProbeItem>().where(predicate)).map(\.rowID)
        #expect(fetched == rowIDs(items) { !unwanted.contains($0.number) })
        #expect(fetched.count == Self.itemCount - (Self.termCount - 100))
        let sample = sampled(items)
        #expect(
            sample.filter { predicate.evaluate($0) == true }.map(\.rowID)
                == sample.filter { !unwanted.contains($0.number) }.map(\.rowID))
        #expect(try stack.fetchCount(From<ProbeItem>().where(predicate)) == fetched.count)
        withExtendedLifetime(directory) {}
    }

    /// `reduce(||)` and `reduce(&&)` build chains 5,000 deep, the way people write them.
    @Test func chainsBuiltWithOperatorsFetchCorrectly() throws {
        let (stack, items, directory) = try makeItems()
        let numbers = chosenNumbers(seed: 14)
        let wanted = Set(numbers)
        let anyChain = numbers.dropFirst().reduce(Where<ProbeItem>(\.$number == numbers[0])) {
            $0 || \.$number == $1
        }
        #expect(
            try stack.fetchAll(From<ProbeItem>().where(anyChain)).map(\.rowID)
                == rowIDs(items) { wanted.contains($0.number) })
        let allChain = numbers.dropFirst().reduce(Where<ProbeItem>(\.$text != "n\(numbers[0])")) {
            $0 && \.$text != "n\($1)"
        }
        #expect(
            try stack.fetchAll(From<ProbeItem>().where(allChain)).map(\.rowID)
                == rowIDs(items) { !wanted.contains($0.number) })
        let sample = sampled(items)
        #expect(
            sample.filter { anyChain.evaluate($0) == true }.map(\.rowID)
                == sample.filter { wanted.contains($0.number) }.map(\.rowID))
        withExtendedLifetime(directory) {}
    }
}
