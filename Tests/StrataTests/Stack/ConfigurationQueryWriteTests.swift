import Foundation
@testable import Strata
import Testing

/// Writes that take a query (`fetchOrCreate`, `deleteAll`, `updateAll`) on a
/// stack of several stores: they act where the query reads, on exactly what
/// the same fetch returns.
@MainActor
@Suite("Query-driven writes across configurations")
struct ConfigurationQueryWriteTests {
    /// `fetchOrCreate` creates where its `From` reads: a query that names
    /// one store holding the entity (`From<CfgItem>("Config1")`, or a list
    /// of which only one holds it) finds and creates there, so that asking
    /// again finds what it created, whatever the other stores hold.
    @Test(arguments: [UInt64(0xF0C1), 0xF0C2, 0xF0C3])
    func fetchOrCreateCreatesInTheStoreItsFromNames(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], .inMemory, in: directory)
        // Each From names one store that holds CfgItem; the configuration its objects get.
        let froms: [(From<CfgItem>, String?)] = [
            (From<CfgItem>(nil), nil), (From<CfgItem>("Config1"), "Config1"),
            (From<CfgItem>("Config1", "Config2"), "Config1"), (From<CfgItem>([nil, "Config2"]), nil),
        ]
        var model: [String?: Set<Int>] = [nil: [], "Config1": []]
        for round in 0..<6 {
            let steps = (0..<8).map { _ in
                (Int.random(in: 0..<4, using: &random), Int.random(in: 0..<5, using: &random))
            }
            let results = try stack.perform(synchronous: { tx in
                try steps.map { step -> (String?, Bool) in
                    var created = false
                    let item = try tx.fetchOrCreate(froms[step.0].0.where(\.$key == step.1)) { item in
                        item.key = step.1
                        created = true
                    }
                    return (item.objectID.configuration, created)
                }
            })
            for (step, (configuration, created)) in zip(steps, results) {
                let store = froms[step.0].1
                let context = "seed \(seed) round \(round) key \(step.1) in \(store ?? "default")"
                #expect(configuration == store, "\(context)")
                #expect(created == !model[store]!.contains(step.1), "\(context)")
                model[store]!.insert(step.1)
            }
        }
        for store in [nil, "Config1"] as [String?] {
            let keys = try stack.fetchAll(From<CfgItem>(store)).map(\.key)
            #expect(Set(keys) == model[store]! && keys.count == model[store]!.count, "seed \(seed)")
        }
    }

    @Test
    func fetchOrCreateOverSeveralStoresThatHoldTheEntityTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeConfigurationStack([nil, "Config1"], .inMemory, in: directory)
                try stack.perform(synchronous: { tx in _ = try tx.fetchOrCreate(From<CfgItem>()) { _ in } })
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("fetchOrCreate reads several stores that hold CfgItem"), "\(message)")
        #expect(message.contains("From<CfgItem>(\"Configuration\")"), "\(message)")
    }

    /// `deleteAll` and `updateAll` change exactly the objects `fetchAll`
    /// returns for the same query, as the docs promise, also when the query
    /// reads several stores and pages them with a limit and an offset
    /// (which apply to the merged list, not to each store).
    @Test(arguments: StoreKind.allCases, [UInt64(0xB1C1), 0xB1C2])
    func bulkWritesOverSeveralStoresChangeExactlyWhatTheFetchReturns(
        _ kind: StoreKind, _ seed: UInt64
    ) throws {
        var generator = CfgGenerator(random: SplitMix64(seed: seed))
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], kind, in: directory)
        for configuration in [nil, "Config1"] as [String?] {
            // Sometimes more than 32 items, so that a page's row IDs go as one bound list.
            let values = (0..<(8 + generator.below(40))).map { _ in
                (generator.rank(), generator.label(), generator.score())
            }
            try stack.perform(synchronous: { tx in
                for (index, value) in values.enumerated() {
                    let item = tx.create(Into<CfgItem>(configuration))
                    (item.key, item.rank, item.label, item.score) = (index, value.0, value.1, value.2)
                }
            })
        }
        for number in 0..<40 {
            let query = generator.query()
            let context = "\(kind), seed \(seed), query \(number): \(query)"
            let deleting = generator.chance(0.5)
            let tx = try stack.beginUnsafe()
            defer { tx.rollback() }
            let all = Set(try tx.fetchObjectIDs(From<CfgItem>()))
            let fetched = Set(try tx.fetchObjectIDs(query.from))
            if deleting {
                let deleted = try tx.deleteAll(query.from)
                #expect(deleted == fetched.count, "deleteAll, \(context)")
                let left = Set(try tx.fetchObjectIDs(From<CfgItem>()))
                #expect(left == all.subtracting(fetched), "deleteAll, \(context)")
            } else {
                let updated = try tx.updateAll(query.from, .set(\.$rank, to: 99))
                #expect(updated == fetched.count, "updateAll, \(context)")
                let changed = Set(try tx.fetchObjectIDs(From<CfgItem>().where(\.$rank == 99)))
                #expect(changed == fetched, "updateAll, \(context)")
            }
        }
    }
}
