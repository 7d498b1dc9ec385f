import Foundation
@testable import Strata
import Testing

/// A dog imported by its tag, a unique field its base entity declares.
extension ZooDog: ImportableUniqueObject {
    static var uniqueIDKeyPath: KeyPath<ZooDog, Field.Stored<String?>> { \.$tag }

    static func uniqueID(from source: [String: String], in transaction: BaseDataTransaction) throws -> String?? {
        source["tag"]
    }

    func didInsert(from source: [String: String], in transaction: BaseDataTransaction) throws {
        try update(from: source, in: transaction)
    }

    func update(from source: [String: String], in transaction: BaseDataTransaction) throws {
        name = source["name"] ?? name
        breed = source["breed"] ?? breed
    }
}

/// A tree whose import hooks are `class func`s a subclass overrides, as
/// CoreStore allows: an import `Into<Parcel>(Crate.self)` asks `Crate`'s.
/// (A unique import needs a final class: `uniqueIDKeyPath` names `Self`.)
class Parcel: ManagedObject, ImportableObject {
    @Field.Stored("code", .unique) var code: String = ""
    @Field.Stored("label") var label: String = ""

    class func shouldInsert(from source: [String: String], in transaction: BaseDataTransaction) -> Bool {
        source["parcel"] != "no"
    }

    class func prepareImport(for sources: [[String: String]], in transaction: BaseDataTransaction) -> String {
        "parcel"
    }

    func didInsert(from source: [String: String], in transaction: BaseDataTransaction) throws {
        code = source["code"] ?? ""
        label = (source["label"] ?? "") + "/" + transaction.importData(for: Parcel.self)
    }
}

final class Crate: Parcel {
    override class func shouldInsert(from source: [String: String], in transaction: BaseDataTransaction) -> Bool {
        source["crate"] != "no"
    }

    override class func prepareImport(for sources: [[String: String]], in transaction: BaseDataTransaction) -> String {
        "crate"
    }
}

private let parcelSchema = Schema("P1", entities: [Entity<Parcel>("Parcel"), Entity<Crate>("Crate")])

@MainActor
@Suite("Inheritance: importing objects of a subentity")
struct InheritanceImportTests {
    /// The hooks are asked of the class the import creates, `Into`'s entity
    /// class (or, importing into an object, the object's class), so a
    /// subclass's `class func` overrides apply; `importData(for:)` still
    /// answers for the declared type.
    @Test
    func hooksAreThoseOfTheClassTheImportCreates() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(parcelSchema, .inMemory, in: directory)
        let sources: [[String: String]] = [
            ["code": "1", "label": "a"], ["code": "2", "label": "b", "parcel": "no"],
            ["code": "3", "label": "c", "crate": "no"],
        ]
        let crateID = try stack.perform(synchronous: { tx in
            let crates = try tx.importObjects(Into<Parcel>(Crate.self), sourceArray: sources)
            #expect(crates.map { [$0.code, $0.label] } == [["1", "a/crate"], ["2", "b/crate"]])
            #expect(crates.allSatisfy { $0 is Crate })
            let one = try tx.importObject(Into<Parcel>(Crate.self), source: ["code": "4", "parcel": "no"])
            #expect(one?.label == "/crate", "Parcel's shouldInsert would decline it")
            #expect(try tx.importObject(Into<Parcel>(Crate.self), source: ["code": "5", "crate": "no"]) == nil)
            let parcels = try tx.importObjects(Into<Parcel>(), sourceArray: sources.map { $0.merging(["code": "p" + $0["code"]!]) { $1 } })
            #expect(parcels.map(\.code) == ["p1", "p3"])
            return crates[0].objectID
        })
        try stack.perform(synchronous: { tx in
            let crate: Parcel = try #require(tx.edit(crateID))
            try tx.importObject(crate, source: ["code": "1", "label": "again", "parcel": "no"])
            #expect(crate.label == "again/crate", "the object's class's hooks")
        })
        #expect(try stack.fetchCount(From<Crate>()) == 3)
        #expect(try stack.fetchCount(From<Parcel>()) == 5)
    }

    @Test
    func uniqueImportsOfASubentityFindItsObjectsInTheTreesTable() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            tx.create(Into<ZooCat>()).tag = "c1"
            _ = try tx.importUniqueObjects(Into<ZooDog>(), sourceArray: [
                ["tag": "d1", "name": "Rex", "breed": "pug"], ["tag": "d2", "name": "Bo"],
            ])
        })
        let updated = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(Into<ZooDog>(), sourceArray: [
                ["tag": "d1", "breed": "lab"], ["tag": "d3", "name": "Zed"],
            ]).map(\.name)
        })
        #expect(updated == ["Rex", "Zed"])
        let dogs = try stack.fetchAll(From<ZooDog>().orderBy(.ascending(\.$tag)))
        #expect(dogs.map(\.tag) == ["d1", "d2", "d3"] && dogs.map(\.breed) == ["lab", "mutt", "mutt"])
        #expect(try stack.fetchCount(From<ZooAnimal>()) == 4)
        // The tag is unique across the tree: a dog cannot take a cat's.
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                _ = try tx.importUniqueObjects(Into<ZooDog>(), sourceArray: [["tag": "c1"]])
            })
        }
    }
}
