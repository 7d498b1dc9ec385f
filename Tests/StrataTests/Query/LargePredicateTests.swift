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
        try makeNumberedProbeItems(Self.itemCount)
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
        // On alternating fields: the equalities on each field merge into one membership test.
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

/// Membership of many values binds them as one parameter and tests a hash set
/// in memory; tests that cannot be merged stop at a documented number.
@MainActor
@Suite("Where: wide predicates")
struct WidePredicateTests {
    /// Items numbered 0..<6,000 with text "n<number>", `maybe` nil for multiples of 7.
    private func makeItems() throws -> (DataStack, [ProbeItem], TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for number in 0..<6_000 {
                let item = tx.create(Into<ProbeItem>())
                item.number = number
                item.text = "n\(number)"
                item.maybe = number.isMultiple(of: 7) ? nil : number
            }
        })
        return (stack, try stack.fetchAll(From<ProbeItem>()), directory)
    }

    private func rowIDs(_ items: [ProbeItem], where test: (ProbeItem) -> Bool) -> [Int64] {
        items.filter(test).map(\.rowID)
    }

    /// 100,000 values: one bound parameter (a stock SQLite allows 32,766), one
    /// SQL term, and a hash lookup an object in memory (a scan of the values
    /// took 25–117 ms an object: minutes for this test, which the suite's
    /// watch for hangs would report; no clock is asserted here).
    @Test func hundredThousandValueMembershipBindsOneParameterAndTestsASet() throws {
        let (stack, items, directory) = try makeItems()
        var random = SplitMix64(seed: 61)
        let numbers = (0..<100_000).map { _ in Int(random.next() % 200_000) }
        let wanted = Set(numbers)
        let predicate = Where(\ProbeItem.$number, in: numbers)
        let (sql, arguments) = try condition(predicate)
        #expect(sql == "t0.\"number\" IN (SELECT value FROM strata_values(?))")
        #expect(arguments.count == 1)
        let expected = rowIDs(items) { wanted.contains($0.number) }
        #expect(try stack.fetchAll(From<ProbeItem>().where(predicate)).map(\.rowID) == expected)
        #expect(try stack.fetchCount(From<ProbeItem>().where(!predicate)) == items.count - expected.count)
        #expect(rowIDs(items) { predicate.evaluate($0) == true } == expected)
        // NULL among the values matches the NULLs.
        let optional: [Int?] = numbers.map { $0 } + [nil]
        let withNil = Where(\ProbeItem.$maybe, in: optional)
        let nilExpected = rowIDs(items) { $0.maybe.map(wanted.contains) ?? true }
        #expect(try condition(withNil).arguments.count == 1)
        #expect(try stack.fetchAll(From<ProbeItem>().where(withNil)).map(\.rowID) == nilExpected)
        #expect(rowIDs(items) { withNil.evaluate($0) == true } == nilExpected)
        withExtendedLifetime(directory) {}
    }

    /// An `OR` of equalities, or an `AND` of inequalities, on one field
    /// merges into one membership test however long, even mixed with other tests.
    @Test func equalitiesOnOneFieldMergeIntoOneTest() throws {
        let (stack, items, directory) = try makeItems()
        let numbers = Array(stride(from: 0, to: 100_000, by: 2))
        let any = Where<ProbeItem>.any(numbers.map { \.$number == $0 } + [\.$text == "n7", \.$text == "n9"])
        #expect(try condition(any).arguments.count == 3)
        #expect(
            try stack.fetchAll(From<ProbeItem>().where(any)).map(\.rowID)
                == rowIDs(items) { $0.number.isMultiple(of: 2) || $0.number == 7 || $0.number == 9 })
        let all = Where<ProbeItem>.all(numbers.map { \.$number != $0 } + [\.$maybe != nil])
        #expect(try condition(all).arguments.count == 1)
        #expect(
            try stack.fetchAll(From<ProbeItem>().where(all)).map(\.rowID)
                == rowIDs(items) { !$0.number.isMultiple(of: 2) && $0.maybe != nil })
        withExtendedLifetime(directory) {}
    }

    /// Tests that do not merge (pairs of fields, ranges, text) compile up to
    /// `SQLCompiler.maximumTerms`; one more is `invalidValue`, where SQLite
    /// would take seconds to prepare it (and a stock SQLite stops at 32,766 values).
    @Test func unmergeableTestsStopAtTheTermLimit() throws {
        let (stack, items, directory) = try makeItems()
        let limit = SQLCompiler.maximumTerms
        let pairs = (0..<limit / 2).map { 3 * $0 }
        let composite = Where<ProbeItem>.any(pairs.map { \.$number == $0 && \.$text == "n\($0)" })
        let expected = rowIDs(items) { $0.number.isMultiple(of: 3) && $0.number < 3 * (limit / 2) }
        #expect(try stack.fetchAll(From<ProbeItem>().where(composite)).map(\.rowID) == expected)
        let sample = stride(from: 0, to: items.count, by: 40).map { items[$0] }
        #expect(
            sample.filter { composite.evaluate($0) == true }.map(\.rowID)
                == rowIDs(sample) { $0.number.isMultiple(of: 3) && $0.number < 3 * (limit / 2) })
        let over = composite || \.$number < 0
        let error = #expect(throws: StrataError.self) { try stack.fetchAll(From<ProbeItem>().where(over)) }
        guard case .invalidValue(_, _, let reason)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("more than \(limit) tests"), "\(reason)")
        withExtendedLifetime(directory) {}
    }
}

/// `count` items numbered 0..<count with text "n<number>" and `maybe` nil
/// for multiples of 7, in an in-memory store; returned in row-ID order.
@MainActor
func makeNumberedProbeItems(_ count: Int) throws -> (DataStack, [ProbeItem], TemporaryDirectory) {
    let directory = TemporaryDirectory()
    let stack = try makeStack(probeSchema, .inMemory, in: directory)
    try stack.perform(synchronous: { tx in
        for number in 0..<count {
            let item = tx.create(Into<ProbeItem>())
            item.number = number
            item.text = "n\(number)"
            item.maybe = number.isMultiple(of: 7) ? nil : number
        }
    })
    return (stack, try stack.fetchAll(From<ProbeItem>()), directory)
}
