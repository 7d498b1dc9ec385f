import Foundation
import Testing

@testable import Strata

/// CoreStore's transaction fetch tests read committed rows only; its
/// transactions' fetches include pending changes too (Core Data's
/// `includesPendingChanges`). Here the same fetches run after random pending
/// inserts, updates and deletes in several stores at once: with pending
/// changes included they answer as the model with the changes does, with
/// `includesPendingChanges = false` as the committed model does, and after
/// the commit (or the cancel) the stack answers as the model it chose.
@MainActor
@Suite("CoreStore port: a transaction's fetches over pending changes in several stores")
struct CoreStoreFetchPortPendingTests {
    nonisolated static let stores: [String?] = [nil, "Config1", "Config2"]

    /// The case the random test found: over several stores, a read without
    /// pending changes sorts by the values the store holds, not by those
    /// the transaction set, and its IDs and count include the objects the
    /// transaction deleted, which its objects leave out; as over one store.
    @Test(arguments: StoreKind.sqlite)
    func aCommittedReadOfSeveralStoresSortsByCommittedValues(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack(Self.stores, kind, in: directory)
        try FetchPort.seed(stack, FetchPort.seedRows(Self.stores))
        let seen = try stack.perform(synchronous: { tx in
            // Numbers 1...5 in both stores: the default store's 1 now sorts last.
            let one = Where<FetchPortEntity1>("testNumber == 1")
            let first = try #require(try tx.fetchOne(From<FetchPortEntity1>(nil), one))
            first.testNumber = 9
            let second = try #require(try tx.fetchOne(From<FetchPortEntity1>("Config1"), one))
            tx.delete(second)
            let committed = From<FetchPortEntity1>()
                .orderBy(.ascending(\.$testNumber), .ascending(\.$testEntityID))
                .tweak {
                    $0.includesPendingChanges = false; $0.fetchLimit = 3
                }
            let current = committed.tweak { $0.includesPendingChanges = true }
            return (
                objects: try tx.fetchAll(committed).map(\.testEntityID),
                ids: try tx.fetchObjectIDs(committed).map(\.configuration),
                count: try tx.fetchCount(committed),
                one: try tx.fetchOne(committed)?.testEntityID,
                now: try tx.fetchAll(current).map(\.testEntityID)
            )
        })
        #expect(seen.objects == [101, 102, 202], "committed order, the deleted 201 left out")
        #expect(seen.ids == [nil, "Config1", nil], "101, 201 and 102: the store's IDs")
        #expect(seen.count == 3)
        #expect(seen.one == 101, "101 held 1 when the transaction began")
        #expect(seen.now == [102, 202, 103], "with pending changes: 101 is 9, 201 is gone")
    }

    /// The same through a to-one relationship: the sort key is the related
    /// object's value as committed, reached through the link as committed.
    @Test(arguments: StoreKind.sqlite)
    func aCommittedReadOfSeveralStoresSortsThroughCommittedLinks(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        for (configuration, rank, name) in [(nil, 1, "a"), ("Config1", 2, "b")]
            as [(String?, Int, String)]
        {
            try stack.perform(synchronous: { tx in
                let item = tx.create(Into<CfgItem>(configuration))
                (item.key, item.rank) = (rank, rank)
                let tag = tx.create(Into<CfgTag>(configuration))
                (tag.name, tag.item) = (name, item)
            })
        }
        let names = try stack.perform(synchronous: { tx in
            let items = try tx.fetchAll(From<CfgItem>().orderBy(.ascending(\.$key)))
            items[0].rank = 5  // "a" now sorts after "b"
            let spare = tx.create(Into<CfgItem>("Config1"))
            (spare.key, spare.rank) = (3, 0)
            let tagB = try #require(try tx.fetchOne(From<CfgTag>("Config1")))
            tagB.item = spare  // and "b" links to an item of rank 0
            let byRank = From<CfgTag>().orderBy(.descending(\.$item ~ \.$rank))
            return (
                committed: try tx.fetchAll(byRank.tweak { $0.includesPendingChanges = false }).map(
                    \.name),
                current: try tx.fetchAll(byRank).map(\.name)
            )
        })
        #expect(names.committed == ["b", "a"], "ranks 2 and 1, as committed")
        #expect(names.current == ["a", "b"], "ranks 5 and 0, as the transaction set them")
    }

    @Test(arguments: StoreKind.sqlite, [UInt64(0xF7C1), 0xF7C2, 0xF7C3, 0xF7C4, 0xF7C5, 0xF7C6])
    func fetchesSeePendingChangesUnlessTweakedNotTo(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack(Self.stores, kind, in: directory)
        let committed = FetchPort.seedRows(Self.stores)
        try FetchPort.seed(stack, committed)
        let keep = random.next() % 2 == 0
        var pending = committed
        let outcome = Result { () throws(StrataError) in
            try stack.perform(synchronous: { tx in
                for round in 0..<3 {
                    try Self.changeRandomly(tx, &pending, &random, round: round)
                    for number in 0..<25 {
                        let context = "seed \(seed), round \(round), query \(number)"
                        try Self.checkRandomQuery(
                            tx, pending: pending, committed: committed, &random, context)
                    }
                }
                if !keep { try tx.cancel() }
            })
        }
        if keep {
            #expect(throws: Never.self, "seed \(seed)") { try outcome.get() }
        } else {
            #expect(throws: StrataError.userCancelled, "seed \(seed)") { try outcome.get() }
        }
        let final = keep ? pending : committed
        for number in 0..<25 {
            let context = "seed \(seed), after the \(keep ? "commit" : "cancel"), query \(number)"
            try Self.checkRandomQuery(stack, pending: final, committed: final, &random, context)
        }
    }

    /// Inserts into a random store holding the entity, updates the number of
    /// some rows (and so where they sort and whether they match), deletes others.
    private static func changeRandomly(
        _ tx: BaseDataTransaction, _ rows: inout [FetchPortRow], _ random: inout SplitMix64,
        round: Int
    ) throws {
        var kept: [FetchPortRow] = []
        for var row in rows {
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                if row.entity == 1 {
                    let object: FetchPortEntity1 = try #require(
                        try find(tx, FetchPortEntity1.self, row))
                    tx.delete(object)
                } else {
                    let object: FetchPortEntity2 = try #require(
                        try find(tx, FetchPortEntity2.self, row))
                    tx.delete(object)
                }
                continue
            case 1, 2:
                row.number = Int.random(in: 0...7, using: &random)
                if row.entity == 1 {
                    row.write(to: try #require(try find(tx, FetchPortEntity1.self, row)))
                } else {
                    row.write(to: try #require(try find(tx, FetchPortEntity2.self, row)))
                }
            default: break
            }
            kept.append(row)
        }
        for index in 0..<Int.random(in: 0...4, using: &random) {
            let entity = Int.random(in: 1...2, using: &random)
            let configuration = stores.filter { FetchPort.holds($0, entity: entity) }.randomElement(
                using: &random)!
            let row = FetchPortRow(
                entity: entity, configuration: configuration, id: 1000 + round * 10 + index,
                number: Int.random(in: 0...7, using: &random), string: "new \(round).\(index)")
            if entity == 1 {
                row.write(to: tx.create(Into<FetchPortEntity1>(configuration)))
            } else {
                row.write(to: tx.create(Into<FetchPortEntity2>(configuration)))
            }
            kept.append(row)
        }
        rows = kept
    }

    /// The transaction's object of `row`, found by its store and ID.
    private static func find<Object: ManagedObject & FetchPortRecord>(
        _ tx: BaseDataTransaction, _ type: Object.Type, _ row: FetchPortRow
    ) throws -> Object? {
        try tx.fetchOne(
            From<Object>([row.configuration]), Where<Object>("%K == %@", "testEntityID", row.id))
    }

    /// One random query, checked with pending changes (against `pending`)
    /// and without (against `committed`).
    private static func checkRandomQuery(
        _ source: some FetchableSource, pending: [FetchPortRow], committed: [FetchPortRow],
        _ random: inout SplitMix64, _ context: String
    ) throws {
        var clauses = FetchPortClauses(
            isGreater: Bool.random(using: &random), bound: Int.random(in: 0...7, using: &random),
            ascending: Bool.random(using: &random),
            limit: [nil, 1, 2, 5].randomElement(using: &random)!)
        clauses.offset = [0, 0, 1, 3].randomElement(using: &random)!
        clauses.byNumber = Bool.random(using: &random)
        let configurations = FetchPort.fromConfigurations.randomElement(using: &random)!
        let skipPending = Bool.random(using: &random)
        let place = "\(context): From(\(String(describing: configurations))), \(clauses)"
        if Bool.random(using: &random) {
            let from = configurations.map { From<FetchPortEntity1>($0) } ?? From<FetchPortEntity1>()
            try check(
                source, from, clauses, pending: pending, committed: committed, skipPending,
                "\(place), E1")
        } else {
            let from = configurations.map { From<FetchPortEntity2>($0) } ?? From<FetchPortEntity2>()
            try check(
                source, from, clauses, pending: pending, committed: committed, skipPending,
                "\(place), E2")
        }
    }

    /// Without pending changes, IDs and counts are the store's as
    /// committed, and fetched objects are the transaction's own for those
    /// IDs, less the ones it deleted, left out before the offset and limit
    /// apply (Docs/Transactions.md, "Reading the store as committed").
    private static func check<Object: ManagedObject & FetchPortRecord>(
        _ source: some FetchableSource, _ from: From<Object>, _ clauses: FetchPortClauses,
        pending: [FetchPortRow], committed: [FetchPortRow], _ skipPending: Bool, _ context: String
    ) throws {
        var list = clauses.clauses(Object.self)
        if skipPending { list.append(Tweak { $0.includesPendingChanges = false }) }
        let live = Set(pending.map { "\($0.entity)/\($0.id)" })
        let expectation = { (rows: [FetchPortRow]) in
            FetchPortExpectation.of(
                entity: Object.entityNumber, configurations: from.configurations, clauses: clauses,
                stores: stores, rows: rows)
        }
        let forIDs = expectation(skipPending ? committed : pending)
        let kept = committed.filter { live.contains("\($0.entity)/\($0.id)") }
        let forObjects = expectation(skipPending ? kept : pending)
        let place = "\(context)\(skipPending ? ", without pending changes" : "")"
        switch (forIDs, forObjects) {
        case (.rows(_, let limitedIDs), .rows(let all, let limited)):
            let objects = try source.fetchAll(from, list)
            #expect(objects.map(\.testEntityID) == limited.map(\.id), "\(place): fetchAll")
            let current = Dictionary(
                uniqueKeysWithValues: pending.map { ("\($0.entity)/\($0.id)", $0.number) })
            #expect(
                objects.map(\.testNumber) == limited.map { current["\($0.entity)/\($0.id)"] },
                "\(place): fetched objects hold the transaction's values")
            #expect(
                try source.fetchOne(from, list)?.testEntityID == all.first?.id, "\(place): fetchOne"
            )
            let ids = try source.fetchObjectIDs(from, list)
            #expect(ids.count == limitedIDs.count, "\(place): fetchObjectIDs")
            #expect(
                ids.map(\.configuration) == limitedIDs.map(\.configuration),
                "\(place): fetchObjectIDs' stores")
            if !skipPending {
                #expect(ids == objects.map { $0.objectID }, "\(place): fetchObjectIDs")
            }
            #expect(try source.fetchObjectID(from, list) == ids.first, "\(place): fetchObjectID")
            #expect(try source.fetchCount(from, list) == limitedIDs.count, "\(place): fetchCount")
            #expect(
                try source.fetchExists(from.appending(contentsOf: list)) == !limitedIDs.isEmpty,
                "\(place): fetchExists")
        case (.refused(let error), _):
            #expect(throws: error, "\(place): fetchAll") { try source.fetchAll(from, list) }
            #expect(throws: error, "\(place): fetchCount") { try source.fetchCount(from, list) }
        default:
            Issue.record("\(place): the model refuses one fetch but not the other")
        }
    }
}
