import Foundation
import Testing

@testable import Strata

/// `Where`, `OrderBy`, `GroupBy`, `Select` and `SelectTerm` are `Hashable`, as
/// CoreStore's are: equal when they say the same thing the same way.
@MainActor
@Suite("Clauses compare and hash by what they say")
struct ClauseEqualityTests {
    /// Seeded: a predicate built twice from one seed is equal to itself and
    /// hashes alike, `!p` differs from `p`, and two predicates that are equal compile
    /// to the same SQL with the same arguments, so equality never merges two
    /// different queries.
    @Test(arguments: [UInt64(0xE0_01), 0xE0_02, 0xE0_03])
    func equalPredicatesAreTheSameQuery(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 20)
        func generator() throws -> ProbeGenerator {
            ProbeGenerator(
                random: ProbeRandom(seed: seed ^ 0xE9),
                groups: try stack.fetchAll(From<ProbeGroup>()),
                tags: try stack.fetchAll(From<ProbeTag>()))
        }
        var first = try generator()
        var second = try generator()
        var built: [DescribedWhere<ProbeItem>] = []
        for index in 0..<300 {
            let predicate = first.item(depth: 3)
            let again = second.item(depth: 3)
            let context = "seed \(seed) #\(index): \(predicate.text)"
            #expect(predicate.clause == again.clause, "\(context)")
            #expect(predicate.clause.hashValue == again.clause.hashValue, "\(context)")
            if case .invalid = predicate.clause.predicate {} else {
                #expect(!predicate.clause != predicate.clause, "\(context)")
            }
            built.append(predicate)
        }
        var equalPairs = 0
        for (i, p) in built.enumerated() {
            for q in built[(i + 1)...] where p.clause == q.clause {
                equalPairs += 1
                #expect(p.clause.hashValue == q.clause.hashValue, "seed \(seed): \(p.text) / \(q.text)")
                let (left, right) = (try? condition(p.clause), try? condition(q.clause))
                #expect(left?.sql == right?.sql, "seed \(seed): \(p.text) / \(q.text)")
                #expect(left?.arguments == right?.arguments, "seed \(seed): \(p.text) / \(q.text)")
            }
        }
        // Small random trees repeat: the check above must have met some.
        #expect(equalPairs > 0, "seed \(seed)")
        // A set keeps one of each distinct predicate.
        let distinct = Set(built.map(\.clause))
        #expect(distinct.count == built.count - built.indices.filter { i in
            built[..<i].contains { $0.clause == built[i].clause }
        }.count)
    }

    /// CoreStore's `combinedByAnd()` / `combinedByOr()` over any sequence of
    /// predicates are `Where.all` / `Where.any` of them, and select what
    /// evaluating each predicate in memory and joining the answers selects.
    @Test(arguments: [UInt64(0xC0_01), 0xC0_02])
    func combinedPredicatesAreAllAndAny(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 30)
        let items = try stack.fetchAll(From<ProbeItem>())
        var generator = ProbeGenerator(
            random: ProbeRandom(seed: seed),
            groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        for round in 0..<40 {
            let parts = (0..<(round % 4)).map { _ in generator.item(depth: 2).clause }
            let context = "seed \(seed) round \(round)"
            #expect(parts.combinedByAnd() == Where.all(parts), "\(context)")
            #expect(parts.combinedByOr() == Where.any(parts), "\(context)")
            #expect(parts.lazy.map { $0 }.combinedByAnd() == Where.all(parts), "\(context)")
            guard parts.allSatisfy(\.isEvaluableInMemory) else { continue }
            let bothWays = try stack.fetchAll(From<ProbeItem>().where(parts.combinedByAnd())).map(\.objectID)
            let eitherWay = try stack.fetchAll(From<ProbeItem>().where(parts.combinedByOr())).map(\.objectID)
            let every = items.filter { item in parts.allSatisfy { $0.evaluate(item) == true } }
            let some = items.filter { item in parts.contains { $0.evaluate(item) == true } }
            #expect(Set(bothWays) == Set(every.map(\.objectID)), "\(context)")
            #expect(Set(eitherWay) == Set(some.map(\.objectID)), "\(context)")
        }
    }

    /// CoreStore's own expectations of `Where` equality.
    @Test func whereClausesCompareAsCoreStoreDoes() {
        let one = Where<ProbeItem>(\.$text == "value1")
        let two = Where<ProbeItem>(\.$note == "value2")
        let three = Where<ProbeItem>(\.$number == 3)
        #expect(Where<ProbeItem>() == Where<ProbeItem>(true))
        // Values compare as SQL does: byte for byte, and a NaN equals itself.
        #expect(Where<ProbeItem>(\.$text == "\u{E9}") != Where<ProbeItem>(\.$text == "e\u{301}"))
        #expect(Where<ProbeItem>(\.$text, in: ["\u{E9}"]) != Where<ProbeItem>(\.$text, in: ["e\u{301}"]))
        let notANumber = Where<ProbeItem>(\.$real == .nan)
        #expect(notANumber == notANumber)
        #expect(Where<ProbeItem>() != Where<ProbeItem>(false))
        #expect(Where<ProbeItem>(\.$text == "value1") == one)
        #expect(one != Where<ProbeItem>(\.$text == "value2"))
        #expect(one != Where<ProbeItem>(\.$text != "value1"))
        #expect(!one == !one)
        #expect((one && two && three) == (one && two && three))
        #expect((one || two || three) == (one || two || three))
        #expect((one && two) != (one || two))
        #expect((one && two) != (two && one))
        #expect(Where<ProbeItem>(\.$number, in: [1, 2]) == Where<ProbeItem>(\.$number, in: [1, 2]))
        #expect(Where<ProbeItem>(\.$number, in: [1, 2]) != Where<ProbeItem>(\.$number, in: [2, 1]))
        #expect(Where<ProbeItem>(sql: "number > ?", arguments: [.integer(1)])
            == Where<ProbeItem>(sql: "number > ?", arguments: [.integer(1)]))
        #expect(Where<ProbeItem>(sql: "number > ?", arguments: [.integer(1)])
            != Where<ProbeItem>(sql: "number > ?", arguments: [.integer(2)]))
        let named: Where<ProbeItem> = \.$group ~ \.$name == "a"
        #expect(named == (\ProbeItem.$group ~ \.$name == "a"))
        #expect(named != (\ProbeItem.$group ~ \.$name == "b"))
        let counted: Where<ProbeItem> = Where.count(\.$tags) == 3
        #expect(counted == (Where<ProbeItem>.count(\.$tags) == 3))
        #expect(counted != (Where<ProbeItem>.count(\.$tags) == 2))
        #expect(Where<ProbeItem>.any(\.$tags, \.$label == "x") == Where<ProbeItem>.any(\.$tags, \.$label == "x"))
        #expect(Where<ProbeItem>.any(\.$tags, \.$label == "x") != Where<ProbeItem>.all(\.$tags, \.$label == "x"))
    }

    /// CoreStore's OrderByTests: keys and their directions, in order.
    @Test func ordersCompareKeyByKey() {
        let byNumber = OrderBy<ProbeItem>(.ascending(\.$number))
        let byOther = OrderBy<ProbeItem>(.descending(\.$other))
        let byText = OrderBy<ProbeItem>(.ascending(\.$text))
        #expect(OrderBy<ProbeItem>() == OrderBy<ProbeItem>([]))
        #expect(OrderBy<ProbeItem>() != byNumber)
        #expect(byNumber == OrderBy<ProbeItem>([.ascending(\.$number)]))
        #expect(byNumber != OrderBy<ProbeItem>(.descending(\.$number)))
        #expect(byNumber != OrderBy<ProbeItem>(.ascending(\.$other)))
        #expect(byNumber != OrderBy<ProbeItem>(.ascending(\.$number, .caseInsensitive)))
        #expect(byNumber != OrderBy<ProbeItem>(.ascending(\.$number, nulls: .last)))
        #expect(OrderBy<ProbeItem>(.ascending(\.$number), .descending(\.$other)) == byNumber + byOther)
        #expect(byNumber + byOther != byOther + byNumber)
        let all = byNumber + byOther + byText
        #expect(all == OrderBy<ProbeItem>(.ascending(\.$number), .descending(\.$other), .ascending(\.$text)))
        #expect(all == byNumber + OrderBy<ProbeItem>(.descending(\.$other), .ascending(\.$text)))
        for other in [byNumber + byText + byOther, byOther + byNumber + byText, byText + byOther + byNumber] {
            #expect(all != other)
        }
        var growing = byNumber
        growing += byOther
        #expect(growing == OrderBy<ProbeItem>(.ascending(\.$number), .descending(\.$other)))
        growing += byText
        #expect(growing == all)
        #expect(Set([all, growing, byNumber]).count == 2)
    }

    /// CoreStore's GroupByTests and SelectTests: fields in order, terms by
    /// function, field and name.
    @Test func groupingsAndSelectionsCompareTermByTerm() {
        #expect(GroupBy<ProbeItem>(\.$number) == GroupBy<ProbeItem>(\.$number))
        #expect(GroupBy<ProbeItem>(\.$number) != GroupBy<ProbeItem>(\.$other))
        #expect(GroupBy<ProbeItem>(\.$number, \.$text) == GroupBy<ProbeItem>(\.$number, \.$text))
        #expect(GroupBy<ProbeItem>(\.$number, \.$text) != GroupBy<ProbeItem>(\.$text, \.$number))
        #expect(GroupBy<ProbeItem>(\ProbeItem.$group ~ \.$name) == GroupBy<ProbeItem>(\ProbeItem.$group ~ \.$name))

        let terms: [SelectTerm<ProbeItem>] = [
            .attribute(\.$number), .attribute(\.$other), .count(\.$number), .count(),
            .sum(\.$number), .average(\.$number), .minimum(\.$number), .maximum(\.$number),
            .average(\.$number, as: "alias"), .average(\.$number, as: "alias2"),
        ]
        for (i, term) in terms.enumerated() {
            for (j, other) in terms.enumerated() {
                #expect((term == other) == (i == j), "\(term.name) / \(other.name)")
            }
        }
        #expect(SelectTerm<ProbeItem>.average(\.$number) == SelectTerm<ProbeItem>.average(\.$number, as: "average(number)"))
        let (a, b, c) = (terms[0], terms[1], terms[4])
        #expect(Select<ProbeItem, Int>(a, b, c) == Select<ProbeItem, Int>([a, b, c]))
        for permutation in [[a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]] {
            #expect(Select<ProbeItem, Int>(a, b, c) != Select<ProbeItem, Int>(permutation))
        }
    }
}
