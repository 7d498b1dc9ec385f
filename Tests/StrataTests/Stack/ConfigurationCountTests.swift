import Foundation
@testable import Strata
import Testing

/// How many stores a count over several stores reads: `fetchExists`, and
/// `fetchCount` with a limit, stop at the store that settles the answer
/// instead of counting every match of every store.
@MainActor
@Suite("DataStack: counting across configurations")
struct ConfigurationCountTests {
    /// The statements that read items, which each store's count runs once.
    private func itemReads(_ log: RecordedStatements) -> [String] {
        log.all.filter { $0.hasPrefix("SELECT") && $0.contains(#""CfgItem""#) }
    }

    /// Random items in the default store and in "Config1", and random
    /// queries over both: the answers are those of one count over the union,
    /// and the stores read are those, in store order, up to the first whose
    /// matches reach past the offset (`fetchExists`) or fill offset and
    /// limit (`fetchCount`): every store when they never do, or without a limit.
    // SQLite only: statements are recorded by SQLite's trace hook, which a
    // PostgreSQL connection does not have yet (issue #16).
    @Test(arguments: StoreKind.sqlite, [UInt64(0xC0C1), 0xC0C2, 0xC0C3])
    func existsAndALimitedCountReadNoStorePastTheAnswer(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        // Ranks per store; a query matches the ranks below its bound.
        var ranks: [[Int]] = [[], []]
        for (store, configuration) in [nil, "Config1"].enumerated() {
            ranks[store] = (0..<Int(random.next() % 12)).map { _ in Int(random.next() % 6) }
            try stack.perform(synchronous: { tx in
                for (key, rank) in ranks[store].enumerated() {
                    let item = tx.create(Into<CfgItem>(configuration))
                    (item.key, item.rank, item.label) = (key, rank, "item")
                }
            })
        }
        let log = RecordedStatements()
        try stack.recordStatements { log.record($0) }
        defer { try? stack.recordStatements(nil) }
        for number in 0..<40 {
            let bound = Int(random.next() % 7)
            let limit: Int? = random.next() % 3 == 0 ? nil : Int(random.next() % 4)
            let offset = random.next() % 2 == 0 ? 0 : Int(random.next() % 8)
            let query = From<CfgItem>().where(\.$rank < bound).tweak {
                $0.fetchLimit = limit
                $0.fetchOffset = offset
            }
            let matches = ranks.map { $0.filter { $0 < bound }.count }
            let total = matches.reduce(0, +)
            let effectiveLimit = limit.flatMap { $0 > 0 ? $0 : nil }
            let context = "\(kind), seed \(seed), query \(number): rank < \(bound), limit "
                + "\(limit.map(String.init) ?? "nil"), offset \(offset), matches \(matches)"
            /// How many stores, in order, it takes for their matches to reach `needed`.
            func storesRead(reaching needed: Int?) -> Int {
                guard let needed else { return matches.count }
                var seen = 0
                for (index, count) in matches.enumerated() {
                    seen += count
                    if seen >= needed { return index + 1 }
                }
                return matches.count
            }

            var before = itemReads(log).count
            #expect(try stack.fetchExists(query) == (total > offset), "\(context)")
            #expect(itemReads(log).count - before == storesRead(reaching: offset + 1), "\(context)")

            before = itemReads(log).count
            let remaining = max(0, total - offset)
            #expect(
                try stack.fetchCount(query)
                    == effectiveLimit.map { min($0, remaining) } ?? remaining, "\(context)")
            let reads = itemReads(log).dropFirst(before)
            #expect(
                reads.count == storesRead(reaching: effectiveLimit.map { offset + $0 }),
                "\(context): \(Array(reads))")
        }
    }
}
