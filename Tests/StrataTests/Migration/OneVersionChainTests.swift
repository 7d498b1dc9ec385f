import Foundation
@testable import Strata
import Testing

/// A one-version chain (`"V1"`) makes that version current and takes no
/// progressive path, as CoreStore's: a store of another version migrates
/// straight to it, in one step, or is refused.
@Suite("One-version migration chain")
@MainActor
struct OneVersionChainTests {
    /// Writes a store of `schema` with what `fill` creates, and lets it settle.
    private func makeStore(
        _ kind: StoreKind, in directory: TemporaryDirectory, schema: Schema,
        fill: (SynchronousDataTransaction) -> Void
    ) async throws {
        do {
            let stack = DataStack(schema)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in fill(tx) })
        }
        try await settleStore(kind, in: directory)
    }

    @Test(arguments: migratingKinds)
    func storeOfTheSoleVersionOpensWithoutMigrating(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        try await makeStore(kind, in: directory, schema: schemaV1) { tx in
            tx.create(Into<PersonV1>()).name = "Ann"
        }
        let stack = DataStack(schemaHistory: SchemaHistory([schemaV1, schemaV2], chain: "V1"))
        #expect(stack.modelVersion == "V1")
        #expect(try stack.requiredMigrations(for: makeStorage(kind, in: directory)).isEmpty)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(stack.migrationsRun.withLock { $0 }.isEmpty)
        #expect(try stack.fetchAll(From<PersonV1>()).map(\.name) == ["Ann"])
    }

    @Test(arguments: migratingKinds)
    func olderStoreMigratesStraightToTheSoleVersion(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        try await makeStore(kind, in: directory, schema: schemaV1) { tx in
            tx.create(Into<PersonV1>()).name = "Ann"
        }
        let stack = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2, schemaV3], chain: "V3"))
        let forecast = try stack.requiredMigrations(for: makeStorage(kind, in: directory))
        #expect(forecast.map(\.description) == ["V1 → V3"], "one step, not V1 → V2 → V3")
        try stack.addStorageAndWait(
            makeStorage(kind, in: directory, options: .preventProgressiveMigration))
        #expect(stack.migrationsRun.withLock { $0 } == forecast)
        #expect(try stack.fetchAll(From<PersonV3>()).map(\.fullName) == ["Ann"])
    }

    /// V2 → V1 would turn `score` from REAL back to INTEGER, which inference
    /// refuses: the V2 store is refused with a typed error and left as it was.
    @Test(arguments: migratingKinds)
    func newerStoreIsRefusedAndLeftAsItWas(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        try await makeStore(kind, in: directory, schema: schemaV2) { tx in
            tx.create(Into<PersonV2>()).fullName = "Ann"
        }
        let before = try storeContents(kind, in: directory)
        let stack = DataStack(schemaHistory: SchemaHistory([schemaV1, schemaV2], chain: "V1"))
        let refused: (any Error) -> Bool = { error in
            if case StrataError.migrationFailed("V2", "V1", "Person", "score", _) = error {
                true
            } else {
                false
            }
        }
        #expect(performing: { try stack.requiredMigrations(for: makeStorage(kind, in: directory)) },
                throws: refused)
        #expect(performing: { try stack.addStorageAndWait(makeStorage(kind, in: directory)) },
                throws: refused)
        #expect(!stack.hasStore)
        #expect(try storeContents(kind, in: directory) == before)
    }
}
