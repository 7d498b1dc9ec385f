import Foundation
import Testing

@testable import Strata

/// CoreStore's `FromTests`, ported. CoreStore checks which persistent stores
/// a `From` puts in a fetch request's `affectedStores`; Strata has no fetch
/// request, so the same question is asked of what the fetches return: every
/// store seeded with five objects of each entity it holds, the stores a
/// `From` reads are those its objects come from. A `From` whose
/// configurations hold no store of the entity throws `storeNotFound`
/// (CoreStore's `persistentStoreNotFound`).
@MainActor
@Suite("CoreStore port: From names configurations and reads their stores")
struct CoreStoreFromPortTests {
    /// The stacks of CoreStore's four `FromTests`: the default store only,
    /// "Config1" only, both, and "Config1" with "Config2" (no default store).
    nonisolated static let stacks: [[String?]] = [
        [nil], ["Config1"], [nil, "Config1"], ["Config1", "Config2"],
    ]

    /// `test_ThatFromClauses_ConfigureCorrectly`: no configurations named is
    /// `nil` (every store that holds the entity), else those named, in order.
    @Test func fromKeepsTheConfigurationsItNames() {
        #expect(From<ManagedObject>().configurations == nil)
        #expect(From<FetchPortEntity1>().configurations == nil)
        #expect(From<FetchPortEntity1>("Config1").configurations == ["Config1"])
        #expect(From<FetchPortEntity1>(nil).configurations == [nil])
        #expect(From<FetchPortEntity1>(nil, "Config1").configurations == [nil, "Config1"])
        #expect(From<FetchPortEntity1>("Config1", nil).configurations == ["Config1", nil])
        #expect(From<FetchPortEntity1>([nil, "Config2"]).configurations == [nil, "Config2"])
        // The chain keeps them.
        let chained = From<FetchPortEntity1>("Config2").where(\.$testNumber > 1).orderBy(
            .ascending(\.$testEntityID))
        #expect(chained.configurations == ["Config2"])
        #expect(
            From<FetchPortEntity1>("Config1").tweak { $0.fetchLimit = 1 }.configurations == [
                "Config1"
            ])
    }

    /// The `ApplyToFetchRequestsCorrectly...` tests: for each stack, entity
    /// and `From`, the stores read are the stack's stores of the named
    /// configurations (all, when none is named) that hold the entity.
    @Test(arguments: StoreKind.allCases, stacks)
    func aFromReadsTheNamedStoresThatHoldItsEntity(_ kind: StoreKind, stores: [String?]) throws {
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack(stores, kind, in: directory)
        try FetchPort.seed(stack, FetchPort.seedRows(stores))
        for configurations in FetchPort.fromConfigurations {
            let context = "\(kind), stores \(stores), From(\(String(describing: configurations)))"
            try checkStoresRead(
                stack, FetchPortEntity1.self, configurations, stores: stores, "\(context), E1")
            try checkStoresRead(
                stack, FetchPortEntity2.self, configurations, stores: stores, "\(context), E2")
        }
        // A transaction routes its reads the same way.
        try stack.perform(synchronous: { tx in
            for configurations in FetchPort.fromConfigurations {
                let context =
                    "\(kind), stores \(stores), From(\(String(describing: configurations))), transaction"
                try checkStoresRead(
                    tx, FetchPortEntity1.self, configurations, stores: stores, "\(context), E1")
                try checkStoresRead(
                    tx, FetchPortEntity2.self, configurations, stores: stores, "\(context), E2")
            }
        })
    }

    /// What must read one store (a monitor, a `Select` query) reads the one
    /// the `From` leaves, and is refused when it leaves several: a Strata
    /// monitor follows one store (Docs/ComingFromCoreStore.md, "Several
    /// stores"), where a CoreStore list monitor's fetch request reads all
    /// its affected stores.
    @Test(arguments: StoreKind.sqlite, stacks)
    func whatReadsOneStoreReadsTheOneTheFromLeaves(_ kind: StoreKind, stores: [String?]) throws {
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack(stores, kind, in: directory)
        try FetchPort.seed(stack, FetchPort.seedRows(stores))
        for configurations in FetchPort.fromConfigurations {
            let from = configurations.map { From<FetchPortEntity1>($0) } ?? From<FetchPortEntity1>()
            let read = Self.storesRead(entity: 1, configurations, stores: stores)
            let context = "stores \(stores), From(\(String(describing: configurations)))"
            switch read.count {
            case 0:
                let error = StrataError.storeNotFound(
                    entity: "FetchPortEntity1", configuration: configurations?.first ?? nil)
                #expect(throws: error, "\(context): monitor") { try stack.monitorList(from) }
                #expect(throws: error, "\(context): query") {
                    try stack.queryValue(from.select(Int.self, .count()))
                }
            case 1:
                let monitor = try stack.monitorList(from.orderBy(.ascending(\.$testEntityID)))
                #expect(
                    monitor.objectsInAllSections().map { $0.objectID.configuration }
                        == Array(repeating: read[0], count: 5),
                    "\(context): monitor")
                #expect(
                    try stack.queryValue(from.select(Int.self, .count())) == 5, "\(context): query")
            default:
                let error = #expect(throws: StrataError.self, "\(context): monitor") {
                    try stack.monitorList(from)
                }
                guard case .invalidValue(let entity, let field, _)? = error else {
                    Issue.record(
                        "\(context): expected invalidValue, got \(String(describing: error))")
                    continue
                }
                #expect(entity == "FetchPortEntity1" && field == "configuration", "\(context)")
            }
        }
    }

    /// The configurations of `stores` a `From` naming `configurations` reads
    /// for entity `entity`, in the stack's order.
    static func storesRead(entity: Int, _ configurations: [String?]?, stores: [String?])
        -> [String?]
    {
        stores.filter {
            FetchPort.holds($0, entity: entity) && (configurations?.contains($0) ?? true)
        }
    }

    private func checkStoresRead<Object: ManagedObject & FetchPortRecord>(
        _ source: some FetchableSource, _ type: Object.Type, _ configurations: [String?]?,
        stores: [String?], _ context: String
    ) throws {
        let from = configurations.map { From<Object>($0) } ?? From<Object>()
        let read = Self.storesRead(entity: Object.entityNumber, configurations, stores: stores)
        guard !read.isEmpty else {
            let error = StrataError.storeNotFound(
                entity: "FetchPortEntity\(Object.entityNumber)",
                configuration: configurations?.first ?? nil)
            #expect(throws: error, "\(context): fetchAll") { try source.fetchAll(from) }
            #expect(throws: error, "\(context): fetchOne") { try source.fetchOne(from) }
            #expect(throws: error, "\(context): fetchExists") { try source.fetchExists(from) }
            return
        }
        // No order: store after store, in the stack's order, five objects each.
        let expected = read.flatMap { Array(repeating: $0, count: 5) }
        #expect(try source.fetchObjectIDs(from).map(\.configuration) == expected, "\(context): IDs")
        let objects = try source.fetchAll(from)
        #expect(objects.map { $0.objectID.configuration } == expected, "\(context): objects")
        // Each object holds the values its own store gave it.
        let position = { (configuration: String?) in stores.firstIndex(of: configuration)! + 1 }
        #expect(
            objects.allSatisfy {
                $0.testEntityID / (100 * Object.entityNumber) == position($0.objectID.configuration)
            },
            "\(context): values")
        #expect(try source.fetchCount(from) == expected.count, "\(context): count")
    }
}
