import Foundation
import Testing

@testable import Strata

/// What one fetch of the model must give: the matching rows (all of them,
/// and those left after the limit), or the error of a `From` whose stores
/// hold none of the entity.
enum FetchPortExpectation {
    case rows(all: [FetchPortRow], limited: [FetchPortRow])
    case refused(StrataError)

    /// The expectation for a `From<entity>(configurations)` with `clauses`
    /// over a stack with stores of `stores` holding `rows`.
    static func of(
        entity: Int, configurations: [String?]?, clauses: FetchPortClauses,
        stores: [String?], rows: [FetchPortRow]
    ) -> FetchPortExpectation {
        let read = stores.filter { store in
            FetchPort.holds(store, entity: entity) && (configurations?.contains(store) ?? true)
        }
        guard !read.isEmpty else {
            // The first configuration named is the one the error names.
            let named = configurations?.first ?? nil
            return .refused(
                .storeNotFound(entity: "FetchPortEntity\(entity)", configuration: named))
        }
        let (all, limited) = clauses.matches(
            rows.filter { $0.entity == entity && read.contains($0.configuration) })
        return .rows(all: all, limited: limited)
    }
}

/// CoreStore's `FetchTests`, ported: `fetchOne`, `fetchObjectID`, `fetchAll`,
/// `fetchObjectIDs` and `fetchCount` with its `From`, `Where`, `OrderBy` and
/// `Tweak` clause lists, on the stack and in transactions, over a stack of
/// the default store only and over one of three stores. Where CoreStore
/// leaves a fetch over several stores "ambiguous", Strata's order is total
/// (the sort key, then the row ID), so every answer is checked against the
/// model of the seeded rows.
@MainActor
@Suite("CoreStore port: fetching with clause lists, from stacks and transactions")
struct CoreStoreFetchPortTests {
    /// The stores of CoreStore's "default configuration" and "single /
    /// multiple configurations" stacks.
    nonisolated static let stacks: [[String?]] = [[nil], [nil, "Config1", "Config2"]]

    @Test(arguments: StoreKind.allCases, stacks)
    func everyFetchOfTheStackGivesWhatTheModelSays(_ kind: StoreKind, stores: [String?]) throws {
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack(stores, kind, in: directory)
        let rows = FetchPort.seedRows(stores)
        try FetchPort.seed(stack, rows)
        try checkEveryFetch(stack, stores: stores, rows: rows, "\(kind), stores \(stores), stack")
    }

    /// The same fetches in a synchronous transaction, which CoreStore then
    /// cancels: the cancel throws `userCancelled` and leaves the stack as it was.
    @Test(arguments: StoreKind.allCases, stacks)
    func everyFetchOfASynchronousTransactionGivesWhatTheModelSays(
        _ kind: StoreKind, stores: [String?]
    ) throws {
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack(stores, kind, in: directory)
        let rows = FetchPort.seedRows(stores)
        try FetchPort.seed(stack, rows)
        #expect(throws: StrataError.userCancelled) {
            try stack.perform(synchronous: { tx in
                try checkEveryFetch(
                    tx, stores: stores, rows: rows, "\(kind), stores \(stores), transaction")
                try tx.cancel()
            })
        }
        try checkEveryFetch(
            stack, stores: stores, rows: rows, "\(kind), stores \(stores), after the cancel")
    }

    @Test(arguments: StoreKind.sqlite, stacks)
    func everyFetchOfAnUnsafeTransactionGivesWhatTheModelSays(_ kind: StoreKind, stores: [String?])
        throws
    {
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack(stores, kind, in: directory)
        let rows = FetchPort.seedRows(stores)
        try FetchPort.seed(stack, rows)
        let unsafe = try stack.beginUnsafe()
        try checkEveryFetch(unsafe, stores: stores, rows: rows, "\(kind), stores \(stores), unsafe")
        unsafe.rollback()
    }

    /// Every `From` of the tests, for each entity, with each of CoreStore's clause lists.
    private func checkEveryFetch(
        _ source: some FetchableSource, stores: [String?], rows: [FetchPortRow], _ context: String
    ) throws {
        for configurations in FetchPort.fromConfigurations {
            for clauses in FetchPortClauses.coreStore {
                let from1 =
                    configurations.map { From<FetchPortEntity1>($0) } ?? From<FetchPortEntity1>()
                let from2 =
                    configurations.map { From<FetchPortEntity2>($0) } ?? From<FetchPortEntity2>()
                let place = "\(context), From(\(configurations.map { "\($0)" } ?? "")), \(clauses)"
                try check(source, from1, clauses, stores: stores, rows: rows, "\(place), entity 1")
                try check(source, from2, clauses, stores: stores, rows: rows, "\(place), entity 2")
            }
        }
    }

    private func check<Object: ManagedObject & FetchPortRecord>(
        _ source: some FetchableSource, _ from: From<Object>, _ clauses: FetchPortClauses,
        stores: [String?], rows: [FetchPortRow], _ context: String
    ) throws {
        let list = clauses.clauses(Object.self)
        let expectation = FetchPortExpectation.of(
            entity: Object.entityNumber, configurations: from.configurations, clauses: clauses,
            stores: stores, rows: rows)
        switch expectation {
        case .refused(let error):
            #expect(throws: error, "\(context): fetchOne") { try source.fetchOne(from, list) }
            #expect(throws: error, "\(context): fetchObjectID") {
                try source.fetchObjectID(from, list)
            }
            #expect(throws: error, "\(context): fetchAll") { try source.fetchAll(from, list) }
            #expect(throws: error, "\(context): fetchObjectIDs") {
                try source.fetchObjectIDs(from, list)
            }
            #expect(throws: error, "\(context): fetchCount") { try source.fetchCount(from, list) }
        case .rows(let all, let limited):
            let one = try source.fetchOne(from, list)
            #expect(one?.testString == all.first?.string, "\(context): fetchOne")
            #expect(one?.testEntityID == all.first?.id, "\(context): fetchOne")
            #expect(
                one?.objectID.configuration == all.first?.configuration,
                "\(context): fetchOne's store")
            #expect(
                try source.fetchObjectID(from, list) == one?.objectID, "\(context): fetchObjectID")
            let objects = try source.fetchAll(from, list)
            #expect(objects.map(\.testString) == limited.map(\.string), "\(context): fetchAll")
            #expect(objects.map(\.testBoolean) == limited.map(\.boolean), "\(context): fetchAll")
            #expect(
                objects.map { $0.objectID.configuration } == limited.map(\.configuration),
                "\(context): stores")
            #expect(
                try source.fetchObjectIDs(from, list) == objects.map { $0.objectID },
                "\(context): fetchObjectIDs")
            // A count honours the limit, as Core Data's count of a request with a fetchLimit does.
            #expect(try source.fetchCount(from, list) == limited.count, "\(context): fetchCount")
        }
    }
}
