import Foundation
@testable import Strata
import Testing

// MARK: Models: one base shape and its variations

private final class Plant: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("height") var height: Int = 0
}

private final class PlantWithDefaults: ManagedObject {
    @Field.Stored("name") var name: String = "Fern"
    @Field.Stored("height") var height: Int = 42
}

private final class PlantReordered: ManagedObject {
    @Field.Stored("height") var height: Int = 0
    @Field.Stored("name") var name: String = ""
}

private final class PlantWithColour: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("height") var height: Int = 0
    @Field.Stored("colour") var colour: String? = nil
}

private final class PlantWithoutHeight: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

private final class PlantWithTextHeight: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("height") var height: String = ""
}

private final class PlantWithUniqueName: ManagedObject {
    @Field.Stored("name", .unique) var name: String = ""
    @Field.Stored("height") var height: Int = 0
}

private final class PlantWithIndexedName: ManagedObject {
    @Field.Stored("name", .indexed) var name: String = ""
    @Field.Stored("height") var height: Int = 0
}

private final class PlantWithOptionalHeight: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("height") var height: Int? = nil
}

private final class PlantWithCodedHeight: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Coded("height") var height: [Int] = []
}

private func plants<Object: ManagedObject>(_ type: Object.Type, version: String = "V1") -> Schema {
    Schema(version, entities: [Entity<Object>("Plant")])
}

// MARK: Models: schema mistakes

private final class Twin: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("name") var alias: String = ""
}

private final class SpacedField: ManagedObject {
    @Field.Stored("first name") var firstName: String = ""
}

private final class DigitField: ManagedObject {
    @Field.Stored("1abc") var value: Int = 0
}

private final class UnderscoreField: ManagedObject {
    @Field.Stored("_x") var value: Int = 0
}

private final class QuoteField: ManagedObject {
    @Field.Stored("a\"b") var value: Int = 0
}

private final class Stray: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

/// A field name of 63 bytes, the most PostgreSQL keeps.
private final class KeptField: ManagedObject {
    @Field.Stored("aFieldNameOfSixtyThreeBytesWhichIsTheMostPostgreSQLKeepsWhole63") var kept: Int = 0
}

/// A field name of 64 bytes, one more than PostgreSQL keeps.
private final class CutField: ManagedObject {
    @Field.Stored("aFieldNameOfSixtyFourBytesWhichIsOneMoreThanPostgreSQLKeepsWhole") var cut: Int = 0
}

private final class Keeper: ManagedObject {
    @Field.Relationship("stray") var stray: Stray?
}

private final class Left: ManagedObject {
    @Field.Relationship("right", inverse: \Right.$elsewhere) var right: Right?
}

private final class Right: ManagedObject {
    @Field.Relationship("elsewhere") var elsewhere: Third?
}

private final class Third: ManagedObject {
    @Field.Stored("value") var value: Int = 0
}

private final class ControlCharacterField: ManagedObject {
    @Field.Stored("weird\u{1E}1") var weird: Int = 0
}

private final class SeparatorField: ManagedObject {
    @Field.Stored("weird\u{1F}1") var weird: Int = 0
}

private final class Declared: ManagedObject {
    @Field.Stored("email", [.unique, .indexed], renamingIdentifier: "mail") var email: String = ""
    @Field.Stored("rank", .indexed) var rank: Int = 0
    @Field.Stored("plain") var plain: Int = 0
}

// MARK: Helpers

/// The error adding a store for `schema` throws; a file store is not created.
@MainActor
private func schemaError(_ schema: Schema, sourceLocation: SourceLocation = #_sourceLocation) -> StrataError? {
    let directory = TemporaryDirectory()
    let stack = DataStack(schema)
    let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
        try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory)))
    }
    #expect(!FileManager.default.fileExists(atPath: storeURL(in: directory).path),
            "no file for a schema with mistakes", sourceLocation: sourceLocation)
    #expect(throws: StrataError.self, "in memory too", sourceLocation: sourceLocation) {
        try DataStack(schema).addStorageAndWait(InMemoryStore())
    }
    #expect(throws: StrataError.self, "validate() reports it", sourceLocation: sourceLocation) {
        try schema.validate()
    }
    return error
}

@MainActor
private func expectInvalidSchema(
    _ schema: Schema, entity: String?, field: String?,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let error = schemaError(schema, sourceLocation: sourceLocation)
    guard case let .invalidSchema(errorEntity, errorField, reason)? = error else {
        Issue.record("expected .invalidSchema, got \(String(describing: error))", sourceLocation: sourceLocation)
        return
    }
    #expect(errorEntity == entity, "\(reason)", sourceLocation: sourceLocation)
    #expect(errorField == field, "\(reason)", sourceLocation: sourceLocation)
    #expect(!reason.isEmpty, sourceLocation: sourceLocation)
}

/// Runs `body` with a stack, then releases the stack, which closes its connections.
@MainActor
private func withReleasedStack(
    _ schema: Schema, in directory: TemporaryDirectory, _ body: (DataStack) throws -> Void
) throws {
    weak var released: DataStack?
    do {
        let stack = try makeStack(schema, .file, in: directory)
        try body(stack)
        released = stack
    }
    #expect(released == nil, "the stack is released at once")
}

// MARK: Fingerprint

@Suite("Schema fingerprint")
struct SchemaFingerprintTests {
    @Test
    func isTheSameForTheSameSchemaBuiltTwice() {
        #expect(plants(Plant.self).fingerprint == plants(Plant.self).fingerprint)
        let fingerprint = plants(Plant.self).fingerprint
        #expect(fingerprint.count == 32)
        #expect(fingerprint.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test
    func isPinnedForASmallSchema() {
        // Pinned (and checked against Python's hashlib over the canonical text
        // "entity Plant\n  height stored INTEGER required\n  name stored TEXT required"):
        // a change means every existing store would be seen as mismatched.
        #expect(plants(Plant.self).fingerprint == "e848b12bfe129192f35499c5ede88dca")
    }

    @Test
    func ignoresVersionNameDefaultValuesAndDeclarationOrder() {
        let base = plants(Plant.self).fingerprint
        #expect(plants(Plant.self, version: "V2").fingerprint == base)
        #expect(plants(PlantWithDefaults.self).fingerprint == base)
        #expect(plants(PlantReordered.self).fingerprint == base)
    }

    @Test(arguments: [
        ("field added", plants(PlantWithColour.self)),
        ("field removed", plants(PlantWithoutHeight.self)),
        ("field retyped", plants(PlantWithTextHeight.self)),
        ("field made unique", plants(PlantWithUniqueName.self)),
        ("field indexed", plants(PlantWithIndexedName.self)),
        ("field made optional", plants(PlantWithOptionalHeight.self)),
        ("field made coded", plants(PlantWithCodedHeight.self)),
        ("entity renamed", Schema("V1", entities: [Entity<Plant>("Shrub")])),
        ("entity added", Schema("V1", entities: [Entity<Plant>("Plant"), Entity<Stray>("Stray")])),
    ])
    func changesWhenWhatIsStoredChanges(change: String, schema: Schema) {
        #expect(schema.fingerprint != plants(Plant.self).fingerprint, "\(change)")
    }

    @Test
    func everyVariationHasItsOwnFingerprint() {
        let schemas = [
            plants(Plant.self), plants(PlantWithColour.self), plants(PlantWithoutHeight.self),
            plants(PlantWithTextHeight.self), plants(PlantWithUniqueName.self),
            plants(PlantWithIndexedName.self), plants(PlantWithOptionalHeight.self),
            plants(PlantWithCodedHeight.self),
        ]
        #expect(Set(schemas.map(\.fingerprint)).count == schemas.count)
    }
}

// MARK: Schema mistakes

@Suite("Schema mistakes")
@MainActor
struct SchemaMistakeTests {
    @Test
    func duplicateEntityNamesAreRefused() {
        expectInvalidSchema(
            Schema("V1", entities: [Entity<Plant>("Thing"), Entity<Stray>("Thing")]),
            entity: "Thing", field: nil)
        expectInvalidSchema(
            Schema("V1", entities: [Entity<Plant>("Thing"), Entity<Stray>("thing")]),
            entity: "thing", field: nil)
    }

    @Test
    func theSameClassAsTwoEntitiesIsRefused() {
        expectInvalidSchema(
            Schema("V1", entities: [Entity<Plant>("Plant"), Entity<Plant>("Tree")]),
            entity: "Tree", field: nil)
    }

    @Test
    func duplicateFieldNamesAreRefused() {
        expectInvalidSchema(Schema("V1", entities: [Entity<Twin>("Twin")]), entity: "Twin", field: "name")
    }

    @Test
    func invalidFieldIdentifiersAreRefused() {
        expectInvalidSchema(
            Schema("V1", entities: [Entity<SpacedField>("Spaced")]), entity: "Spaced", field: "first name")
        expectInvalidSchema(
            Schema("V1", entities: [Entity<DigitField>("Digit")]), entity: "Digit", field: "1abc")
        expectInvalidSchema(
            Schema("V1", entities: [Entity<UnderscoreField>("Under")]), entity: "Under", field: "_x")
        expectInvalidSchema(
            Schema("V1", entities: [Entity<QuoteField>("Quote")]), entity: "Quote", field: "a\"b")
    }

    @Test
    func fieldNamesWithControlCharactersAreRefused() {
        expectInvalidSchema(
            Schema("V1", entities: [Entity<ControlCharacterField>("Control")]), entity: "Control",
            field: "weird\u{1E}1")
        expectInvalidSchema(
            Schema("V1", entities: [Entity<SeparatorField>("Separator")]), entity: "Separator",
            field: "weird\u{1F}1")
    }

    @Test
    func optionsAndPreviousNamesReachTheSchema() throws {
        let schema = Schema("V1", entities: [Entity<Declared>("Declared")])
        try schema.validate()
        let attributes = Dictionary(uniqueKeysWithValues: schema.entities[0].attributes.map { ($0.name, $0) })
        #expect(attributes["email"]?.options == [.unique, .indexed])
        #expect(attributes["email"]?.renamingIdentifier == "mail")
        #expect(attributes["rank"]?.options == [.indexed])
        #expect(attributes["plain"]?.options == [])
        let object = Declared()
        #expect(object.$email.name == "email" && object.$email.renamingIdentifier == "mail")
        #expect(object.$email.options == [.unique, .indexed] && object.$rank.options == .indexed)
        #expect(object.$plain.options == [] && object.$plain.renamingIdentifier == nil)
    }

    @Test(arguments: ["first name", "1abc", "_x", "", "sqlite_master", "a-b", "é", String(repeating: "a", count: 65)])
    func invalidEntityIdentifiersAreRefused(name: String) {
        expectInvalidSchema(Schema("V1", entities: [Entity<Plant>(name)]), entity: name, field: nil)
    }

    @Test
    func validIdentifiersAreAccepted() throws {
        let schema = Schema("V1", entities: [Entity<Plant>("a_1"), Entity<Stray>(String(repeating: "b", count: 64))])
        try schema.validate()
        #expect(schema.entityNames == ["a_1", String(repeating: "b", count: 64)])
        let directory = TemporaryDirectory()
        _ = try makeStack(schema, .inMemory, in: directory)
    }

    /// PostgreSQL keeps identifiers of at most 63 bytes: an entity or field
    /// name past them is refused when a PostgreSQL store is added, naming
    /// it, rather than stored under a shortened name; SQLite takes it.
    @Test(arguments: StoreKind.allCases)
    func namesPastSixtyThreeBytesAreRefusedOnPostgreSQLOnly(kind: StoreKind) throws {
        let cutField = "aFieldNameOfSixtyFourBytesWhichIsOneMoreThanPostgreSQLKeepsWhole"
        let (kept, cut) = (String(repeating: "k", count: 63), String(repeating: "c", count: 64))
        let cases: [(Schema, refused: (entity: String, field: String?)?)] = [
            (Schema("V1", entities: [Entity<KeptField>(kept), Entity<Stray>("Stray")]), nil),
            (Schema("V1", entities: [Entity<CutField>("Cut"), Entity<Stray>("Stray")]), ("Cut", cutField)),
            (Schema("V1", entities: [Entity<Plant>("Plant"), Entity<Stray>(cut)]), (cut, nil)),
        ]
        for (schema, refused) in cases {
            let directory = TemporaryDirectory()
            let stack = DataStack(schema)
            do {
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
                #expect(kind != .postgreSQL || refused == nil, "taken: \(String(describing: refused))")
                try stack.perform(synchronous: { tx in _ = tx.create(Into<Stray>()) })
                #expect(try stack.fetchCount(From<Stray>()) == 1)
            } catch let error {
                guard kind == .postgreSQL, let refused,
                      case let .invalidSchema(entity, field, reason) = error as? StrataError
                else {
                    Issue.record("\(String(describing: refused)): \(error) on \(kind)")
                    continue
                }
                #expect(entity == refused.entity && field == refused.field)
                let name = refused.field ?? refused.entity
                #expect(reason.contains("'\(name)' is 64 bytes") && reason.contains("at most 63 bytes"))
                #expect(throws: StrataError.self, "no store was added") {
                    try stack.perform(synchronous: { _ in })
                }
            }
        }
    }

    @Test
    func aRelationshipToAClassOutsideTheSchemaIsRefused() {
        expectInvalidSchema(Schema("V1", entities: [Entity<Keeper>("Keeper")]), entity: "Keeper", field: "stray")
    }

    @Test
    func anInverseThatDoesNotPointBackIsRefused() {
        expectInvalidSchema(
            Schema("V1", entities: [Entity<Left>("Left"), Entity<Right>("Right"), Entity<Third>("Third")]),
            entity: "Left", field: "right")
    }

    @Test
    func anEmptyVersionNameIsRefused() {
        expectInvalidSchema(Schema("", entities: [Entity<Plant>("Plant")]), entity: nil, field: nil)
    }
}

// MARK: Schema mismatch

@Suite("Schema mismatch")
@MainActor
struct SchemaMismatchTests {
    @Test
    func aChangedSchemaIsRefusedNamingBothVersions() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try withReleasedStack(plants(Plant.self), in: directory) { stack in
            try stack.perform(synchronous: { tx in tx.create(Into<Plant>()).name = "Fern" })
        }
        let before = try #require(FileManager.default.contents(atPath: url.path))

        let stack = DataStack(plants(PlantWithColour.self, version: "V2"))
        let error = #expect(throws: StrataError.self) {
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        }
        if case let .schemaMismatch(path, storeVersion, schemaVersion)? = error {
            #expect(path == url.path)
            #expect(storeVersion == "V1")
            #expect(schemaVersion == "V2")
        } else {
            Issue.record("expected .schemaMismatch, got \(String(describing: error))")
        }
        #expect(FileManager.default.contents(atPath: url.path) == before, "the store is untouched")
        #expect(throws: StrataError.self, "the stack has no store") {
            try stack.fetchCount(From<PlantWithColour>())
        }

        // The original schema still opens it, data intact.
        let original = try makeStack(plants(Plant.self), .file, in: directory)
        #expect(try original.fetchAll(From<Plant>()).map(\.name) == ["Fern"])
    }

    /// The usual mistake, a shipped schema edited in place: the store and the
    /// stack name the same version, and the message says what happened
    /// instead of "holds schema V1, but the stack uses V1".
    @Test
    func aSchemaEditedInPlaceIsRefusedSayingSo() async throws {
        let directory = TemporaryDirectory()
        try withReleasedStack(plants(Plant.self), in: directory) { stack in
            try stack.perform(synchronous: { tx in tx.create(Into<Plant>()).name = "Fern" })
        }
        let stack = DataStack(plants(PlantWithColour.self))
        let error = #expect(throws: StrataError.self) {
            try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory)))
        }
        guard case .schemaMismatch(_, "V1", "V1")? = error else {
            Issue.record("expected .schemaMismatch of V1 and V1, got \(String(describing: error))")
            return
        }
        let message = error?.debugDescription ?? ""
        #expect(message.contains("without a new version"), "\(message)")
        #expect(!message.contains("but the stack uses V1"), "\(message)")
    }

    @Test
    func recreateStoreOnModelMismatchOpensAnEmptyStore() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try withReleasedStack(plants(Plant.self), in: directory) { stack in
            try stack.perform(synchronous: { tx in
                for index in 0..<10 { tx.create(Into<Plant>()).height = index }
            })
        }
        do {
            let stack = DataStack(plants(PlantWithColour.self, version: "V2"))
            try stack.addStorageAndWait(SQLiteStore(fileURL: url, options: .recreateStoreOnModelMismatch))
            #expect(try stack.fetchCount(From<PlantWithColour>()) == 0)
            try stack.perform(synchronous: { tx in tx.create(Into<PlantWithColour>()).colour = "green" })
            #expect(try stack.fetchAll(From<PlantWithColour>()).map(\.colour) == ["green"])
        }
        // Now it is a V2 store: V2 opens it, V1 is refused.
        let reopened = try makeStack(plants(PlantWithColour.self, version: "V2"), .file, in: directory)
        #expect(try reopened.fetchAll(From<PlantWithColour>()).map(\.colour) == ["green"])
        let old = DataStack(plants(Plant.self))
        let error = #expect(throws: StrataError.self) { try old.addStorageAndWait(SQLiteStore(fileURL: url)) }
        if case let .schemaMismatch(_, storeVersion, schemaVersion)? = error {
            #expect(storeVersion == "V2")
            #expect(schemaVersion == "V1")
        } else {
            Issue.record("expected .schemaMismatch, got \(String(describing: error))")
        }
    }

    @Test
    func recreateStoreOnModelMismatchKeepsAMatchingStore() async throws {
        let directory = TemporaryDirectory()
        try withReleasedStack(plants(Plant.self), in: directory) { stack in
            try stack.perform(synchronous: { tx in tx.create(Into<Plant>()).name = "kept" })
        }
        let stack = DataStack(plants(Plant.self))
        try stack.addStorageAndWait(
            SQLiteStore(fileURL: storeURL(in: directory), options: .recreateStoreOnModelMismatch))
        #expect(try stack.fetchAll(From<Plant>()).map(\.name) == ["kept"])
    }

    @Test
    func theSameSchemaReopensWithItsData() async throws {
        var random = SplitMix64.random()
        let heights = (0..<50).map { _ in Int(truncatingIfNeeded: random.next()) }
        let directory = TemporaryDirectory()
        try withReleasedStack(plants(Plant.self), in: directory) { stack in
            try stack.perform(synchronous: { tx in
                for height in heights { tx.create(Into<Plant>()).height = height }
            })
        }
        // Built again, under another version name and with other defaults: the same stored shape.
        for schema in [plants(Plant.self), plants(PlantWithDefaults.self, version: "V1.1")] {
            let stack = try makeStack(schema, .file, in: directory)
            let read = schema.version == "V1"
                ? try stack.fetchAll(From<Plant>().orderBy(.ascending(\.$height))).map(\.height)
                : try stack.fetchAll(From<PlantWithDefaults>().orderBy(.ascending(\.$height))).map(\.height)
            #expect(read == heights.sorted(), "seed \(random.seed), schema \(schema.version)")
        }
    }
}
