import Foundation
@testable import Strata
import Testing

// The models the configuration tests share, after CoreStore's test model:
// TestEntity1 in "Config1", TestEntity2 in "Config2", and an entity of the
// default configuration only. Class names start with `Cfg` so that they
// never clash with other test files' models.

/// In the default configuration and in "Config1" (CoreStore's TestEntity1).
final class CfgItem: ManagedObject {
    /// A number unique among a test's items, in every store: what names an item in failures.
    @Field.Stored("key") var key: Int = 0
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("label") var label: String = ""
    @Field.Stored("score") var score: Int? = nil
    @Field.Relationship("tags", inverse: \CfgTag.$item) var tags: Set<CfgTag>
}

/// In "Config1" beside its item: a relationship that stays inside its stores.
final class CfgTag: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("item") var item: CfgItem?
}

/// In the default configuration and in "Config2" (CoreStore's TestEntity2).
final class CfgNote: ManagedObject {
    @Field.Stored("text") var text: String = ""
}

/// In the default configuration only.
final class CfgUser: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

/// The schema of the configuration tests: configurations "Config1" and "Config2".
let configurationSchema = Schema("CfgV1", entities: [
    Entity<CfgItem>("CfgItem", configurations: ["Config1"]),
    Entity<CfgTag>("CfgTag", configurations: ["Config1"]),
    Entity<CfgNote>("CfgNote", configurations: ["Config2"]),
    Entity<CfgUser>("CfgUser"),
])

/// The storage of configuration `configuration` for `kind`: a fresh in-memory
/// store, a file in `directory` named after the configuration, or a
/// PostgreSQL schema named after both.
func configurationStorage(
    _ configuration: String?, _ kind: StoreKind, in directory: TemporaryDirectory
) throws -> any StorageInterface {
    switch kind {
    case .inMemory: return InMemoryStore(configuration: configuration)
    case .file:
        return SQLiteStore(fileURL: configurationURL(configuration, in: directory), configuration: configuration)
    case .postgreSQL: return try postgreSQLStore(in: directory, configuration: configuration)
    }
}

/// The file of configuration `configuration`'s store in `directory`.
func configurationURL(_ configuration: String?, in directory: TemporaryDirectory) -> URL {
    directory.file("\(configuration ?? "Default").sqlite")
}

/// A stack of `schema` (by default ``configurationSchema``) with a store of
/// each of `configurations` added, in the order given.
@MainActor
func makeConfigurationStack(
    _ configurations: [String?], _ kind: StoreKind, in directory: TemporaryDirectory,
    schema: Schema = configurationSchema
) throws -> DataStack {
    let stack = DataStack(schema)
    for configuration in configurations {
        try stack.addStorageAndWait(configurationStorage(configuration, kind, in: directory))
    }
    return stack
}

/// The keys of `items`, in order: what tests compare fetches by.
func keys(_ items: [CfgItem]) -> [Int] {
    items.map(\.key)
}

/// Whether `error` is ``StrataError/storeNotFound(entity:configuration:)`` for `entity` and `configuration`.
func isStoreNotFound(_ error: any Error, _ entity: String, _ configuration: String?) -> Bool {
    guard case let StrataError.storeNotFound(found, foundConfiguration) = error else { return false }
    return found == entity && foundConfiguration == configuration
}

/// The configurations a ``StrataError/crossStoreTransaction(configurations:)`` names, or `nil` for another error.
func crossStoreConfigurations(_ error: any Error) -> [String?]? {
    guard case let StrataError.crossStoreTransaction(configurations) = error else { return nil }
    return configurations
}
