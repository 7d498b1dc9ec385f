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

@MainActor
@Suite("Inheritance: importing objects of a subentity")
struct InheritanceImportTests {
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
