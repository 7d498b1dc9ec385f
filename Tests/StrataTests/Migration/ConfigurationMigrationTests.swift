import Foundation
@testable import Strata
import Testing

// V1 → V2 of a schema with a "Cache" configuration: Person (default store
// only) gets fullName from first and last by a custom transformer; Thumbnail
// (also in "Cache") gains a height, so both stores need the step.

final class ConfigPersonV1: ManagedObject {
    @Field.Stored("first") var first: String = ""
    @Field.Stored("last") var last: String = ""
}

final class ConfigThumbnailV1: ManagedObject {
    @Field.Stored("width") var width: Int = 0
}

final class ConfigPersonV2: ManagedObject {
    @Field.Stored("fullName") var fullName: String = ""
}

final class ConfigThumbnailV2: ManagedObject {
    @Field.Stored("width") var width: Int = 0
    @Field.Stored("height") var height: Int = 5
}

private let configV1 = Schema("V1", entities: [
    Entity<ConfigPersonV1>("Person"), Entity<ConfigThumbnailV1>("Thumbnail", configurations: ["Cache"]),
])
private let configV2 = Schema("V2", entities: [
    Entity<ConfigPersonV2>("Person"), Entity<ConfigThumbnailV2>("Thumbnail", configurations: ["Cache"]),
])

/// Person's custom step: fullName is first and last joined.
private let joiningNames = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
    .transformEntity(source: "Person", destination: "Person") { source, createDestination in
        try createDestination().setValue(
            source.value("first", as: String.self) + " " + source.value("last", as: String.self),
            for: "fullName")
    },
])

@Suite("Migrating the stores of configurations")
@MainActor
struct ConfigurationMigrationTests {
    /// Writes the V1 default store (Ann Lee, a thumbnail 10 wide) and the V1
    /// "Cache" store (a thumbnail 20 wide) in `directory`.
    private func writeV1Stores(_ kind: StoreKind, in directory: TemporaryDirectory) throws {
        let stack = DataStack(configV1)
        try stack.addStorageAndWait(configurationStorage(nil, kind, in: directory))
        try stack.addStorageAndWait(configurationStorage("Cache", kind, in: directory))
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<ConfigPersonV1>())
            ann.first = "Ann"
            ann.last = "Lee"
            tx.create(Into<ConfigThumbnailV1>(nil)).width = 10
        })
        // A transaction of its own: a server store does not commit with another.
        try stack.perform(synchronous: { tx in tx.create(Into<ConfigThumbnailV1>("Cache")).width = 20 })
        try stack.removeStorage()
    }

    /// A provider's mappings of entities a configuration does not hold find
    /// nothing to map in that configuration's store: its other entities are
    /// inferred, as the history's documentation says, instead of the step
    /// failing because the mapping names an entity the store lacks.
    @Test(arguments: migratingKinds)
    func aCustomStepOfAnotherConfigurationsEntityLetsTheCacheStoreMigrate(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        try writeV1Stores(kind, in: directory)
        let stack = DataStack(schemaHistory: SchemaHistory(
            [configV1, configV2], chain: ["V1", "V2"], mappingProviders: [joiningNames]))
        #expect(try stack.requiredMigrations(for: configurationStorage("Cache", kind, in: directory))
            == [MigrationStep(sourceVersion: "V1", destinationVersion: "V2")])
        try stack.addStorageAndWait(configurationStorage(nil, kind, in: directory))
        try stack.addStorageAndWait(configurationStorage("Cache", kind, in: directory))
        #expect(try stack.fetchAll(From<ConfigPersonV2>()).map(\.fullName) == ["Ann Lee"])
        let cached = try stack.fetchAll(From<ConfigThumbnailV2>("Cache"))
        #expect(cached.map(\.width) == [20] && cached.map(\.height) == [5])
        let local = try stack.fetchAll(From<ConfigThumbnailV2>(nil))
        #expect(local.map(\.width) == [10] && local.map(\.height) == [5])
    }

    /// A mapping that names an entity no version of the history holds is
    /// still a mistake in every store, so that a typo is not silently ignored.
    @Test
    func aMappingOfAnEntityNoVersionHoldsStillFailsTheCacheStore() throws {
        let directory = TemporaryDirectory()
        try writeV1Stores(.file, in: directory)
        let typo = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
            .deleteEntity("Thumbnial"),
        ])
        let stack = DataStack(schemaHistory: SchemaHistory(
            [configV1, configV2], chain: ["V1", "V2"], mappingProviders: [typo]))
        #expect {
            try stack.addStorageAndWait(configurationStorage("Cache", .file, in: directory))
        } throws: { error in
            if case StrataError.migrationFailed("V1", "V2", "Thumbnial", nil, _) = error {
                true
            } else {
                false
            }
        }
    }

    /// A stage's hooks run once for each store that takes the step and say
    /// whose store it is: a hook that writes an entity only the default store
    /// holds skips the "Cache" store, instead of failing its migration.
    @Test(arguments: migratingKinds)
    func stageHooksKnowTheConfigurationOfTheStoreTheyMigrate(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        try writeV1Stores(kind, in: directory)
        let seen = Locked<[String]>([])
        let stage = MigrationStage(from: "V1", to: "V2", didMigrate: { context in
            seen.withLock { $0.append("\(context.configuration ?? "default"): \(context.entityNames.sorted())") }
            guard context.entityNames.contains("Person") else { return }
            _ = try context.execute(#"UPDATE "Person" SET "fullName" = ?"#, [.text("renamed")])
        })
        let stack = DataStack(schemaHistory: SchemaHistory(
            [configV1, configV2], chain: ["V1", "V2"], mappingProviders: [joiningNames], stages: [stage]))
        try stack.addStorageAndWait(configurationStorage(nil, kind, in: directory))
        try stack.addStorageAndWait(configurationStorage("Cache", kind, in: directory))
        #expect(seen.withLock { $0 } == [#"default: ["Person", "Thumbnail"]"#, #"Cache: ["Thumbnail"]"#])
        #expect(try stack.fetchAll(From<ConfigPersonV2>()).map(\.fullName) == ["renamed"])
        #expect(try stack.fetchAll(From<ConfigThumbnailV2>("Cache")).map(\.width) == [20])
    }
}

