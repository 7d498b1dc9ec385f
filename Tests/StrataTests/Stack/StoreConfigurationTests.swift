import Foundation
@testable import Strata
import Testing

/// Configurations in the schema, one store per configuration in a stack,
/// the order of the stores, and IDs that name their store.
@MainActor
@Suite("DataStack: one store per configuration")
struct StoreConfigurationTests {
    // MARK: Schema

    @Test
    func aSchemaListsItsConfigurationsSortedAndEachConfigurationsEntities() throws {
        try configurationSchema.validate()
        #expect(configurationSchema.configurationNames == ["Config1", "Config2"])
        #expect(configurationSchema.entityNames(in: nil) == ["CfgItem", "CfgTag", "CfgNote", "CfgUser"])
        #expect(configurationSchema.entityNames(in: "Config1") == ["CfgItem", "CfgTag"])
        #expect(configurationSchema.entityNames(in: "Config2") == ["CfgNote"])
        #expect(configurationSchema.entityNames(in: "Config9").isEmpty)
        // Each configuration's store has a schema, and a fingerprint, of its own.
        let fingerprints = [nil, "Config1", "Config2"].map { configurationSchema.restricted(to: $0).fingerprint }
        #expect(Set(fingerprints).count == 3)
        #expect(configurationSchema.restricted(to: "Config1").entityNames.sorted() == ["CfgItem", "CfgTag"])
    }

    /// A relationship cannot leave its store: its target must be in every
    /// configuration its entity is in.
    @Test
    func aRelationshipWhoseTargetIsNotInItsConfigurationsIsInvalid() throws {
        let itemOnly = Schema("CfgBad1", entities: [
            Entity<CfgItem>("CfgItem", configurations: ["Config1"]), Entity<CfgTag>("CfgTag"),
        ])
        #expect(invalidSchemaField(itemOnly).map { [$0.entity, $0.field] } == ["CfgItem", "tags"])
        let tagOnly = Schema("CfgBad2", entities: [
            Entity<CfgItem>("CfgItem"), Entity<CfgTag>("CfgTag", configurations: ["Config1"]),
        ])
        #expect(invalidSchemaField(tagOnly).map { [$0.entity, $0.field] } == ["CfgTag", "item"])
        let apart = Schema("CfgBad3", entities: [
            Entity<CfgItem>("CfgItem", configurations: ["Config1"]),
            Entity<CfgTag>("CfgTag", configurations: ["Config2"]),
        ])
        #expect(invalidSchemaField(apart) != nil)
        // Both ends in each configuration: fine. (The inverse is a relationship
        // too, so a target in more configurations than its entity is not.)
        let together = Schema("CfgGood", entities: [
            Entity<CfgItem>("CfgItem", configurations: ["Config1", "Config2"]),
            Entity<CfgTag>("CfgTag", configurations: ["Config1", "Config2"]),
        ])
        try together.validate()
        let wider = Schema("CfgWider", entities: [
            Entity<CfgItem>("CfgItem", configurations: ["Config1"]),
            Entity<CfgTag>("CfgTag", configurations: ["Config1", "Config2"]),
        ])
        #expect(invalidSchemaField(wider).map { [$0.entity, $0.field] } == ["CfgTag", "item"])
        // Adding a store of an invalid schema throws the schema's problem, whatever the configuration.
        let directory = TemporaryDirectory()
        for configuration in [nil, "Config1"] as [String?] {
            let stack = DataStack(itemOnly)
            #expect(throws: StrataError.self) {
                try stack.addStorageAndWait(configurationStorage(configuration, .file, in: directory))
            }
            #expect(!stack.hasStore)
        }
    }

    @Test(arguments: ["has space", "1st", "", "dash-ed", "Config/1", "é"])
    func aConfigurationNameMustBeAnIdentifier(_ name: String) {
        let schema = Schema("CfgNames", entities: [Entity<CfgUser>("CfgUser", configurations: [name])])
        #expect(invalidSchemaField(schema)?.entity == "CfgUser", "\(name.debugDescription)")
    }

    @Test
    func aConfigurationNameMayBeAnyIdentifier() throws {
        for name in ["C", "Config_2", "cache9", String(repeating: "x", count: 64)] {
            try Schema("CfgNames", entities: [Entity<CfgUser>("CfgUser", configurations: [name])]).validate()
        }
    }

    private func invalidSchemaField(_ schema: Schema) -> (entity: String?, field: String?)? {
        do {
            try schema.validate()
            return nil
        } catch {
            guard case .invalidSchema(let entity, let field, _) = error else {
                Issue.record("not invalidSchema: \(error)")
                return nil
            }
            return (entity, field)
        }
    }

    // MARK: Adding stores

    /// A store of a named configuration has tables for that configuration's entities only.
    @Test
    func aStoreOfAConfigurationHoldsOnlyItsEntitiesTables() throws {
        let directory = TemporaryDirectory()
        _ = try makeConfigurationStack([nil, "Config1", "Config2"], .file, in: directory)
        func tables(_ configuration: String?) throws -> Set<String> {
            let connection = try Connection(path: configurationURL(configuration, in: directory).path, readOnly: true)
            defer { connection.close() }
            let names = try connection.query(
                "SELECT name FROM sqlite_master WHERE type = 'table'", [], { statement in
                    if case .text(let name) = statement.value(at: 0) { name } else { "" }
                })
            return Set(names.filter { $0.hasPrefix("Cfg") })
        }
        #expect(try tables(nil) == ["CfgItem", "CfgTag", "CfgNote", "CfgUser"])
        #expect(try tables("Config1") == ["CfgItem", "CfgTag"])
        #expect(try tables("Config2") == ["CfgNote"])
    }

    @Test(arguments: StoreKind.allCases)
    func storesAreOrderedDefaultFirstThenByNameWhateverOrderTheyWereAddedIn(_ kind: StoreKind) throws {
        let orders: [[String?]] = [
            [nil, "Config1", "Config2"], ["Config2", "Config1", nil], ["Config1", nil, "Config2"], ["Config2", nil],
            ["Config2", "Config1"],
        ]
        for order in orders {
            let directory = TemporaryDirectory()
            let stack = try makeConfigurationStack(order, kind, in: directory)
            let expected = ([nil, "Config1", "Config2"] as [String?]).filter { order.contains($0) }
            #expect(stack.storeConfigurations == expected, "added \(order)")
            #expect(stack.hasStore)
            if kind == .file {
                // storeURL is the first store's: the default configuration's when added.
                #expect(stack.storeURL == configurationURL(expected[0], in: directory), "added \(order)")
            } else {
                #expect(stack.storeURL == nil)
            }
        }
    }

    @Test(arguments: [nil, "Config1"] as [String?])
    func aSecondStoreOfAConfigurationIsRefusedBeforeItsFileIsOpened(_ configuration: String?) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([configuration], .file, in: directory)
        let second = directory.file("second.sqlite")
        for storage in [
            SQLiteStore(fileURL: second, configuration: configuration) as any StorageInterface,
            InMemoryStore(configuration: configuration),
        ] {
            do {
                try stack.addStorageAndWait(storage)
                Issue.record("a second store of \(configuration ?? "nil") was added")
            } catch {
                guard case .storage(_, let reason) = error else {
                    Issue.record("unexpected error: \(error)")
                    continue
                }
                #expect(reason.contains(configurationURL(configuration, in: directory).path), "\(reason)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: second.path))
        #expect(stack.storeConfigurations == [configuration])
        // The store that was there still works.
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(configuration)).key = 1 })
        #expect(try stack.fetchCount(From<CfgItem>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func aStoreOfAConfigurationNoEntityDeclaresIsInvalidSchema(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil], kind, in: directory)
        let storage = try configurationStorage("Config9", kind, in: directory)
        do {
            try stack.addStorageAndWait(storage)
            Issue.record("a store of an undeclared configuration was added")
        } catch {
            guard case .invalidSchema(_, _, let reason) = error else {
                Issue.record("unexpected error: \(error)")
                return
            }
            #expect(reason.contains("Config9"), "\(reason)")
        }
        #expect(stack.storeConfigurations == [nil])
    }

    /// Each store's file is checked against its configuration's schema: a
    /// Config1 file is no default-configuration store, nor a Config2 one.
    @Test
    func aStoreFileOpensOnlyAsItsOwnConfiguration() throws {
        let directory = TemporaryDirectory()
        let url = configurationURL("Config1", in: directory)
        do {
            let stack = try makeConfigurationStack(["Config1"], .file, in: directory)
            try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>()).key = 7 })
            try stack.removeStorage()
        }
        for configuration in [nil, "Config2"] as [String?] {
            let stack = DataStack(configurationSchema)
            #expect(throws: StrataError.self, "as \(configuration ?? "nil")") {
                try stack.addStorageAndWait(SQLiteStore(fileURL: url, configuration: configuration))
            }
            #expect(!stack.hasStore)
        }
        let reopened = DataStack(configurationSchema)
        try reopened.addStorageAndWait(SQLiteStore(fileURL: url, configuration: "Config1"))
        #expect(keys(try reopened.fetchAll(From<CfgItem>())) == [7])
    }

    // MARK: Lifecycle

    @Test(arguments: StoreKind.allCases)
    func removeStorageRemovesEveryStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>("Config1")).key = 1 })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(nil)).key = 2 })
        try stack.removeStorage()
        #expect(stack.storeConfigurations.isEmpty)
        #expect(!stack.hasStore)
        #expect(throws: StrataError.self) { try stack.fetchAll(From<CfgItem>()) }
        // The configurations can be added again; files keep their data.
        for configuration in [nil, "Config1", "Config2"] as [String?] {
            try stack.addStorageAndWait(configurationStorage(configuration, kind, in: directory))
        }
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == (kind == .inMemory ? [] : [2, 1]))
    }

    /// `resetStore` acts on the first store, the default configuration's.
    @Test
    func resetStoreEmptiesTheFirstStoreOnly() throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack(["Config1", nil], .file, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>("Config1")).key = 1 })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(nil)).key = 2 })
        try stack.resetStore()
        #expect(stack.storeConfigurations == [nil, "Config1"])
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [1])
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(nil)).key = 3 })
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [3, 1])
    }

    /// `replaceStore` checks the source as a store of the configuration it
    /// replaces: a backup of a named configuration's store is taken, and a
    /// store of the default configuration is refused before anything changes.
    @Test
    func replaceStoreTakesABackupOfTheSameConfigurationOnly() throws {
        let directory = TemporaryDirectory()
        let backup = directory.file("Config2-backup.sqlite")
        let defaultStore = directory.file("Default-other.sqlite")
        do {
            let other = try makeConfigurationStack([], .file, in: directory)
            try other.addStorageAndWait(SQLiteStore(fileURL: backup, configuration: "Config2"))
            try other.addStorageAndWait(SQLiteStore(fileURL: defaultStore))
            try other.perform(synchronous: { tx in tx.create(Into<CfgNote>("Config2")).text = "backup" })
        }
        let stack = try makeConfigurationStack(["Config2"], .file, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<CfgNote>()).text = "current" })
        #expect(throws: StrataError.self) { try stack.replaceStore(withContentsOf: defaultStore) }
        #expect(try stack.fetchAll(From<CfgNote>()).map(\.text) == ["current"])
        try stack.replaceStore(withContentsOf: backup)
        #expect(stack.storeConfigurations == ["Config2"])
        #expect(try stack.fetchAll(From<CfgNote>()).map(\.text) == ["backup"])
    }

    // MARK: IDs

    @Test(arguments: StoreKind.allCases)
    func anIDNamesTheConfigurationOfItsStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        let inDefault = try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(nil)).objectID })
        let inConfig1 = try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>("Config1")).objectID })
        #expect(inDefault.configuration == nil && inConfig1.configuration == "Config1")
        // Fresh stores: both objects have row ID 1, and are still two objects.
        #expect(inDefault.rowID == inConfig1.rowID)
        #expect(inDefault != inConfig1 && inDefault.erased != inConfig1.erased)
        #expect(inDefault.description == "CfgItem/\(inDefault.rowID)")
        #expect(inConfig1.description == "Config1/CfgItem/\(inConfig1.rowID)")
        #expect(inConfig1.erased.description == inConfig1.description)
        for id in [inDefault, inConfig1] {
            #expect(try ObjectID<CfgItem>(parsing: id.description) == id)
            #expect(try ObjectID<CfgItem>(parsing: id.description, in: configurationSchema) == id)
            #expect(try AnyObjectID(parsing: id.description, in: configurationSchema) == id.erased)
            #expect(try AnyObjectID(parsing: id.description).typed(as: CfgItem.self) == id)
            // Codable, with and without the schema to check against.
            let data = try JSONEncoder().encode([id])
            let escaped = id.description.replacingOccurrences(of: "/", with: "\\/")
            #expect(String(decoding: data, as: UTF8.self) == "[\"\(escaped)\"]")
            #expect(try JSONDecoder().decode([ObjectID<CfgItem>].self, from: data) == [id])
            let checked = JSONDecoder()
            checked.userInfo[.strataSchema] = configurationSchema
            #expect(try checked.decode([ObjectID<CfgItem>].self, from: data) == [id])
            #expect(try checked.decode([AnyObjectID].self, from: data) == [id.erased])
        }
        #expect(try stack.fetchExisting(inConfig1)?.objectID == inConfig1)
    }

    @Test
    func readingAnIDChecksThatItsConfigurationHoldsTheEntity() throws {
        // Without a schema the configuration is taken as written.
        #expect(try ObjectID<CfgItem>(parsing: "Config2/CfgItem/3").configuration == "Config2")
        let refused = ["Config2/CfgItem/3", "Config9/CfgItem/3", "Config1/CfgNote/3", "Config1/CfgUser/1"]
        for text in refused {
            #expect(throws: StrataError.self, "\(text)") { try AnyObjectID(parsing: text, in: configurationSchema) }
            let decoder = JSONDecoder()
            decoder.userInfo[.strataSchema] = configurationSchema
            #expect(throws: DecodingError.self, "\(text)") {
                try decoder.decode([AnyObjectID].self, from: Data("[\"\(text)\"]".utf8))
            }
        }
        #expect(throws: StrataError.self) {
            try ObjectID<CfgItem>(parsing: "Config2/CfgItem/3", in: configurationSchema)
        }
        // Not an identifier, or too many parts: no ID.
        for text in ["Con fig/CfgItem/1", "A/Config1/CfgItem/1", "/CfgItem/1", "Config1//1", "Config1/CfgItem/01"] {
            #expect(throws: StrataError.self, "\(text)") { try AnyObjectID(parsing: text) }
        }
        #expect(try AnyObjectID(parsing: "Config1/CfgTag/2", in: configurationSchema).configuration == "Config1")
        #expect(try AnyObjectID(parsing: "Config2/CfgNote/2", in: configurationSchema).configuration == "Config2")
    }
}
