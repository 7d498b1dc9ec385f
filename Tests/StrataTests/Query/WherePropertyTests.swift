import Foundation
import Testing

@testable import Strata

// MARK: Tests

@MainActor
@Suite("Where: SQL fetches and in-memory evaluation agree")
struct WherePropertyTests {
    nonisolated static let fixedSeeds: [UInt64] = [0x5EED_0001, 0xC0FF_EE42, 0x0BAD_F00D]
    /// SQLite (in memory: the SQL is the file store's) and PostgreSQL.
    nonisolated static let kinds = StoreKind.enabled([.inMemory, .postgreSQL])
    /// Every fixed seed on SQLite, the first on PostgreSQL (a round trip per
    /// predicate makes a seed cost more there; the random seed adds one).
    nonisolated static let fixedCases = fixedSeeds.map { (StoreKind.inMemory, $0) }
        + StoreKind.enabled([.postgreSQL]).map { ($0, fixedSeeds[0]) }

    @Test(arguments: fixedCases)
    func sqlAndMemorySelectTheSameObjectsInTheSameOrder(kind: StoreKind, seed: UInt64) throws {
        try check(kind, seed: seed)
    }

    @Test(arguments: kinds)
    func sqlAndMemoryAgreeForARandomSeed(kind: StoreKind) throws {
        let seed = SplitMix64.random().seed  // STRATA_TEST_SEED runs it again
        print("WherePropertyTests random seed (\(kind)): \(seed)")
        try check(kind, seed: seed)
    }

    /// Random data, then random item and group predicates with random orders;
    /// each SQL fetch must equal filtering and sorting the objects in memory.
    /// 340 predicates a seed, five or more seeds a run.
    private func check(
        _ kind: StoreKind, seed: UInt64, items: Int = 300, itemPredicates: Int = 300, groupPredicates: Int = 40
    ) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try ProbeData.populate(stack, seed: seed, items: items)
        // Held strongly so the main context keeps them while predicates run.
        let allItems = try stack.fetchAll(From<ProbeItem>())
        let allGroups = try stack.fetchAll(From<ProbeGroup>())
        let allTags = try stack.fetchAll(From<ProbeTag>())
        #expect(allItems.count == items)
        var generator = ProbeGenerator(
            random: ProbeRandom(seed: seed ^ 0x9E37), groups: allGroups, tags: allTags)
        generator.mixesStorageClasses = kind != .postgreSQL
        var failures = 0
        for index in 0..<itemPredicates where failures < 5 {
            let predicate = generator.item(depth: 3)
            let (order, orderText) = generator.itemOrder()
            let fetched = try stack.fetchAll(
                From<ProbeItem>().where(predicate.clause).orderBy(order))
            let selected = allItems.filter { predicate.clause.evaluate($0) == true }
            if !Self.same(fetched, selected, order.areInIncreasingOrder) {
                let evaluated = selected.sorted(by: order.areInIncreasingOrder).map(\.rowID)
                let fetched = fetched.map(\.rowID)
                failures += 1
                Issue.record(
                    """
                    \(kind), seed \(seed), item predicate #\(index): \(predicate.text)
                    order: \(orderText)
                    SQL:    \(fetched)
                    memory: \(evaluated)
                    """)
            }
        }
        for index in 0..<groupPredicates where failures < 5 {
            let predicate = generator.group(depth: 3)
            let order = OrderBy<ProbeGroup>(
                .ascending(\.$name, .caseInsensitive), .descending(\.$weight))
            let fetched = try stack.fetchAll(
                From<ProbeGroup>().where(predicate.clause).orderBy(order))
            let selected = allGroups.filter { predicate.clause.evaluate($0) == true }
            if !Self.same(fetched, selected, order.areInIncreasingOrder) {
                let evaluated = selected.sorted(by: order.areInIncreasingOrder).map(\.rowID)
                let fetched = fetched.map(\.rowID)
                failures += 1
                Issue.record(
                    """
                    \(kind), seed \(seed), group predicate #\(index): \(predicate.text)
                    SQL:    \(fetched)
                    memory: \(evaluated)
                    """)
            }
        }
        withExtendedLifetime((allItems, allTags)) {}
    }

    /// Whether `fetched` is exactly `selected` sorted by `areInIncreasingOrder`:
    /// the same objects, each strictly before the next. As the order is a
    /// strict total order (see `OrderByTests`), this is `selected.sorted(by:)`
    /// at a fraction of the cost.
    private static func same<Object: ManagedObject>(
        _ fetched: [Object], _ selected: [Object], _ areInIncreasingOrder: (Object, Object) -> Bool
    ) -> Bool {
        guard fetched.count == selected.count,
            Set(fetched.map(\.rowID)) == Set(selected.map(\.rowID))
        else { return false }
        return zip(fetched, fetched.dropFirst()).allSatisfy { areInIncreasingOrder($0, $1) }
    }
}
