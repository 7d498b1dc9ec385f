import Foundation
import Testing

@testable import Strata

/// The clauses of CoreStore's `ConvenienceTests`, with `%K` for the field
/// name: CoreStore writes `"%@ > %d"` with the name as the `%@` argument,
/// which in a Core Data predicate compares the name as a string constant;
/// what the test means is the field. Computed, not stored: a `Where` kept in
/// a static is reported as leaked by the leak checker (Docs/Architecture.md,
/// "Sanitizers").
private var convenienceWhere: Where<PortEntity> { Where("%K > %d", "testEntityID", 100) }
private var convenienceOrder: OrderBy<PortEntity> { OrderBy(.ascending("testString")) }

/// CoreStore's `ConvenienceTests`. Strata has no `NSFetchedResultsController`
/// (ComingFromCoreStore.md: `createFetchedResultsController` is "not in
/// Strata"): its place is taken by a sectioned `ListMonitor` on the stack,
/// made from the same clause list, and, on a transaction (where Strata has no
/// monitor: "`unsafeTransaction.monitorList(...)` ... not in Strata"), by a
/// fetch of that clause list. These ports check that each keeps every clause,
/// as CoreStore's check the controller's fetch request, and reads from the
/// right place: the main context, or the transaction.
@MainActor
@Suite("CoreStore port: ConvenienceTests")
struct CoreStoreConveniencePortTests {
    /// `test_ThatDataStacks_CanCreateFetchedResultsControllers`: the
    /// monitor's query keeps the section key, predicate, order and fetch
    /// limit it was given, and lists main-context objects.
    @Test(arguments: StoreKind.sqlite)
    func aStackMakesASectionedMonitorOfTheClausesGiven(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let monitor = try stack.monitorSectionedList(
            From<PortEntity>(), SectionBy<PortEntity>("testString"),
            convenienceWhere, convenienceOrder, Tweak { $0.fetchLimit = 10 })
        #expect(monitor.sectionBy?.sectionKeyPath == "testString")
        #expect(monitor.query.predicate == convenienceWhere)
        #expect(monitor.query.predicate == Where<PortEntity>(\.$testEntityID > 100))
        #expect(monitor.query.order == convenienceOrder)
        #expect(monitor.query.options.fetchLimit == 10)
        #expect(monitor.query.configurations == nil)

        let objects = monitor.objectsInAllSections()
        #expect(objects.map(\.testEntityID) == [101, 102, 103, 104, 105])
        #expect(monitor.sectionNames() == (1...5).map { "nil:TestEntity1:\($0)" })
        for object in objects {
            #expect(try stack.fetchExisting(object) === object, "the main context's object")
        }
    }

    /// `test_ThatUnsafeDataTransactions_CanCreateFetchedResultsControllers`:
    /// the same clause list fetched in an unsafe transaction gives the
    /// transaction's own objects, its pending ones included, in the order and
    /// up to the limit the clauses say: what the chained query gives.
    @Test(arguments: StoreKind.sqlite)
    func anUnsafeTransactionFetchesTheClausesGiven(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory)
        let tx = try stack.beginUnsafe()
        for number in 6...16 {
            let object = tx.create(Into<PortEntity>())
            object.testEntityID = 100 + number
            portFill(object, number: number)
        }
        let listed = try tx.fetchAll(From<PortEntity>(), convenienceWhere, convenienceOrder, Tweak { $0.fetchLimit = 10 })
        let chained = try tx.fetchAll(
            From<PortEntity>().where(convenienceWhere).orderBy(convenienceOrder).tweak { $0.fetchLimit = 10 })
        #expect(listed.count == 10)
        #expect(listed.map(ObjectIdentifier.init) == chained.map(ObjectIdentifier.init))
        let expected = (1...16).map { "nil:TestEntity1:\($0)" }.sorted().prefix(10)
        #expect(listed.map(\.testString) == Array(expected))
        for object in listed {
            #expect(tx.edit(object) === object, "the transaction's own object")
        }
        tx.rollback()
    }
}
