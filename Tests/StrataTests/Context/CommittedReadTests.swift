import Foundation
@testable import Strata
import Testing

/// What one query with `includesPendingChanges = false` answered in a transaction.
private struct CommittedAnswers {
    var ids: [ObjectID<MonItem>]
    var count: Int
    var exists: Bool
    var rankSum: Int?
    /// `fetchAll`'s objects: their IDs, whether each is the transaction's own
    /// instance for its ID, and the IDs the transaction had deleted by then.
    var objectIDs: [ObjectID<MonItem>]
    var objectsAreTheTransactions: Bool
    var deletedSoFar: Set<ObjectID<MonItem>>
    var fetchOneID: ObjectID<MonItem>?
}

/// A random fetch over the monitor model: a rank bound, sometimes a flag,
/// an order, a limit and an offset.
private func randomQuery(_ random: inout SplitMix64) -> From<MonItem> {
    let bound = Int(random.next() % 100)
    var query = From<MonItem>().where(\.$rank < bound)
    if random.next() % 3 == 0 { query = query.where(\.$flag == true) }
    query = random.next() % 2 == 0
        ? query.orderBy(.ascending(\.$rank)) : query.orderBy(.descending(\.$label), .ascending(\.$group))
    let limit: Int? = random.next() % 3 == 0 ? Int(random.next() % 10) : nil
    let offset = random.next() % 3 == 0 ? Int(random.next() % 8) : 0
    return query.tweak {
        $0.fetchLimit = limit
        $0.fetchOffset = offset
    }
}

@MainActor
@Suite("Tweak.includesPendingChanges: a transaction's reads of the store as committed")
struct CommittedReadTests {
    /// In a transaction making random changes (flushed into its SQLite
    /// transaction by some reads, pending in its objects for others), a read
    /// with `includesPendingChanges = false` answers what the store held
    /// before the transaction, as the stack saw it: the same IDs, counts,
    /// existence and sums; `fetchAll` returns the transaction's own instances
    /// for the committed matches, less those it deleted, then the query's
    /// page (so `fetchOne` is the first match still alive). On the stack, which
    /// has nothing pending, the option changes nothing.
    @Test(arguments: StoreKind.allCases, [UInt64(0x1A0), 0x1A1, 0x1A2])
    func readsWithoutPendingChangesSeeTheStoreAsCommitted(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try MonWorkload.seed(stack, count: 40, random: &random)
        let queries = (0..<12).map { _ in randomQuery(&random).tweak { $0.includesPendingChanges = false } }
        let expected = try queries.map { query in
            let ids = try stack.fetchObjectIDs(query)
            #expect(try stack.fetchAll(query).map(\.objectID) == ids)
            #expect(try stack.fetchCount(query) == ids.count)
            let unpaged = try stack.fetchObjectIDs(query.tweak {
                $0.fetchLimit = nil
                $0.fetchOffset = 0
            })
            return (ids: ids, unpaged: unpaged, rankSum: try stack.queryValue(query.select(Int.self, .sum(\.$rank))))
        }
        let answers = try stack.perform(synchronous: { tx -> [CommittedAnswers] in
            var answers: [CommittedAnswers] = []
            // Every item the transaction has held, to tell which it deleted
            // (a cascade marks its items when it is applied).
            var seen: [ObjectID<MonItem>: MonItem] = [:]
            for query in queries {
                for item in try tx.fetchAll(From<MonItem>()) { seen[item.objectID] = item }
                try MonWorkload.change(tx, &random, operations: 3, cascades: random.next() % 4 == 0)
                // Half the time the changes are written into the SQLite
                // transaction before the read; otherwise they are only pending.
                if random.next() % 2 == 0 { _ = try tx.fetchCount(From<MonOwner>()) }
                let objects = try tx.fetchAll(query)
                let deleted = Set(seen.values.filter(\.isDeletedObject).map(\.objectID))
                answers.append(CommittedAnswers(
                    ids: try tx.fetchObjectIDs(query),
                    count: try tx.fetchCount(query),
                    exists: try tx.fetchExists(query),
                    rankSum: try tx.queryValue(query.select(Int.self, .sum(\.$rank))),
                    objectIDs: objects.map(\.objectID),
                    objectsAreTheTransactions: try objects.allSatisfy { try tx.fetchExisting($0.objectID) === $0 },
                    deletedSoFar: deleted,
                    fetchOneID: try tx.fetchOne(query)?.objectID))
            }
            return answers
        })
        for (number, (answer, expected)) in zip(answers, expected).enumerated() {
            let context = "\(kind), seed \(seed), query \(number)"
            #expect(answer.ids == expected.ids, "\(context)")
            #expect(answer.count == expected.ids.count, "\(context)")
            #expect(answer.exists == !expected.ids.isEmpty, "\(context)")
            #expect(answer.rankSum == expected.rankSum, "\(context)")
            // Objects: the committed matches less the deleted, then the page.
            let options = queries[number].options
            let alive = expected.unpaged.filter { !answer.deletedSoFar.contains($0) }.dropFirst(options.fetchOffset)
            let page = options.effectiveLimit.map { Array(alive.prefix($0)) } ?? Array(alive)
            #expect(answer.objectIDs == page, "\(context)")
            #expect(answer.objectsAreTheTransactions, "\(context)")
            #expect(answer.fetchOneID == alive.first, "\(context)")
        }
        // The changes were made and committed: reads with them included see them.
        #expect(try stack.fetchCount(From<MonItem>()) == stack.fetchAll(From<MonItem>()).count)
    }

    /// A committed read reflects what the store holds now, not what it held
    /// when first asked: in an unsafe transaction that commits and goes on,
    /// the next committed read sees that commit.
    @Test(arguments: StoreKind.allCases)
    func anUnsafeTransactionsCommittedReadsFollowItsCommits(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let committed = From<MonItem>().tweak { $0.includesPendingChanges = false }
        let tx = try stack.beginUnsafe()
        for round in 1...3 {
            for _ in 0..<round { tx.create(Into<MonItem>()).rank = round }
            let before = try tx.fetchCount(committed)
            #expect(try tx.fetchCount(From<MonItem>()) == before + round, "\(kind), round \(round)")
            try tx.commitAndWait()
            #expect(try tx.fetchCount(committed) == before + round, "\(kind), round \(round)")
        }
        #expect(try stack.fetchCount(From<MonItem>()) == 6)
    }
}
