import Foundation
@testable import Strata
import Testing

// V1 → V2 adds a field to Gauge; a custom step writes its values through
// DestinationObject, whose subscript takes any StoredValue.

private final class GaugeV1: ManagedObject {
    @Field.Stored("level") var level: Double = 0
    @Field.Stored("peak") var peak: Double? = nil
}

private final class GaugeV2: ManagedObject {
    @Field.Stored("level") var level: Double = -1
    @Field.Stored("peak") var peak: Double? = nil
    @Field.Stored("unit") var unit: String = "m"
}

private let gaugeV1 = Schema("V1", entities: [Entity<GaugeV1>("Gauge")])
private let gaugeV2 = Schema("V2", entities: [Entity<GaugeV2>("Gauge")])

/// The history whose V1 → V2 step sets `value` in `field` of the gauge with
/// row ID `rowID`, and doubles every other gauge's level.
private func history(
    setting value: StoredValue, in field: String, ofRow rowID: Int64
) -> SchemaHistory {
    let transform = CustomEntityMapping.transformEntity(
        source: "Gauge", destination: "Gauge"
    ) { source, createDestination in
        let destination = createDestination()
        if source.rowID == rowID {
            destination[field] = value
        } else {
            try destination.setValue(try source.value("level", as: Double.self) * 2, for: "level")
        }
    }
    return SchemaHistory(
        [gaugeV1, gaugeV2], chain: ["V1", "V2"],
        mappingProviders: [
            CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [transform]),
        ])
}

@Suite("Values a custom migration step writes")
@MainActor
struct DestinationObjectTests {
    /// Law: a value set through the subscript is carried as it is, or the
    /// step fails with `.migrationFailed` naming the field and leaves the
    /// store as it was; a NaN, which SQLite stores as NULL, is never carried.
    @Test(arguments: migratingKinds)
    func aNaNSetThroughTheSubscriptFailsTheStepAndLeavesTheStoreWhole(
        kind: StoreKind
    ) async throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let count = 20
        let levels = (0..<count).map { _ in Double(random.next() % 1_000) / 8 }
        for _ in 0..<3 {
            let directory = TemporaryDirectory()
            var rowIDs: [Int64] = []
            do {
                let stack = DataStack(gaugeV1)
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
                rowIDs = try stack.perform(synchronous: { tx in
                    levels.map { level in
                        let gauge = tx.create(Into<GaugeV1>())
                        gauge.level = level
                        return gauge
                    }
                }).map(\.objectID.rowID)
            }
            try await settleStore(kind, in: directory)
            let before = try storeContents(kind, in: directory)
            let target = rowIDs[Int(random.next() % UInt64(count))]
            let field = random.next() % 2 == 0 ? "level" : "peak"
            let nan = Double(bitPattern: random.next() | 0x7FF0_0000_0000_0001)
            let stack = DataStack(
                schemaHistory: history(setting: .real(nan), in: field, ofRow: target))
            let error = #expect(throws: StrataError.self, "seed \(seed)") {
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
            }
            if case let .migrationFailed(from, to, entity, failedField, reason)? = error {
                #expect(from == "V1" && to == "V2" && entity == "Gauge", "seed \(seed)")
                #expect(failedField == field && reason.contains("NaN"), "seed \(seed): \(reason)")
            } else {
                Issue.record(
                    "seed \(seed): expected .migrationFailed, got \(String(describing: error))")
            }
            let after = try storeContents(kind, in: directory)
            #expect(after == before, "seed \(seed): the store is whole")
        }
    }

    @Test(arguments: migratingKinds)
    func valuesSetThroughTheSubscriptAreCarriedAsTheyAre(kind: StoreKind) async throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let directory = TemporaryDirectory()
        let stack = DataStack(gaugeV1)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let rowIDs = try stack.perform(synchronous: { tx in
            (0..<10).map { index in
                let gauge = tx.create(Into<GaugeV1>())
                gauge.level = Double(index)
                return gauge.objectID.rowID
            }
        })
        try stack.removeStorage()
        let target = rowIDs[Int(random.next() % 10)]
        let peak = [Double.infinity, -.infinity, -0.0, 1e300][Int(random.next() % 4)]
        let migrated = DataStack(
            schemaHistory: history(setting: .real(peak), in: "peak", ofRow: target))
        try migrated.addStorageAndWait(makeStorage(kind, in: directory))
        for gauge in try migrated.fetchAll(From<GaugeV2>()) {
            if gauge.objectID.rowID == target {
                #expect(gauge.peak?.bitPattern == peak.bitPattern, "seed \(seed)")
                #expect(gauge.level == Double(rowIDs.firstIndex(of: target)!), "seed \(seed)")
            } else {
                #expect(gauge.peak == nil, "seed \(seed)")
                #expect(gauge.level == Double(rowIDs.firstIndex(of: gauge.objectID.rowID)!) * 2)
            }
        }
    }
}
