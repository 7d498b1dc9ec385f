import Foundation
@testable import Strata
import Testing

/// Counts and sums written once against the protocols, run on a stack and in a transaction.
private func adults(in source: some FetchableSource) throws -> (count: Int, ids: [Int64]) {
    let query = From<MonItem>().where(\.$rank >= 18).orderBy(.ascending(\.$rank))
    return (try source.fetchCount(query), try source.fetchObjectIDs(query).map(\.rowID))
}

private func rankSum(in source: some QueryableSource) throws -> Int {
    try source.queryValue(From<MonItem>().select(Int.self, .sum(\.$rank))) ?? 0
}

/// One definition of every fetch and query serves the stack and transactions.
@MainActor
@Suite("FetchableSource: one fetch for stacks and transactions")
struct FetchableSourceTests {
    @Test(arguments: [UInt64(5), 6, 7])
    func aTransactionSeesWhatTheStackSeesPlusItsPendingChanges(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try MonWorkload.seed(stack, count: 30, random: &random)
        let committed = try adults(in: stack)
        let committedSum = try rankSum(in: stack)
        let extra = Int(random.next() % 80)
        let (inTransaction, sumInTransaction, newID) = try stack.perform(synchronous: { tx in
            #expect(try adults(in: tx).ids == committed.ids)
            let item = tx.create(Into<MonItem>())
            item.rank = extra
            return (try adults(in: tx), try rankSum(in: tx), item.objectID.rowID)
        })
        #expect(sumInTransaction == committedSum + extra, "seed \(seed)")
        #expect(inTransaction.count == committed.count + (extra >= 18 ? 1 : 0), "seed \(seed)")
        #expect(Set(inTransaction.ids) == Set(committed.ids + (extra >= 18 ? [newID] : [])), "seed \(seed)")
        // After the commit the stack sees it too.
        #expect(try adults(in: stack).count == inTransaction.count)
        #expect(try rankSum(in: stack) == sumInTransaction)
    }

    @Test
    func aStackWithoutAStoreThrowsStoreNotAdded() {
        let stack = DataStack(monitorSchema)
        let fetchError = #expect(throws: StrataError.self) { try stack.fetchAll(From<MonItem>()) }
        let queryError = #expect(throws: StrataError.self) { try rankSum(in: stack) }
        for error in [fetchError, queryError] {
            guard case .storeNotAdded? = error else {
                Issue.record("expected storeNotAdded, got \(String(describing: error))")
                continue
            }
        }
    }

    @Test
    func fetchExistingFindsEachSourcesOwnInstance() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).objectID })
        let onMain = try #require(try stack.fetchExisting(id))
        let sameContext = try stack.perform(synchronous: { tx in
            let mine = try #require(try tx.fetchExisting(onMain))
            let ids = [id]
            let byIDs: [MonItem] = try tx.fetchExisting(ids)
            return mine !== onMain && mine.objectID == id && byIDs.first === mine
        })
        #expect(sameContext)
        #expect(try stack.fetchExisting(onMain) === onMain)
    }

    /// `fetchExisting(object)` finds an object by its own entity, whatever
    /// type it is seen as (a `ZooDog` seen as `ZooAnimal` or as
    /// `ManagedObject`, as generic code over mixed objects sees it): it
    /// answers what `fetchExisting([object])` and `tx.edit(object)` answer,
    /// on the stack and in a transaction, deleted objects left out.
    @Test(arguments: [UInt64(0xFE1), 0xFE2, 0xFE3])
    func fetchExistingOfOneObjectFindsItWhateverTypeItIsSeenAs(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            ZooWorkload.createAnimals(8, in: tx, &random)
            tx.create(Into<ZooKeeper>()).name = "keeper"
        })
        let held: [ManagedObject] = try stack.fetchAll(From<ZooAnimal>()) + stack.fetchAll(From<ZooKeeper>())
        let gone = Set(held.filter { _ in Bool.random(using: &random) }.map(ObjectIdentifier.init))
        try stack.perform(synchronous: { tx in
            for object in held where gone.contains(ObjectIdentifier(object)) { tx.delete(tx.edit(object)) }
        })
        for object in held.shuffled(using: &random) {
            let context = "seed \(seed), \(object.objectID)"
            let expected = !gone.contains(ObjectIdentifier(object))
            let asBase = try stack.fetchExisting(object)
            let asMany = try stack.fetchExisting([object]).first
            #expect((asBase != nil) == expected && asBase === asMany, "stack, \(context)")
            if let animal = object as? ZooAnimal {
                #expect(try stack.fetchExisting(animal) === asMany, "stack as ZooAnimal, \(context)")
            }
            let inTransaction = try stack.perform(synchronous: { tx in
                let one = try tx.fetchExisting(object)
                return (one != nil, one === tx.edit(object), one === (try tx.fetchExisting([object]).first))
            })
            #expect(inTransaction == (expected, true, true), "transaction, \(context)")
        }
    }

    /// `fetchExisting(objects)`, CoreStore's look-up of many objects, serves
    /// the stack as it serves transactions: each object's instance there,
    /// in order, deleted ones left out.
    @Test(arguments: StoreKind.allCases)
    func fetchExistingOfManyObjectsServesTheStackAndTransactions(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            (0..<3).map { rank in
                let item = tx.create(Into<MonItem>())
                item.rank = rank
                return item.objectID
            }
        })
        let held = try #require(try stack.fetchExisting(ids[0]))
        let ranks = try stack.perform(synchronous: { tx in
            let items = tx.edit(ids)
            tx.delete(items[1])
            // Pending deletions are left out; the transaction's own instances come back.
            let mine = try tx.fetchExisting([held, items[2], items[1]])
            #expect(mine.first === items[0] && mine.last === items[2])
            return items.map(\.rank)
        })
        #expect(ranks == [0, 1, 2])
        let fromTransaction = try stack.perform(synchronous: { tx in tx.edit(ids) })
        let onMain = try stack.fetchExisting(fromTransaction.reversed())
        #expect(onMain.map(\.rank) == [2, 0])
        #expect(onMain.last === held)
        #expect(try stack.fetchExisting([held]).first === held)
    }

    /// IDs in an array literal, as CoreStore's callers write them, compile
    /// with no type spelled out and read what an array of IDs reads.
    @Test
    func idsInAnArrayLiteralNeedNoTypeSpelledOut() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let (first, second) = try stack.perform(synchronous: { tx in
            (tx.create(Into<MonItem>()), tx.create(Into<MonItem>()))
        })
        let (a, b) = (first.objectID, second.objectID)
        let ranks = try stack.perform(synchronous: { tx in
            let items = tx.edit([b, a])
            for (rank, item) in items.enumerated() { item.rank = rank + 1 }
            let found = try tx.fetchExisting([a])
            #expect(found.map(\.rank) == [2])
            return items.map(\.rank)
        })
        #expect(ranks == [1, 2])
        #expect(try stack.fetchExisting([a, b]).map(\.rank) == [2, 1])
    }
}
