import Foundation
import Testing

@testable import Strata

/// CoreStore's list form (`fetchAll(From<T>(), Where<T>(...), OrderBy<T>(...),
/// Tweak { ... })`) against the chain it spells: the law is that a list of
/// clauses reads, queries and deletes exactly what the chained calls in the
/// same order do.
@MainActor
@Suite("Clause lists: fetches, queries and deletes equal the chain they spell")
struct ClauseListTests {
    /// Fixed seeds on both SQLite kinds, and a fresh one each run (printed
    /// in every failure; `STRATA_TEST_SEED` runs it again).
    nonisolated static let cases: [(StoreKind, UInt64)] = [
        (.inMemory, 0xC1A0_5E01), (.inMemory, 0xC1A0_5E02), (.file, 0xC1A0_5E03),
        (.inMemory, SplitMix64.random().seed),
    ]

    /// Random data, then random lists of `Where`, `OrderBy` and `Tweak`
    /// clauses (each `Tweak` form): each fetch of the list returns exactly
    /// what the same fetch of the equivalent chain returns, objects in the
    /// same order, on the stack and in a transaction with pending changes.
    @Test(arguments: cases)
    func aClauseListFetchesWhatItsChainFetches(kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try Self.populated(kind, seed: seed, items: 160, in: directory)
        var generator = try Self.generator(stack, seed: seed)
        var failures = 0
        for index in 0..<80 where failures < 5 {
            let list = generator.clauseList()
            let from = From<ProbeItem>()
            let chain = list.chained(from)
            let clauses = list.fetchClauses
            let mismatches = [
                mismatch("fetchAll", { try stack.fetchAll(from, clauses).map(\.rowID) },
                         { try stack.fetchAll(chain).map(\.rowID) }),
                mismatch("fetchOne", { try stack.fetchOne(from, clauses)?.rowID },
                         { try stack.fetchOne(chain)?.rowID }),
                mismatch("fetchCount", { try stack.fetchCount(from, clauses) },
                         { try stack.fetchCount(chain) }),
                mismatch("fetchObjectIDs", { try stack.fetchObjectIDs(from, clauses) },
                         { try stack.fetchObjectIDs(chain) }),
                mismatch("fetchObjectID", { try stack.fetchObjectID(from, clauses) },
                         { try stack.fetchObjectID(chain) }),
            ].compactMap { $0 }
            for message in mismatches {
                failures += 1
                Issue.record("seed \(seed), case #\(index), \(list): \(message)")
            }
        }
        // In a transaction with pending changes, which a Tweak clause may leave out.
        let lists = (0..<30).map { _ in generator.clauseList() }
        let disagreements = try stack.perform(synchronous: { tx in
            for _ in 0..<5 { tx.create(Into<ProbeItem>()).number = 3 }
            for item in try tx.fetchAll(From<ProbeItem>().tweak { $0.fetchLimit = 10 }) {
                item.number &+= 1  // the probe values include Int.max
            }
            try tx.deleteAll(From<ProbeItem>().where(\.$number == 5))
            return try lists.filter { list in
                try tx.fetchAll(From<ProbeItem>(), list.fetchClauses).map(\.rowID)
                    != tx.fetchAll(list.chained(From<ProbeItem>())).map(\.rowID)
                    || tx.fetchCount(From<ProbeItem>(), list.fetchClauses)
                    != tx.fetchCount(list.chained(From<ProbeItem>()))
            }
        })
        #expect(disagreements.isEmpty, "seed \(seed): \(disagreements)")
    }

    /// Random lists of query clauses, `GroupBy` among them: `queryValue`
    /// and `queryAttributes` of the list return what the chain's return
    /// (or throw the same error).
    @Test(arguments: cases)
    func aClauseListQueriesWhatItsChainQueries(kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try Self.populated(kind, seed: seed, items: 160, in: directory)
        var generator = try Self.generator(stack, seed: seed ^ 0x51)
        let from = From<ProbeItem>()
        let count = Select<ProbeItem, Int>(.count())
        let largest = Select<ProbeItem, Int?>(.maximum(\.$maybe))
        let rows = Select<ProbeItem, [String: StoredValue]>(.attribute(\.$number), .attribute(\.$text))
        let groups = Select<ProbeItem, [String: StoredValue]>(.attribute(\.$number), .count(as: "n"))
        var failures = 0
        for index in 0..<60 where failures < 5 {
            let plain = generator.clauseList()
            let grouped = generator.clauseList(grouped: true)
            let mismatches = [
                mismatch("count, \(plain)", { try stack.queryValue(from, count, plain.queryClauses) },
                         { try stack.queryValue(plain.chained(from.select(count))) }),
                mismatch("maximum, \(plain)", { try stack.queryValue(from, largest, plain.queryClauses) },
                         { try stack.queryValue(plain.chained(from.select(largest))) }),
                mismatch("rows, \(plain)", { try stack.queryAttributes(from, rows, plain.queryClauses) },
                         { try stack.queryAttributes(plain.chained(from.select(rows))) }),
                mismatch("groups, \(grouped)", { try stack.queryAttributes(from, groups, grouped.queryClauses) },
                         { try stack.queryAttributes(grouped.chained(from.select(groups))) }),
                mismatch("grouped count, \(grouped)", { try stack.queryValue(from, count, grouped.queryClauses) },
                         { try stack.queryValue(grouped.chained(from.select(count))) }),
            ].compactMap { $0 }
            for message in mismatches {
                failures += 1
                Issue.record("seed \(seed), case #\(index), \(message)")
            }
        }
    }

    /// Random lists of delete clauses: `deleteAll` of the list deletes the
    /// same number of objects, and leaves the same objects, as `deleteAll`
    /// of the chain (each in a transaction rolled back after).
    @Test(arguments: cases)
    func aClauseListDeletesWhatItsChainDeletes(kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try Self.populated(kind, seed: seed, items: 120, in: directory)
        var generator = try Self.generator(stack, seed: seed ^ 0xDE1)
        let all = try stack.fetchObjectIDs(From<ProbeItem>())
        for index in 0..<20 {
            let list = generator.clauseList()
            let deletes = try [true, false].map { listed in
                let tx = try stack.beginUnsafe()
                defer { tx.rollback() }
                let count = listed
                    ? try tx.deleteAll(From<ProbeItem>(), list.deleteClauses)
                    : try tx.deleteAll(list.chained(From<ProbeItem>()))
                return (count, try tx.fetchObjectIDs(From<ProbeItem>()))
            }
            #expect(deletes[0].0 == deletes[1].0 && deletes[0].1 == deletes[1].1,
                    "seed \(seed), case #\(index): \(list)")
            #expect(deletes[0].0 + deletes[0].1.count == all.count, "seed \(seed), case #\(index): \(list)")
        }
        #expect(try stack.fetchCount(From<ProbeItem>()) == all.count)
    }

    /// CoreStore's `Tweak { $0.fetchLimit = 5 }` changes only the limit: an
    /// offset set before, by the `From` or an earlier clause, still applies.
    @Test
    func aTweakClauseKeepsAnOffsetSetBefore() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try Self.numbered(stack, 1...12)
        let byNumber = OrderBy<ProbeItem>(.ascending(\.$number))
        let numbers = { (items: [ProbeItem]) in items.map(\.number) }
        #expect(try numbers(stack.fetchAll(
            From<ProbeItem>().tweak { $0.fetchOffset = 3 }, byNumber, Tweak { $0.fetchLimit = 2 })) == [4, 5])
        #expect(try numbers(stack.fetchAll(
            From<ProbeItem>(), byNumber, Tweak { $0.fetchOffset = 6 }, Tweak { $0.fetchLimit = 3 })) == [7, 8, 9])
        // The limit stays when a later clause sets only the offset, too.
        #expect(try numbers(stack.fetchAll(
            From<ProbeItem>(), byNumber, Tweak { $0.fetchLimit = 2 }, Tweak { $0.fetchOffset = 10 })) == [11, 12])
        // A tweak made with its initializer sets every option: the offset goes back to 0.
        #expect(try numbers(stack.fetchAll(
            From<ProbeItem>(), byNumber, Tweak { $0.fetchOffset = 6 }, Tweak(fetchLimit: 2))) == [1, 2])
        #expect(try stack.fetchCount(
            From<ProbeItem>().tweak { $0.fetchOffset = 10 }, Tweak { $0.fetchLimit = 5 }) == 2)
    }

    /// In a transaction, `Tweak { $0.includesPendingChanges = false }` as a
    /// clause reads the store as last committed, and a later tweak clause
    /// that sets only the limit keeps it so.
    @Test
    func aTweakClauseCanLeavePendingChangesOut() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try Self.numbered(stack, 1...4)
        let counts = try stack.perform(synchronous: { tx in
            tx.create(Into<ProbeItem>()).number = 5
            let saved = Tweak { $0.includesPendingChanges = false }
            return [
                try tx.fetchCount(From<ProbeItem>()),
                try tx.fetchCount(From<ProbeItem>(), saved),
                try tx.fetchCount(From<ProbeItem>(), [saved, Tweak { $0.fetchLimit = 10 }]),
                try tx.fetchAll(From<ProbeItem>(), saved, Tweak { $0.fetchOffset = 3 }).count,
                try tx.fetchAll(From<ProbeItem>(), saved, Tweak(fetchLimit: 10)).count,
            ]
        })
        #expect(counts == [5, 4, 4, 1, 5])
    }

    /// Each variadic form returns what its array form does, and both what
    /// the chain does (CoreStore's README examples, on the probe model).
    @Test
    func variadicAndArrayFormsAgree() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try Self.numbered(stack, 1...9)
        let from = From<ProbeItem>()
        let big = Where<ProbeItem>(\.$number > 3)
        let byText = OrderBy<ProbeItem>(.descending(\.$number))
        let chain = from.where(\.$number > 3).orderBy(.descending(\.$number)).tweak { $0.fetchLimit = 4 }
        let expected = [9, 8, 7, 6]
        #expect(try stack.fetchAll(from, big, byText, Tweak { $0.fetchLimit = 4 }).map(\.number) == expected)
        #expect(try stack.fetchAll(from, [big, byText, Tweak { $0.fetchLimit = 4 }]).map(\.number) == expected)
        #expect(try stack.fetchAll(chain).map(\.number) == expected)
        #expect(try stack.fetchOne(from, big, byText)?.number == 9)
        #expect(try stack.fetchOne(from, [big, byText])?.number == 9)
        #expect(try stack.fetchCount(from, big) == 6 && stack.fetchCount(from, [big]) == 6)
        #expect(try stack.fetchCount(from, [Where<ProbeItem>(true)]) == 9)
        #expect(try stack.fetchCount(from) == 9)
        let ids = try stack.fetchObjectIDs(chain)
        #expect(try stack.fetchObjectIDs(from, big, byText, Tweak { $0.fetchLimit = 4 }) == ids)
        #expect(try stack.fetchObjectIDs(from, [big, byText, Tweak { $0.fetchLimit = 4 }]) == ids)
        #expect(try stack.fetchObjectID(from, big, byText) == ids.first)
        #expect(try stack.fetchObjectID(from, [big, byText]) == ids.first)
        // Queries: CoreStore's `queryValue(From, Select, clauses)`.
        let maximum = Select<ProbeItem, Int>(.maximum(\.$number))
        #expect(try stack.queryValue(from, maximum, Where<ProbeItem>(\.$number < 5)) == 4)
        #expect(try stack.queryValue(from, maximum, [Where<ProbeItem>(\.$number < 5)]) == 4)
        #expect(try stack.queryValue(from, Select<ProbeItem, Int?>(.maximum(\.$maybe))) == nil)
        #expect(try stack.queryValue(from, Select<ProbeItem, Int?>(.maximum(\.$number)), [big]) == 9)
        let select = Select<ProbeItem, [String: StoredValue]>(.attribute(\.$other), .count(as: "n"))
        let grouped = try stack.queryAttributes(
            from, select, GroupBy<ProbeItem>(\.$other), OrderBy<ProbeItem>(.descending(\.$other)))
        #expect(grouped == [["other": .integer(1), "n": .integer(4)], ["other": .integer(0), "n": .integer(5)]])
        #expect(try stack.queryAttributes(
            from, select, [GroupBy<ProbeItem>(\.$other), OrderBy<ProbeItem>(.descending(\.$other))]) == grouped)
        // Deletes.
        let deleted = try stack.perform(synchronous: { tx in
            (try tx.deleteAll(from, Where<ProbeItem>(\.$number < 3)),
             try tx.deleteAll(from, [OrderBy<ProbeItem>(.descending(\.$number)), Tweak { $0.fetchLimit = 2 }]))
        })
        #expect(deleted == (2, 2))
        let left = try stack.fetchAll(from, OrderBy<ProbeItem>(.ascending(\.$number)))
        #expect(left.map(\.number) == [3, 4, 5, 6, 7])
    }

    /// A clause built for a base entity refines a fetch, query or delete of
    /// a subentity, as the subentity's own clause would.
    @Test
    func aBaseEntitysClausesRefineASubentitysFetch() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for (index, name) in ["Rex", "Ace", "Max", "Bo"].enumerated() {
                let dog = tx.create(Into<ZooDog>())
                (dog.name, dog.legs) = (name, 3 + index % 2)
            }
            for (index, name) in ["Tom", "Leo"].enumerated() {
                let cat = index == 0 ? tx.create(Into<ZooCat>()) : tx.create(Into<ZooLion>())
                (cat.name, cat.legs) = (name, 4)
            }
        })
        let fourLegs = Where<ZooAnimal>(\.$legs == 4)
        let byName = OrderBy<ZooAnimal>(.ascending(\.$name))
        #expect(try stack.fetchAll(From<ZooDog>(), fourLegs, byName).map(\.name) == ["Ace", "Bo"])
        #expect(try stack.fetchAll(From<ZooDog>(), fourLegs, byName).map(\.name)
            == stack.fetchAll(From<ZooDog>().where(\.$legs == 4).orderBy(.ascending(\.$name))).map(\.name))
        #expect(try stack.fetchAll(From<ZooLion>(), [Where<ZooCat>(\.$lives == 9), byName]).map(\.name) == ["Leo"])
        #expect(try stack.fetchCount(From<ZooCat>(), fourLegs) == 2)
        let legs = try stack.queryAttributes(
            From<ZooDog>(), Select<ZooDog, [String: StoredValue]>(.attribute(\.$legs), .count(as: "n")),
            GroupBy<ZooAnimal>(\.$legs), OrderBy<ZooAnimal>(.ascending(\.$legs)))
        #expect(legs == [["legs": .integer(3), "n": .integer(2)], ["legs": .integer(4), "n": .integer(2)]])
        let removed = try stack.perform(synchronous: { tx in
            try tx.deleteAll(From<ZooDog>(), Where<ZooAnimal>(\.$name == "Rex"))
        })
        #expect(removed == 1)
        #expect(try stack.fetchCount(From<ZooAnimal>()) == 5)
    }

    /// A clause of an entity that is not the fetched one nor a base of it
    /// traps, saying how to build it instead.
    @Test
    func anotherEntitysClauseTraps() async {
        var results: [(String, ExitTest.Result?)] = []
        results.append(("build it as Where<ZooDog>", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            _ = Where<ZooCat>(\.$lives > 1).applied(to: From<ZooDog>())
        }))
        results.append(("build it as OrderBy<ZooAnimal>", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            _ = OrderBy<ZooDog>(.ascending(\.$breed)).applied(to: From<ZooAnimal>())
        }))
        results.append(("build it as GroupBy<ZooKeeper>", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            _ = GroupBy<ZooAnimal>(\.$name).applied(to: From<ZooKeeper>().select(.count()))
        }))
        for (message, result) in results {
            let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(output.contains(message), "\(output)")
        }
    }

    /// Formats written without their class, combined with `&&`, `||`, `!`,
    /// `&&?`, `combinedByAnd()` and `combinedByOr()` before a clause list
    /// sees them (Swift makes every part a `Where<ManagedObject>`): random
    /// trees of them filter exactly as the same trees of `Where<ProbeItem>`
    /// do, and one bad format anywhere in a tree throws as its typed twin does.
    @Test(arguments: cases)
    func formatsCombinedWithoutTheirClassFilterAsTheirTypedTwins(kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try Self.populated(kind, seed: seed, items: 120, in: directory)
        let groups = try stack.fetchAll(From<ProbeGroup>())
        var random = ProbeRandom(seed: seed ^ 0xD3F3)
        /// A random formula as both an untyped and a typed `Where`.
        func tree(_ depth: Int) -> (Where<ManagedObject>, Where<ProbeItem>) {
            if depth == 0 || random.chance(0.3) {
                let number = random.integer()
                switch random.below(7) {
                case 0: return (Where("number > %d", number), Where("number > %d", number))
                case 1: return (Where("other == %d OR maybe == nil", number), Where("other == %d OR maybe == nil", number))
                case 2: return (Where("text BEGINSWITH[c] %@", "a"), Where("text BEGINSWITH[c] %@", "a"))
                case 3:
                    let group = random.pick(groups)
                    return (Where("group == %@", group), Where("group == %@", group))
                case 4:
                    let value = random.chance(0.5)
                    return (Where(value), Where(value))
                case 5: return (Where("number", isEqualTo: number), Where("number", isEqualTo: number))
                default:
                    // A bad name, rarely: the whole tree then throws.
                    return random.chance(0.2) ? (Where("nope > 1"), Where("nope > 1")) : (Where(), Where())
                }
            }
            let (a, b) = (tree(depth - 1), tree(depth - 1))
            switch random.below(6) {
            case 0: return (a.0 && b.0, a.1 && b.1)
            case 1: return (a.0 || b.0, a.1 || b.1)
            case 2: return (!a.0, !a.1)
            case 3: return (a.0 &&? b.0, a.1 &&? b.1)
            case 4: return ([a.0, b.0].combinedByAnd(), [a.1, b.1].combinedByAnd())
            default: return ([a.0, b.0].combinedByOr(), [a.1, b.1].combinedByOr())
            }
        }
        var failures = 0
        for index in 0..<150 where failures < 5 {
            let (untyped, typed) = tree(1 + random.below(4))
            let mismatches = [
                mismatch("fetchAll", { try stack.fetchAll(From<ProbeItem>(), untyped).map(\.rowID) },
                         { try stack.fetchAll(From<ProbeItem>().where(typed)).map(\.rowID) }),
                mismatch("fetchCount", { try stack.fetchCount(From<ProbeItem>(), untyped) },
                         { try stack.fetchCount(From<ProbeItem>().where(typed)) }),
            ].compactMap { $0 }
            failures += mismatches.count
            #expect(mismatches.isEmpty, "seed \(seed), case \(index): \(typed)\n\(mismatches.joined(separator: "\n"))")
        }
    }

    // MARK: Helpers

    /// A stack of `kind`, in `directory`, with random probe data.
    private static func populated(
        _ kind: StoreKind, seed: UInt64, items: Int, in directory: TemporaryDirectory
    ) throws -> DataStack {
        let stack = try makeStack(probeSchema, kind, in: directory)
        try ProbeData.populate(stack, seed: seed, items: items)
        return stack
    }

    /// A generator over the stack's groups and tags, seeded from `seed`.
    private static func generator(_ stack: DataStack, seed: UInt64) throws -> ProbeGenerator {
        ProbeGenerator(
            random: ProbeRandom(seed: seed ^ 0xC1A5),
            groups: try stack.fetchAll(From<ProbeGroup>()), tags: try stack.fetchAll(From<ProbeTag>()))
    }

    /// Items numbered `numbers`, `other` 1 for the even ones.
    private static func numbered(_ stack: DataStack, _ numbers: ClosedRange<Int>) throws {
        try stack.perform(synchronous: { tx in
            for number in numbers {
                let item = tx.create(Into<ProbeItem>())
                (item.number, item.other) = (number, number % 2 == 0 ? 1 : 0)
            }
        })
    }
}

/// `nil` when the two ways of asking answer alike (the same value, or the
/// same error), else what each answered, under `name`.
@MainActor
func mismatch<Value: Equatable>(
    _ name: String, _ listed: () throws -> Value, _ chained: () throws -> Value
) -> String? {
    let (a, b) = (Result(catching: listed), Result(catching: chained))
    switch (a, b) {
    case (.success(let x), .success(let y)) where x == y: return nil
    case (.failure(let x), .failure(let y)) where "\(x)" == "\(y)": return nil
    default: return "\(name)\nlist:  \(a)\nchain: \(b)"
    }
}
