import Foundation
import Testing

@testable import Strata

final class CodPerson: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class CodPet: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

/// `CodPerson`'s entity is not named after its class; `CodPet`'s is.
private let codingSchema = Schema(
    "CodV1", entities: [Entity<CodPerson>("People"), Entity<CodPet>()])

/// What an app might store: typed and untyped IDs among its own values.
private struct Bookmark: Codable, Equatable {
    var pet: ObjectID<CodPet>
    var anything: AnyObjectID
    var pets: [ObjectID<CodPet>]
}

enum IDCodingFormat: String, CaseIterable, CustomTestStringConvertible {
    case json, binaryPropertyList, xmlPropertyList

    var testDescription: String { rawValue }

    func encode<T: Encodable>(_ value: T) throws -> Data {
        switch self {
        case .json: return try JSONEncoder().encode(value)
        case .binaryPropertyList, .xmlPropertyList:
            let encoder = PropertyListEncoder()
            encoder.outputFormat = self == .binaryPropertyList ? .binary : .xml
            return try encoder.encode(value)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, from data: Data, schema: Schema? = nil) throws -> T {
        switch self {
        case .json:
            let decoder = JSONDecoder()
            if let schema { decoder.userInfo[.strataSchema] = schema }
            return try decoder.decode(type, from: data)
        case .binaryPropertyList, .xmlPropertyList:
            let decoder = PropertyListDecoder()
            if let schema { decoder.userInfo[.strataSchema] = schema }
            return try decoder.decode(type, from: data)
        }
    }
}

/// Random valid entity names and row IDs of the whole `Int64` range.
private struct IDGenerator {
    var random: SplitMix64
    static let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    static let rest = letters + Array("0123456789_")

    mutating func entityName() -> String {
        let length = Int.random(in: 0..<20, using: &random)
        let first = Self.letters.randomElement(using: &random)!
        return String([first] + (0..<length).map { _ in Self.rest.randomElement(using: &random)! })
    }

    mutating func rowID() -> Int64 {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return [0, 1, -1, .max, .min].randomElement(using: &random)!
        case 1: return Int64.random(in: .min ... .max, using: &random)
        default: return Int64.random(in: 1...100_000, using: &random)
        }
    }

    mutating func anyID() -> AnyObjectID { AnyObjectID(entityName: entityName(), rowID: rowID()) }
    mutating func petID() -> ObjectID<CodPet> { ObjectID(entityName: "CodPet", rowID: rowID()) }
}

/// Expects `body` to throw `DecodingError.dataCorrupted` whose message names every word.
private func expectDataCorrupted(
    _ words: [String], _ comment: String = "", _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("decoded, expected dataCorrupted \(comment)")
    } catch DecodingError.dataCorrupted(let context) {
        for word in words {
            #expect(
                context.debugDescription.contains(word), "\(context.debugDescription) \(comment)")
        }
    } catch {
        Issue.record("threw \(error), expected dataCorrupted \(comment)")
    }
}

@Suite("ObjectID: string form and Codable")
struct ObjectIDCodingTests {
    @Test func theStringFormIsEntitySlashRowID() throws {
        let id = ObjectID<CodPet>(entityName: "CodPet", rowID: 42)
        #expect(id.description == "CodPet/42")
        #expect(id.erased.description == "CodPet/42")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        #expect(String(decoding: try encoder.encode(id), as: UTF8.self) == "\"CodPet/42\"")
        #expect(try ObjectID<CodPet>(parsing: "CodPet/42") == id)
        #expect(
            try AnyObjectID(parsing: "CodPet/-7") == AnyObjectID(entityName: "CodPet", rowID: -7))
    }

    @Test(arguments: IDCodingFormat.allCases)
    func randomIDsRoundTrip(format: IDCodingFormat) throws {
        var generator = IDGenerator(random: SplitMix64(seed: 0x1D5))
        for round in 0..<200 {
            let ids = (0..<Int.random(in: 0..<6, using: &generator.random)).map { _ in
                generator.anyID()
            }
            let bookmark = Bookmark(
                pet: generator.petID(), anything: generator.anyID(),
                pets: (0..<3).map { _ in generator.petID() })
            #expect(
                try format.decode([AnyObjectID].self, from: format.encode(ids)) == ids,
                "round \(round)")
            #expect(
                try format.decode(Bookmark.self, from: format.encode(bookmark)) == bookmark,
                "round \(round)")
            for id in ids {
                #expect(try AnyObjectID(parsing: id.description) == id, "round \(round)")
            }
        }
    }

    @Test func parsingAcceptsExactlyTheDescriptions() {
        // Strings put together from pieces whose validity is known: one
        // parses exactly when every piece is valid, and is then its ID's description.
        let names = [
            ("Pet", true), ("a", true), ("Z_9", true), ("", false), ("9a", false),
            ("_a", false), ("é", false), ("Pe t", false), ("sqlite_x", false),
        ]
        let separators = [("/", true), ("", false), ("#", false), ("//", false)]
        let rowIDs = [
            ("0", true), ("42", true), ("-7", true), ("9223372036854775807", true),
            ("-9223372036854775808", true), ("9223372036854775808", false), ("042", false),
            ("+4", false), ("-0", false), ("", false), (" 1", false), ("4a", false),
        ]
        var random = SplitMix64(seed: 0xFA125)
        var parsed = 0
        for _ in 0..<2_000 {
            let (name, nameIsValid) = names.randomElement(using: &random)!
            let (separator, separatorIsValid) = separators.randomElement(using: &random)!
            let (rowID, rowIDIsValid) = rowIDs.randomElement(using: &random)!
            let text = name + separator + rowID
            let valid = nameIsValid && separatorIsValid && rowIDIsValid
            do {
                let id = try AnyObjectID(parsing: text)
                #expect(valid, "\(text) parsed")
                #expect(id.description == text)
                parsed += 1
            } catch StrataError.invalidValue(_, let field, let reason) {
                #expect(!valid, "\(text) refused: \(reason)")
                #expect(field == "ObjectID")
                #expect(text.isEmpty || reason.contains(text), "\(reason)")
            } catch {
                Issue.record("\(text): threw \(error)")
            }
        }
        #expect(parsed > 20, "valid IDs drawn (about 70 expected): \(parsed) of 2,000")
        let malformed = [
            "", "Pet", "Pet/", "/42", "Pet/4/2", "Pet/+42", "Pet/042", "Pet/-0", "Pet/4 2",
            "Pe t/4", "1Pet/4", "_Pet/4", "Pet#42", "Pet/9223372036854775808", "sqlite_x/1",
        ]
        for text in malformed {
            #expect(throws: StrataError.self, "\(text)") { try AnyObjectID(parsing: text) }
        }
    }

    @Test func aTypedIDRefusesAnotherEntity() throws {
        // Without a schema, a typed ID's entity is the class name.
        let pet = try JSONEncoder().encode(ObjectID<CodPet>(entityName: "CodPet", rowID: 3))
        expectDataCorrupted(["CodPet", "CodPerson"]) {
            _ = try JSONDecoder().decode(ObjectID<CodPerson>.self, from: pet)
        }
        #expect(throws: StrataError.self) { try ObjectID<CodPerson>(parsing: "CodPet/3") }
        #expect(throws: StrataError.self) { try ObjectID<CodPerson>(parsing: "People/3") }

        // With one, the schema's name: "People", and only it.
        let people = try JSONEncoder().encode(["People/3"])
        let decoded = try IDCodingFormat.json.decode(
            [ObjectID<CodPerson>].self, from: people, schema: codingSchema)
        #expect(decoded == [ObjectID<CodPerson>(entityName: "People", rowID: 3)])
        #expect(try ObjectID<CodPerson>(parsing: "People/3", in: codingSchema) == decoded[0])
        expectDataCorrupted(["People", "strataSchema"], "without the schema") {
            _ = try JSONDecoder().decode([ObjectID<CodPerson>].self, from: people)
        }
        let byClassName = try JSONEncoder().encode(["CodPerson/3"])
        expectDataCorrupted(["CodPerson", "schema CodV1"]) {
            _ = try IDCodingFormat.json.decode(
                [ObjectID<CodPerson>].self, from: byClassName, schema: codingSchema)
        }
        expectDataCorrupted(["CodPet", "People"]) {
            _ = try IDCodingFormat.json.decode(
                ObjectID<CodPerson>.self, from: pet, schema: codingSchema)
        }
        do {
            _ = try ObjectID<CodPerson>(parsing: "CodPet/3", in: codingSchema)
            Issue.record("parsed an ID of another entity")
        } catch StrataError.invalidValue(let entity, let field, let reason) {
            #expect(entity == "CodPerson")
            #expect(field == "ObjectID")
            #expect(reason.contains("CodPet") && reason.contains("People"), "\(reason)")
        } catch {
            // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
            // catch that lets other errors through.
            throw error
        }
    }

    @Test func aSchemaChecksUntypedIDsToo() throws {
        let data = try JSONEncoder().encode(["Nowhere/1", "CodPet/2"])
        let ids = try JSONDecoder().decode([AnyObjectID].self, from: data)
        #expect(ids.map(\.entityName) == ["Nowhere", "CodPet"])
        expectDataCorrupted(["Nowhere", "CodV1"]) {
            _ = try IDCodingFormat.json.decode([AnyObjectID].self, from: data, schema: codingSchema)
        }
        #expect(throws: StrataError.self) {
            try AnyObjectID(parsing: "Nowhere/1", in: codingSchema)
        }
        expectDataCorrupted(["not an ID"]) {
            _ = try JSONDecoder().decode([AnyObjectID].self, from: Data("[\"Pet#2\"]".utf8))
        }
    }

    @Test func aTypeOutsideTheSchemaIsRefused() throws {
        let other = Schema("Other", entities: [Entity<CodPet>()])
        let data = try JSONEncoder().encode(["CodPerson/1"])
        expectDataCorrupted(["CodPerson", "Other"]) {
            _ = try IDCodingFormat.json.decode(
                [ObjectID<CodPerson>].self, from: data, schema: other)
        }
    }

    @MainActor
    @Test func storedIDsFindTheirObjectsAgainAfterTheirEntityIsRenamed() throws {
        let directory = TemporaryDirectory()
        // The first version's stack is released before the migration opens the file.
        let (ids, data) = try { () throws -> ([ObjectID<CodPerson>], Data) in
            let stack = try makeStack(codingSchema, .file, in: directory)
            let ids = try stack.perform(synchronous: { tx in
                (0..<5).map { index -> ObjectID<CodPerson> in
                    let person = tx.create(Into<CodPerson>())
                    person.name = "p\(index)"
                    return person.objectID
                }
            })
            let data = try IDCodingFormat.json.encode(ids)
            let decoded = try IDCodingFormat.json.decode(
                [ObjectID<CodPerson>].self, from: data, schema: stack.schema)
            #expect(decoded == ids)
            #expect(
                try decoded.map { try stack.fetchExisting($0)?.name } == (0..<5).map { "p\($0)" })
            return (ids, data)
        }()

        // The next version renames "People" to "Humans"; the migration keeps
        // row IDs, so the IDs stored as "People/<n>" still name the same objects.
        let renamed = Schema(
            "CodV2",
            entities: [Entity<CodPerson>("Humans", renamingIdentifier: "People"), Entity<CodPet>()])
        let migrated = DataStack(schemaHistory: SchemaHistory([codingSchema, renamed]))
        try migrated.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory)))
        let read = try IDCodingFormat.json.decode(
            [ObjectID<CodPerson>].self, from: data, schema: migrated.schema)
        #expect(read.map(\.description) == ids.map { "Humans/\($0.rowID)" })
        #expect(try read.map { try migrated.fetchExisting($0)?.name } == (0..<5).map { "p\($0)" })
        #expect(try AnyObjectID(parsing: "People/1", in: renamed).entityName == "Humans")
    }

    /// An `ObjectID<Animal>` of a dog is "ZooDog/<n>": written out and read
    /// back as the base's ID, it must come back as it went, with the schema
    /// or without (the classes are named after their entities), and find its
    /// object; an ID of another branch, or of the base read as a subentity's,
    /// is still refused.
    @Test(arguments: IDCodingFormat.allCases)
    @MainActor
    func aSubentitysIDReadsBackAsItsBasesWithOrWithoutTheSchema(_ format: IDCodingFormat) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        let kinds: [ZooAnimal.Type] = [ZooAnimal.self, ZooDog.self, ZooCat.self, ZooLion.self]
        try stack.perform(synchronous: { tx in
            // One of each kind, then more of random kinds, in a random order.
            let drawn = kinds + (0..<Int.random(in: 0...8, using: &random)).map { _ in
                kinds.randomElement(using: &random)!
            }
            for (index, kind) in drawn.shuffled(using: &random).enumerated() {
                let animal: ZooAnimal = tx.create(Into<ZooAnimal>(kind))
                animal.name = "a\(index)"
            }
        })
        let ids = try stack.fetchObjectIDs(From<ZooAnimal>())
        let seed = "seed \(random.seed), IDs \(ids)"
        let data = try format.encode(ids)
        for schema in [nil, stack.schema] {
            let decoded = try format.decode([ObjectID<ZooAnimal>].self, from: data, schema: schema)
            #expect(decoded == ids, "\(seed), schema \(schema != nil)")
            let parsed = try ids.map { try ObjectID<ZooAnimal>(parsing: $0.description, in: schema) }
            #expect(parsed == ids, "\(seed), schema \(schema != nil)")
            #expect(try stack.fetchExisting(decoded).map(\.objectID) == ids, "\(seed)")
            // A lion is a cat; a dog is not, and an animal is neither.
            for id in ids {
                let asCat = try? ObjectID<ZooCat>(parsing: id.description, in: schema)
                #expect((asCat != nil) == ["ZooCat", "ZooLion"].contains(id.entityName), "\(id) \(seed)")
                let asDog = try? ObjectID<ZooDog>(parsing: id.description, in: schema)
                #expect((asDog != nil) == (id.entityName == "ZooDog"), "\(id) \(seed)")
            }
        }
    }
}
