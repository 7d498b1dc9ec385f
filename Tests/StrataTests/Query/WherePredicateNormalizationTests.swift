import Foundation
import Testing

@testable import Strata

/// The normal form the operators keep (see `WherePredicate+Normalization`):
/// negation pushed down, lists flat and cheap to extend, depth bounded.
@MainActor
@Suite("Where: predicates stay normalised as they are built")
struct WherePredicateNormalizationTests {
    /// `!` is pushed down to the tests: it cancels, swaps `==` and `!=`, and
    /// turns `&&` into `||` and back, so only a test with no opposite keeps a `NOT`.
    @Test func negationIsPushedDownToTheTests() throws {
        #expect(try condition(!(\.$text == "a")).sql == "t0.\"text\" IS DISTINCT FROM ?")
        #expect(try condition(!(\.$text != "a")).sql == "t0.\"text\" = ?")
        #expect(try condition(!(!(\.$number < 3))).sql == "t0.\"number\" < ?")
        #expect(try condition(!(\.$number < 3)).sql == "NOT coalesce(t0.\"number\" < ?, FALSE)")
        #expect(try condition(!Where(true)).sql == "FALSE")
        #expect(
            try condition(!(\.$number == 1 && (\.$other < 2 || \.$text != "c"))).sql
                == "(t0.\"number\" IS DISTINCT FROM ? OR (NOT coalesce(t0.\"other\" < ?, FALSE) AND t0.\"text\" = ?))"
        )
        #expect(
            try condition(!.any(\.$tags, \.$label == "x")).sql.hasPrefix(
                "NOT EXISTS (SELECT 1 FROM \"Tag\""))
        #expect(try condition(!(Where<ProbeItem>.count(\.$tags) < 2)).sql.hasSuffix(") >= ?"))
        // A million negations cancel as they are built.
        var chain = Where<ProbeItem>(\.$number < 3)
        for _ in 0..<1_000_000 { chain = !chain }
        #expect(chain.depth == 1)
        #expect(try condition(chain).sql == "t0.\"number\" < ?")
    }

    /// Seeded: `!p` selects exactly the objects `p` does not, in SQL and in
    /// memory, and `!!p` exactly those `p` does, for random predicates `p`.
    @Test(arguments: [UInt64(0x0701), 0x0702])
    func negationKeepsEveryAnswer(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 120)
        let items = try stack.fetchAll(From<ProbeItem>())
        var generator = ProbeGenerator(
            random: ProbeRandom(seed: seed ^ 0x5A5A),
            groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        let all = items.map(\.rowID)
        for index in 0..<150 {
            let predicate = generator.item(depth: 3)
            let selected = try stack.fetchAll(From<ProbeItem>().where(predicate.clause)).map(
                \.rowID)
            let others = try stack.fetchAll(From<ProbeItem>().where(!predicate.clause)).map(\.rowID)
            let twice = try stack.fetchAll(From<ProbeItem>().where(!(!predicate.clause))).map(
                \.rowID)
            let inMemory = items.filter { (!predicate.clause).evaluate($0) == true }.map(\.rowID)
            #expect(
                others == all.filter { !Set(selected).contains($0) },
                "seed \(seed) #\(index): \(predicate.text)")
            #expect(twice == selected, "seed \(seed) #\(index): \(predicate.text)")
            #expect(inMemory == others, "seed \(seed) #\(index): \(predicate.text)")
        }
        withExtendedLifetime(directory) {}
    }

    /// `reduce(&&)` over 100,000 terms builds one flat list in linear time
    /// (an array copied at each step took over a minute), and lists stay
    /// values: extending an older version of a list leaves the newer alone.
    @Test func chainsOfOneOperatorStayFlatAndCheapToBuild() throws {
        let chain = (1..<100_000).reduce(Where<ProbeItem>(\.$number == 0)) { $0 && \.$other != $1 }
        guard case .and(let terms) = chain.predicate else {
            Issue.record("not a list: \(chain.predicate)")
            return
        }
        #expect(terms.count == 100_000)
        #expect(chain.depth == 2)
        let base = Where<ProbeItem>(\.$number == 1) || \.$number == 2
        let three = base || \.$number == 3
        let four = base || \.$number == 4
        let more = three || \.$number == 5
        #expect(try condition(base).arguments == [.integer(1), .integer(2)])
        #expect(try condition(three).arguments == [.integer(1), .integer(2), .integer(3)])
        #expect(try condition(four).arguments == [.integer(1), .integer(2), .integer(4)])
        #expect(
            try condition(more).arguments == [.integer(1), .integer(2), .integer(3), .integer(5)])
        #expect(
            try condition((\.$number == 1 || \.$other == 2) || (\.$real == 3 || \.$text == "d")).sql
                == "((t0.\"number\" = ? OR t0.\"other\" = ?) OR (t0.\"real\" = ? OR t0.\"text\" = ?))"
        )
    }

    /// Alternating `&&` and `||` nests; past ``WherePredicate/maximumDepth``
    /// the operator returns an invalid predicate, so that no tree grows deeper.
    @Test func depthIsBoundedAsPredicatesAreBuilt() throws {
        var predicate = Where<ProbeItem>(\.$number < 0)
        for level in 2...WherePredicate.maximumDepth {
            predicate =
                level.isMultiple(of: 2)
                ? predicate && \.$other < level : predicate || \.$other > level
        }
        #expect(predicate.depth == WherePredicate.maximumDepth)
        #expect(throws: Never.self) { try condition(predicate) }
        let deeper = predicate || (\.$number < 5 && \.$other < 5)
        #expect(deeper.depth == 1)
        #expect(throws: StrataError.self) { try condition(deeper) }
        // `!` may add a level: the NOT around a test without an opposite.
        #expect(throws: StrataError.self) { try condition(!predicate) }
        // An invalid operand makes the whole predicate invalid, with its own error.
        let invalid = Where<ProbeItem>(\.$real == Double.nan) || \.$number == 1
        guard case .invalid(.invalidValue(_, let field, _)) = invalid.predicate else {
            Issue.record("expected the NaN error: \(String(describing: invalid.predicate))")
            return
        }
        #expect(field == "real")
    }
}
