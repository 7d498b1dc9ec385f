import Foundation
import Testing

@testable import Strata

/// Predicates nested far deeper than SQLite's parser stack (100 entries in
/// 3.40) allows: negation chains of any length work, alternation works up to
/// ``WherePredicate/maximumDepth`` and is a typed error past it, and nothing
/// crashes, building, compiling, evaluating or freeing.
@MainActor
@Suite("Where: deep predicates")
struct DeepPredicateTests {
    private static let itemCount = 600

    /// Items numbered 0..<600 with text "n<number>", `maybe` nil for multiples of 7.
    private func makeItems() throws -> (DataStack, [ProbeItem], TemporaryDirectory) {
        try makeNumberedProbeItems(Self.itemCount)
    }

    private func rowIDs(_ items: [ProbeItem], where test: (ProbeItem) -> Bool) -> [Int64] {
        items.filter(test).map(\.rowID)
    }

    /// 19 nested `!` used to overflow SQLite's parser, 100,000 the thread's stack.
    @Test(arguments: [1, 2, 19, 20, 1_001, 100_000])
    func negationChainsOfAnyLengthFetchAndEvaluate(length: Int) throws {
        let (stack, items, directory) = try makeItems()
        var predicate = Where<ProbeItem>(\.$number < 250) && \.$maybe != nil
        for _ in 0..<length { predicate = !predicate }
        let selects = length.isMultiple(of: 2)
        let expected = rowIDs(items) { ($0.number < 250 && $0.maybe != nil) == selects }
        #expect(try stack.fetchAll(From<ProbeItem>().where(predicate)).map(\.rowID) == expected)
        #expect(try stack.fetchCount(From<ProbeItem>().where(predicate)) == expected.count)
        #expect(rowIDs(items) { predicate.evaluate($0) == true } == expected)
        withExtendedLifetime(directory) {}
    }

    /// Alternating `&&` and `||` as deep as Strata allows, nested to the left
    /// (`(a && b) || c`, how a loop builds it) or to the right (`a && (b || c)`),
    /// with a membership bound as one list at the bottom and a few tests at every level.
    @Test(arguments: [false, true])
    func alternationUpToTheLimitFetchesAndEvaluates(nestsRight: Bool) throws {
        let (stack, items, directory) = try makeItems()
        var random = SplitMix64(seed: nestsRight ? 51 : 52)
        let listed = Array(stride(from: 0, to: 600, by: 3)) + Array(1_000..<1_040)
        var predicate = Where<ProbeItem>(\.$number, in: listed)
        var expected: (ProbeItem) -> Bool = { $0.number.isMultiple(of: 3) }
        // Each level's list is one deeper than its deepest term, `!(x > b)` (2 levels).
        for level in 2..<WherePredicate.maximumDepth {
            let bound = Int(random.next() % 600)
            var sides: [(Where<ProbeItem>, (ProbeItem) -> Bool)] = [
                (\.$number < bound, { $0.number < bound }),
                (!(\.$number > bound + 50), { $0.number <= bound + 50 }),
            ]
            if random.next().isMultiple(of: 2) {
                sides.append((\.$maybe == nil, { $0.maybe == nil }))
            }
            let conjunction = level.isMultiple(of: 2)
            let terms = nestsRight ? sides.map(\.0) + [predicate] : [predicate] + sides.map(\.0)
            predicate = conjunction ? .all(terms) : .any(terms)
            let (previous, tests) = (expected, sides.map(\.1))
            expected =
                conjunction
                ? { item in previous(item) && tests.allSatisfy { $0(item) } }
                : { item in previous(item) || tests.contains { $0(item) } }
        }
        #expect(predicate.depth == WherePredicate.maximumDepth)
        let wanted = rowIDs(items, where: expected)
        #expect(try stack.fetchAll(From<ProbeItem>().where(predicate)).map(\.rowID) == wanted)
        #expect(try stack.fetchCount(From<ProbeItem>().where(predicate)) == wanted.count)
        #expect(rowIDs(items) { predicate.evaluate($0) == true } == wanted)
        withExtendedLifetime(directory) {}
    }

    /// One level past the limit, the fetch throws `invalidValue`, not SQLite's
    /// "parser stack overflow"; a million levels build in linear time, stay
    /// as shallow as the limit, and throw the same.
    @Test(arguments: [WherePredicate.maximumDepth + 1, 1_000_000])
    func alternationPastTheLimitIsATypedError(levels: Int) throws {
        let (stack, items, directory) = try makeItems()
        var predicate = Where<ProbeItem>(\.$number < 0)
        for level in 2...levels {
            predicate =
                level.isMultiple(of: 2)
                ? predicate && \.$number < level : predicate || \.$number > level
        }
        #expect(predicate.depth <= WherePredicate.maximumDepth)
        do {
            _ = try stack.fetchAll(From<ProbeItem>().where(predicate))
            Issue.record("a predicate \(levels) levels deep compiled")
        } catch StrataError.invalidValue(_, _, let reason) {
            #expect(reason.contains("at most \(WherePredicate.maximumDepth)"), "\(reason)")
        } catch {
            // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
            // catch that lets other errors through.
            throw error
        }
        #expect(items.allSatisfy { predicate.evaluate($0) == false })
        withExtendedLifetime(directory) {}
    }

    /// Before, each of these crashed the process: the compiler and the
    /// evaluator recursed once a level, and so did the release of the tree.
    @Test func millionLevelPredicatesDoNotCrash() async {
        await #expect(processExitsWith: .success) {
            let entity = probeSchema.entity(of: ProbeItem.self)
            var negations = Where<ProbeItem>(\.$number < 3)
            for _ in 0..<1_000_000 { negations = !negations }
            _ = try? From<ProbeItem>().where(negations).compile(in: entity, schema: probeSchema, dialect: .sqlite)
            var alternation = Where<ProbeItem>(\.$number < 0)
            for level in 0..<1_000_000 {
                alternation =
                    level.isMultiple(of: 2)
                    ? alternation && \.$number > level : alternation || \.$number < level
            }
            _ = try? From<ProbeItem>().where(alternation).compile(in: entity, schema: probeSchema, dialect: .sqlite)
        }
    }

    /// Within the depth limit, SQL that would still overflow SQLite's parser
    /// (to-many tests nest subqueries, each `~` link one more) is refused with
    /// `invalidValue` before SQLite sees it.
    @Test func nestingPastSQLitesParserIsATypedError() throws {
        let (stack, _, directory) = try makeItems()
        var tags = Where<ProbeTag>(\.$label == "x")
        var nested = Where<ProbeItem>.any(\.$tags, tags)
        for _ in 0..<6 {
            tags = .any(\.$items, nested)
            nested = .any(\.$tags, tags)
        }
        #expect(nested.depth < WherePredicate.maximumDepth)
        var relation = \ProbeItem.$group ~ \ProbeGroup.$parent
        for _ in 0..<20 { relation = relation ~ \.$parent }
        for predicate in [
            nested, relation ~ \.$name == "x", Where(relation ~ \.$name, .contains("x")),
        ] {
            let error = #expect(throws: StrataError.self) {
                try stack.fetchAll(From<ProbeItem>().where(predicate))
            }
            guard case .invalidValue(_, _, let reason)? = error else {
                Issue.record("expected invalidValue, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("SQLite's parser"), "\(reason)")
        }
        withExtendedLifetime(directory) {}
    }

    /// Seeded: random trees up to past the depth limit, of every operator,
    /// list and to-many test, either fetch what evaluation in memory selects
    /// or throw `invalidValue`; never an SQLite error.
    @Test(arguments: [UInt64(0xDEE9_0001), 0xDEE9_0002, 0xDEE9_0003])
    func deepRandomPredicatesFetchWhatMemorySelectsOrAreRefused(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 100)
        let items = try stack.fetchAll(From<ProbeItem>())
        var generator = ProbeGenerator(
            random: ProbeRandom(seed: seed ^ 0xD0), groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        var random = ProbeRandom(seed: seed)
        var (fetched, refused) = (0, 0)
        // Twenty a seed: evaluating them in memory, through nested to-many
        // tests, was the costliest part of the whole suite at forty.
        for index in 0..<20 {
            var predicate = generator.item(depth: 1).clause
            var toMany = 0
            for _ in 0..<(8 + random.below(64)) {
                let sides = (0..<random.below(4)).map { _ in
                    generator.item(depth: random.below(3)).clause
                }
                switch random.below(8) {
                case 0: predicate = .all([predicate] + sides)
                case 1: predicate = .all(sides + [predicate])
                case 2: predicate = .any([predicate] + sides)
                case 3: predicate = .any(sides + [predicate])
                case 4, 5: predicate = !predicate
                case 6 where toMany < 2:
                    // Nested to-many tests multiply the work: two at most.
                    toMany += 1
                    let tags: Where<ProbeTag> =
                        random.chance(0.5) ? .any(\.$items, predicate) : .all(\.$items, predicate)
                    predicate = .any(\.$tags, tags)
                default:
                    predicate =
                        random.chance(0.5)
                        ? sides.reduce(predicate, &&) : sides.reduce(predicate, ||)
                }
            }
            do {
                let selected = try stack.fetchAll(From<ProbeItem>().where(predicate)).map(\.rowID)
                #expect(
                    selected == rowIDs(items) { predicate.evaluate($0) == true },
                    "seed \(seed), predicate #\(index), depth \(predicate.depth)")
                fetched += 1
            } catch StrataError.invalidValue {
                refused += 1
            } catch {
                // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
                // catch that lets other errors through.
                throw error
            }
        }
        #expect(fetched > 0 && refused > 0, "fetched \(fetched), refused \(refused)")
        withExtendedLifetime(directory) {}
    }
}
