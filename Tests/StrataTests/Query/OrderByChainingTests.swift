import Testing

@testable import Strata

/// A second `orderBy` adds keys after the first, on fetches and queries alike.
@MainActor
@Suite("OrderBy: chained orderBy calls append keys")
struct OrderByChainingTests {
    /// Every sort key the random orders draw from.
    private static let keys: [OrderBy<ProbeItem>.SortKey] = [
        .ascending(\.$number), .descending(\.$number), .ascending(\.$other), .descending(\.$other),
        .ascending(\.$text, .caseInsensitive), .descending(\.$note, nulls: .first), .ascending(\.$maybe),
    ]

    @Test(arguments: [UInt64(41), 42, 43, 44])
    func chainedOrdersSortLikeTheirKeysInOneOrder(seed: UInt64) throws {
        var random = ProbeRandom(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for _ in 0..<150 {
                let item = tx.create(Into<ProbeItem>())
                item.number = random.below(4)
                item.other = random.below(3)
                item.text = random.string()
                item.note = random.chance(0.3) ? nil : random.string()
                item.maybe = random.chance(0.3) ? nil : random.below(3)
            }
        })
        let items = try stack.fetchAll(From<ProbeItem>())
        for round in 0..<20 {
            let keys = (0..<(1 + random.below(3))).map { _ in random.pick(Self.keys) }
            // The same keys, given in one call and split over several.
            var chained = From<ProbeItem>()
            var rest = keys[...]
            while !rest.isEmpty {
                let take = 1 + random.below(rest.count)
                chained = chained.orderBy(OrderBy(Array(rest.prefix(take))))
                rest = rest.dropFirst(take)
            }
            let whole = OrderBy(keys)
            let context = "seed \(seed), round \(round)"
            let expected = items.sorted(by: whole.areInIncreasingOrder).map(\.rowID)
            #expect(try stack.fetchAll(chained).map(\.rowID) == expected, "\(context)")
            #expect(try stack.fetchAll(From<ProbeItem>().orderBy(whole)).map(\.rowID) == expected, "\(context)")
            // The same keys on a query of values.
            let query = chained.select(.attribute(\.$number))
            let rows = try stack.queryAttributes(query).count
            #expect(rows == items.count, "\(context)")
        }
        withExtendedLifetime(directory) {}
    }

    @Test
    func aSecondOrderBySortsTiesOfTheFirst() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for (number, other) in [(2, 1), (1, 1), (2, 3), (1, 2)] {
                let item = tx.create(Into<ProbeItem>())
                item.number = number
                item.other = other
            }
        })
        let query = From<ProbeItem>().orderBy(.ascending(\.$number)).orderBy(.descending(\.$other))
        let pairs = try stack.fetchAll(query).map { "\($0.number)/\($0.other)" }
        #expect(pairs == ["1/2", "1/1", "2/3", "2/1"])
        let numbers = try stack.queryAttributes(
            From<ProbeItem>().select(.attribute(\.$other)).orderBy(.ascending(\.$number))
                .orderBy(.descending(\.$other)))
        #expect(numbers.map { $0["other"] } == [.integer(2), .integer(1), .integer(3), .integer(1)])
        let combined = OrderBy<ProbeItem>(.ascending(\.$number)) + OrderBy(.descending(\.$other))
        #expect(try stack.fetchAll(From<ProbeItem>().orderBy(combined)).map(\.rowID) == (try stack.fetchAll(query)).map(\.rowID))
        withExtendedLifetime(directory) {}
    }
}
