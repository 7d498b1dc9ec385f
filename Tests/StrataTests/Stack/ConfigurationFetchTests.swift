import Foundation
@testable import Strata
import Testing

/// Fetches over several stores (CoreStore's `FetchTests` and `FromTests`
/// with configurations): a fetch that reads two stores answers as one fetch
/// over the union of their rows would.
@MainActor
@Suite("DataStack: fetching across configurations")
struct ConfigurationFetchTests {
    /// The stores, in the order the stack keeps them.
    static let configurations: [String?] = [nil, "Config1", "Config2"]

    /// Random items in the default store and in "Config1", random commits in
    /// one store or the other, and random queries (predicate, order, limit,
    /// offset, configurations): every fetch API of the stack and of a
    /// transaction gives what the same query computes over the model's rows.
    @Test(arguments: StoreKind.allCases, [UInt64(0xC0F1), 0xC0F2, 0xC0F3, 0xC0F4])
    func everyFetchAgreesWithOneFetchOverTheUnionOfTheStores(_ kind: StoreKind, seed: UInt64) throws {
        var generator = CfgGenerator(random: SplitMix64(seed: seed))
        let directory = TemporaryDirectory()
        // Added in a random order: the stack orders them all the same.
        let added = Self.configurations.shuffled(using: &generator.random)
        let stack = try makeConfigurationStack(added, kind, in: directory)
        #expect(stack.storeConfigurations == Self.configurations, "seed \(seed): added \(added)")
        var rows: [CfgRow] = []
        var nextKey = 0
        for round in 0..<4 {
            let store = generator.below(2)
            try commitRandomChanges(stack, in: store, to: &rows, nextKey: &nextKey, &generator, first: round == 0)
            for number in 0..<30 {
                let query = generator.query()
                try check(stack, query, rows, "seed \(seed), round \(round), query \(number): \(query)")
            }
        }
    }

    /// Items with keys 1 and 2 in the default store, 3 and 4 in "Config1",
    /// and a note in the default store and in "Config2".
    private func seededStack(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
        let stack = try makeConfigurationStack(Self.configurations, kind, in: directory)
        for (configuration, keys) in [(nil, [1, 2]), ("Config1", [3, 4])] as [(String?, [Int])] {
            try stack.perform(synchronous: { tx in
                for key in keys {
                    let item = tx.create(Into<CfgItem>(configuration))
                    (item.key, item.rank, item.label) = (key, 10 - key, "item \(key)")
                }
            })
        }
        for configuration in [nil, "Config2"] as [String?] {
            try stack.perform(synchronous: { tx in
                tx.create(Into<CfgNote>(configuration)).text = configuration ?? "default"
            })
        }
        return stack
    }

    @Test(arguments: StoreKind.allCases)
    func fromReadsTheStoresOfItsConfigurationsThatHoldTheEntity(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        // No order: store after store, each in row-ID order.
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [1, 2, 3, 4])
        #expect(keys(try stack.fetchAll(From<CfgItem>(nil))) == [1, 2])
        #expect(keys(try stack.fetchAll(From<CfgItem>("Config1"))) == [3, 4])
        #expect(keys(try stack.fetchAll(From<CfgItem>(nil, "Config1"))) == [1, 2, 3, 4])
        // The order the configurations are named in does not change the store order.
        #expect(keys(try stack.fetchAll(From<CfgItem>(["Config1", nil]))) == [1, 2, 3, 4])
        // A named store that does not hold the entity is skipped.
        #expect(keys(try stack.fetchAll(From<CfgItem>("Config2", "Config1"))) == [3, 4])
        #expect(try stack.fetchAll(From<CfgNote>()).map(\.text) == ["default", "Config2"])
        #expect(try stack.fetchAll(From<CfgNote>("Config2")).map(\.text) == ["Config2"])
        // An order across stores: rank is 10 - key.
        #expect(keys(try stack.fetchAll(From<CfgItem>().orderBy(.ascending(\.$rank)))) == [4, 3, 2, 1])
        #expect(keys(try stack.fetchAll(From<CfgItem>().orderBy(.descending(\.$label)))) == [4, 3, 2, 1])
        #expect(try stack.fetchCount(From<CfgItem>().where(\.$rank < 8)) == 2)
        #expect(try stack.fetchOne(From<CfgItem>().orderBy(.ascending(\.$rank)))?.key == 4)
        #expect(try stack.fetchObjectIDs(From<CfgItem>()).map(\.configuration) == [nil, nil, "Config1", "Config1"])
    }

    @Test(arguments: StoreKind.allCases)
    func fromNamingNoStoreThatHoldsTheEntityThrowsStoreNotFound(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        let cases: [(String, () throws -> Void, String, String?)] = [
            ("Config2 holds no item", { _ = try stack.fetchAll(From<CfgItem>("Config2")) }, "CfgItem", "Config2"),
            ("no Config9 store", { _ = try stack.fetchCount(From<CfgItem>("Config9")) }, "CfgItem", "Config9"),
            ("users are default only", { _ = try stack.fetchOne(From<CfgUser>("Config1")) }, "CfgUser", "Config1"),
            ("ids", { _ = try stack.fetchObjectIDs(From<CfgNote>(["Config1"])) }, "CfgNote", "Config1"),
        ]
        // CfgTag is in the default store as well (every entity is): that one answers.
        #expect(try stack.fetchExists(From<CfgTag>(nil, "Config2")) == false)
        for (name, fetch, entity, configuration) in cases {
            #expect(throws: (any Error).self, "\(name)") { try fetch() }
            do {
                try fetch()
            } catch {
                #expect(isStoreNotFound(error, entity, configuration), "\(name): \(error)")
            }
        }
        // A transaction refuses alike.
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in _ = try tx.fetchAll(From<CfgItem>("Config2")) })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSelectQueryReadsOneNamedStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        do {
            _ = try stack.queryValue(From<CfgItem>().select(Int.self, .count()))
            Issue.record("a Select over two stores answered")
        } catch {
            guard case .invalidValue(let entity, let field, _) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(entity == "CfgItem" && field == "configuration")
        }
        #expect(throws: StrataError.self) {
            try stack.queryAttributes(From<CfgItem>(nil, "Config1").select(.attribute(\.$rank)))
        }
        #expect(try stack.queryValue(From<CfgItem>("Config1").select(Int.self, .sum(\.$key))) == 7)
        #expect(try stack.queryValue(From<CfgItem>(nil).select(Int.self, .sum(\.$key))) == 3)
        // Config2 holds no item: the one store left is the one read.
        #expect(try stack.queryValue(From<CfgItem>("Config2", "Config1").select(Int.self, .count())) == 2)
        let ranks = try stack.queryAttributes(
            From<CfgItem>("Config1").select(.attribute(\.$rank)).orderBy(.ascending(\.$rank)))
        #expect(ranks.map { $0["rank"] } == [.integer(6), .integer(7)])
        #expect(try stack.queryValue(From<CfgUser>().select(Int.self, .count())) == 0)
        let inTransaction = try stack.perform(synchronous: { tx in
            try tx.queryValue(From<CfgItem>("Config1").select(Int.self, .maximum(\.$key)))
        })
        #expect(inTransaction == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func anIDIsReadInItsOwnStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        let all = try stack.fetchAll(From<CfgItem>())
        let (first, third) = (all[0], all[2])
        // The first row of each store: one row ID, two objects.
        #expect(first.objectID.rowID == third.objectID.rowID)
        #expect(first.objectID != third.objectID)
        #expect(first !== third)
        #expect(try stack.fetchExisting(first.objectID)?.key == 1)
        #expect(try stack.fetchExisting(third.objectID)?.key == 3)
        #expect(try stack.fetchExisting(third.objectID) === third)
        let ids = [all[3].objectID, all[0].objectID, all[2].objectID]
        #expect(keys(try stack.fetchExisting(ids)) == [4, 1, 3])
        // No store of Config2 holds items: such an ID finds nothing.
        let foreign = ObjectID<CfgItem>(entityName: "CfgItem", rowID: 1, configuration: "Config2")
        #expect(try stack.fetchExisting(foreign) == nil)
        #expect(keys(try stack.fetchExisting([foreign, first.objectID])) == [1])
        let inTransaction = try stack.perform(synchronous: { tx in
            [try tx.fetchExisting(third.objectID)?.key, tx.edit(first.objectID)?.key, tx.edit(foreign)?.key]
                + tx.edit([all[3], all[1]]).map(\.key)
        })
        #expect(inTransaction == [3, 1, nil, 4, 2])
    }

    /// Objects from another stack's stores, of every configuration, looked
    /// up many at a time give what looking each up alone gives: an object
    /// of a configuration the stack has no store of is found in none (not as
    /// the row of that row ID in another store), on the stack and in a
    /// transaction (`fetchExisting`, `edit`), with one store or several.
    @Test(arguments: [UInt64(0xE1), 0xE2, 0xE3, 0xE4])
    func manyObjectsAreLookedUpEachInItsOwnStoreAsOneIs(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let source = try makeConfigurationStack([nil, "Config1"], .inMemory, in: directory)
        let targetStores: [[String?]] = [[nil], ["Config1"], [nil, "Config1"]]
        let stores = targetStores[Int.random(in: 0..<targetStores.count, using: &random)]
        let target = try makeConfigurationStack(stores, .inMemory, in: directory)
        // Both stacks get items in every store they have, so row IDs overlap.
        for (stack, configurations) in [(source, [nil, "Config1"] as [String?]), (target, stores)] {
            for configuration in configurations {
                let count = Int.random(in: 2...6, using: &random)
                let base = (configuration == nil ? 0 : 100) + (stack === source ? 0 : 1000)
                try stack.perform(synchronous: { tx in
                    for index in 0..<count { tx.create(Into<CfgItem>(configuration)).key = base + index }
                })
            }
        }
        let pool = try source.fetchAll(From<CfgItem>())
        let objects = (0..<Int.random(in: 1...10, using: &random)).map { _ in
            pool.randomElement(using: &random)!
        }
        let context = "seed \(seed), target stores \(stores), objects \(objects.map(\.objectID))"
        let oneByOne = try objects.compactMap { try target.fetchExisting($0)?.key }
        #expect(keys(try target.fetchExisting(objects)) == oneByOne, "stack, \(context)")
        #expect(oneByOne.allSatisfy { $0 >= 1000 }, "\(context)")
        let inTransaction = try target.perform(synchronous: { tx in
            let single = try objects.compactMap { try tx.fetchExisting($0)?.key }
            let editedOneByOne = objects.compactMap { tx.edit($0)?.key }
            return (single, keys(try tx.fetchExisting(objects)), keys(tx.edit(objects)), editedOneByOne)
        })
        #expect(inTransaction.0 == oneByOne, "transaction, \(context)")
        #expect(inTransaction.1 == oneByOne, "transaction fetchExisting, \(context)")
        #expect(inTransaction.2 == oneByOne, "transaction edit, \(context)")
        #expect(inTransaction.3 == oneByOne, "transaction edit one by one, \(context)")
    }

    /// One commit in the store at `store`: inserts, updates and deletes,
    /// made to the stack and to `rows` alike.
    private func commitRandomChanges(
        _ stack: DataStack, in store: Int, to rows: inout [CfgRow], nextKey: inout Int,
        _ generator: inout CfgGenerator, first: Bool
    ) throws {
        let configuration = Self.configurations[store]
        var inserts: [CfgRow] = []
        for _ in 0..<(first ? 15 + generator.below(10) : generator.below(6)) {
            nextKey += 1
            inserts.append(CfgRow(
                key: nextKey, rank: generator.rank(), label: generator.label(), score: generator.score(),
                store: store, rowID: 0))
        }
        var updates: [(index: Int, row: CfgRow)] = []
        var deletes: Set<Int> = []
        for index in rows.indices where rows[index].store == store {
            if generator.chance(0.15) {
                deletes.insert(index)
            } else if generator.chance(0.3) {
                var row = rows[index]
                (row.rank, row.label, row.score) = (generator.rank(), generator.label(), generator.score())
                updates.append((index, row))
            }
        }
        let ids = rows.map(Self.id)
        let (plannedInserts, plannedUpdates) = (inserts, updates)
        let rowIDs: [Int64] = try stack.perform(synchronous: { tx in
            for (index, row) in plannedUpdates {
                let item = try #require(tx.edit(ids[index]))
                (item.rank, item.label, item.score) = (row.rank, row.label, row.score)
            }
            for index in deletes { tx.delete(ids[index]) }
            return plannedInserts.map { row in
                let item = tx.create(Into<CfgItem>(configuration))
                (item.key, item.rank, item.label, item.score) = (row.key, row.rank, row.label, row.score)
                return item.objectID.rowID
            }
        })
        for (index, row) in updates { rows[index] = row }
        rows = rows.indices.filter { !deletes.contains($0) }.map { rows[$0] }
        for (row, rowID) in zip(inserts, rowIDs) {
            rows.append(CfgRow(
                key: row.key, rank: row.rank, label: row.label, score: row.score, store: store, rowID: rowID))
        }
    }

    private static func id(_ row: CfgRow) -> ObjectID<CfgItem> {
        ObjectID(entityName: "CfgItem", rowID: row.rowID, configuration: configurations[row.store])
    }

    /// Every fetch API, on the main context and in a transaction, against the model.
    private func check(_ stack: DataStack, _ query: CfgQuery, _ rows: [CfgRow], _ context: String) throws {
        let expected = query.expected(rows)
        let expectedKeys = expected.map(\.key)
        let unique = query.expected(rows, limit: 2)
        let expectedUnique = unique.count == 1 ? unique[0].key : nil
        let from = query.from

        let all = try stack.fetchAll(from)
        #expect(keys(all) == expectedKeys, "\(context)\n  rows: \(rows)")
        #expect(all.map(\.objectID) == expected.map(Self.id), "\(context)")
        #expect(try stack.fetchObjectIDs(from) == expected.map(Self.id), "\(context)")
        #expect(try stack.fetchCount(from) == expected.count, "\(context)")
        #expect(try stack.fetchExists(from) == !expected.isEmpty, "\(context)")
        #expect(try stack.fetchOne(from)?.key == expected.first?.key, "\(context)")
        #expect(try stack.fetchUnique(from)?.key == expectedUnique, "\(context)")
        // Each object read from its own store holds that store's values.
        for (object, row) in zip(all, expected) {
            #expect(
                object.rank == row.rank && object.label == row.label && object.score == row.score,
                "\(context): \(row)")
        }

        // A transaction reads through the same routing, on its writer connections.
        let seen = try stack.perform(synchronous: { tx in
            (
                all: try tx.fetchAll(from).map(\.key), ids: try tx.fetchObjectIDs(from),
                count: try tx.fetchCount(from), exists: try tx.fetchExists(from),
                one: try tx.fetchOne(from)?.key, unique: try tx.fetchUnique(from)?.key
            )
        })
        #expect(seen.all == expectedKeys, "\(context), in a transaction")
        #expect(seen.ids == expected.map(Self.id), "\(context), in a transaction")
        #expect(seen.count == expected.count, "\(context), in a transaction")
        #expect(seen.exists == !expected.isEmpty, "\(context), in a transaction")
        #expect(seen.one == expected.first?.key, "\(context), in a transaction")
        #expect(seen.unique == expectedUnique, "\(context), in a transaction")
    }

    /// Paging over several stores answers as one store's SQL does: a negative
    /// offset is none, and a limit of `Int.max` with an offset does not
    /// overflow (both trapped before).
    @Test(arguments: StoreKind.sqlite)
    func pagingOverSeveralStoresTakesWhatSQLTakes(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        #expect(keys(try stack.fetchAll(From<CfgItem>(nil).tweak { $0.fetchOffset = -2 })) == [1, 2])
        #expect(keys(try stack.fetchAll(From<CfgItem>().orderBy(.ascending(\.$key)).tweak { $0.fetchOffset = -2 }))
            == [1, 2, 3, 4])
        #expect(try stack.fetchCount(From<CfgItem>().tweak { $0.fetchOffset = -2 }) == 4)
        #expect(try stack.fetchObjectIDs(From<CfgItem>().tweak { $0.fetchOffset = -2; $0.fetchLimit = 3 }).count == 3)
        #expect(keys(try stack.fetchAll(
            From<CfgItem>().orderBy(.ascending(\.$rank)).tweak { $0.fetchLimit = .max; $0.fetchOffset = 1 })) == [3, 2, 1])
        #expect(try stack.fetchAll(From<CfgItem>().tweak { $0.fetchOffset = .max }).isEmpty)
    }
}
