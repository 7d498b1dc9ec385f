import Foundation
import Testing

@testable import Strata

// MARK: Property tests

@MainActor
@Suite("Where format strings: the same answers as the key-path Where")
struct WhereFormatPropertyTests {
    nonisolated static let seeds: [UInt64] = [0xF0_0001, 0xF0_0002, SplitMix64.random().seed]
    nonisolated static let cases =
        seeds.map { (StoreKind.inMemory, $0) } + [(StoreKind.file, seeds[0])]

    /// Random conditions, each as a format and as key paths: the fetches of
    /// the two select the same objects, and evaluating either in memory
    /// selects what the fetch did.
    @Test(arguments: cases)
    func aFormatFetchesAndEvaluatesAsItsKeyPathTwin(kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 200)
        let items = try stack.fetchAll(From<ProbeItem>())
        var generator = FormatGenerator(
            seed: seed ^ 0xF00D, groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        var failures = 0
        var matched = 0
        for index in 0..<300 where failures < 5 {
            let condition = generator.item(depth: 3)
            let formatted = condition.formatted
            let expected = try stack.fetchAll(From<ProbeItem>().where(condition.clause)).map(
                \.rowID)
            let fetched: [Int64]
            do {
                fetched = try stack.fetchAll(From<ProbeItem>().where(formatted)).map(\.rowID)
            } catch {
                failures += 1
                Issue.record("seed \(seed), #\(index): \(condition.text) threw \(error)")
                continue
            }
            let evaluated = items.filter { formatted.evaluate($0) == true }.map(\.rowID).sorted()
            matched += expected.isEmpty ? 0 : 1
            if fetched != expected || evaluated != expected.sorted() {
                failures += 1
                Issue.record(
                    """
                    \(kind), seed \(seed), #\(index): \(condition.text)
                    key paths: \(expected)
                    format:    \(fetched)
                    in memory: \(evaluated)
                    """)
            }
        }
        // The conditions are not all empty: they test something.
        #expect(matched > 50, "seed \(seed)")
        withExtendedLifetime(items) {}
    }

    /// Monitors over random format conditions list exactly what a fresh
    /// fetch of their query lists, after each of several random commits.
    @Test(arguments: seeds)
    func aFormatMonitorStaysEqualToAFreshFetch(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 120)
        var generator = FormatGenerator(
            seed: seed ^ 0x4D0, groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        let queries = (0..<12).map { _ in
            From<ProbeItem>().where(generator.item(depth: 2).formatted).orderBy(
                .ascending(\.$number))
        }
        let monitors = try queries.map { try stack.monitorList($0) }
        var random = ProbeRandom(seed: seed ^ 0xC0)
        for round in 0..<6 {
            try stack.perform(synchronous: { tx in
                let items = try tx.fetchAll(From<ProbeItem>())
                let groups = try tx.fetchAll(From<ProbeGroup>())
                let tags = try tx.fetchAll(From<ProbeTag>())
                for item in items where random.chance(0.2) {
                    item.number = random.integer()
                    item.maybe = random.chance(0.3) ? nil : random.integer()
                    item.text = random.string()
                    item.note = random.chance(0.3) ? nil : random.string()
                    item.flag = random.chance(0.3) ? nil : random.chance(0.5)
                    item.group = random.chance(0.2) ? nil : random.pick(groups)
                    item.tags = Set((0..<random.below(4)).map { _ in random.pick(tags) })
                }
                for tag in tags where random.chance(0.2) { tag.label = random.string() }
                for group in groups where random.chance(0.1) { group.rank = random.integer() }
                for item in items where random.chance(0.03) { tx.delete(item) }
                for _ in 0..<3 { tx.create(Into<ProbeItem>()).number = random.integer() }
            })
            for (query, monitor) in zip(queries, monitors) {
                let fresh = try stack.fetchAll(query).map(\.rowID)
                #expect(
                    monitor.objectsInAllSections().map(\.rowID) == fresh,
                    "seed \(seed), round \(round)")
            }
        }
    }
}
