import Foundation
@testable import Strata
import Testing

// A tree of shapes whose circles are also kept in a "Drawings" store that
// holds no other shape: there, a circle is an entity of its own, in a table
// of its own, with the fields it inherits.

class CfgShape: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("size", .indexed) var size: Int = 0
}

final class CfgCircle: CfgShape {
    @Field.Stored("radius") var radius: Double = 1
}

final class CfgSquare: CfgShape {
    @Field.Stored("side") var side: Double = 1
}

private let shapeSchema = Schema("CfgShapes", entities: [
    Entity<CfgShape>("CfgShape"),
    Entity<CfgCircle>("CfgCircle", configurations: ["Drawings"]),
    Entity<CfgSquare>("CfgSquare"),
])

@MainActor
@Suite("Configurations: a subentity in a store without its base")
struct ConfigurationInheritanceTests {
    @Test
    func aConfigurationWithoutTheBaseGivesTheSubentityATableOfItsOwn() throws {
        let drawings = shapeSchema.restricted(to: "Drawings")
        #expect(drawings.entityNames == ["CfgCircle"])
        let circle = try #require(drawings.entity(for: CfgCircle.self))
        #expect(circle.tableName == "CfgCircle")
        #expect(circle.slot(of: "name") != nil && circle.slot(of: "size") != nil && circle.slot(of: "radius") != nil)
        // In the default store the circle shares its base's table.
        #expect(shapeSchema.entity(of: CfgCircle.self).tableName == "CfgShape")
    }

    @Test(arguments: StoreKind.allCases)
    func fetchesIDsAndCommitsReachTheSubentityInBothLayouts(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = DataStack(shapeSchema)
        for configuration in [nil, "Drawings"] as [String?] {
            let storage: any StorageInterface = kind == .inMemory
                ? InMemoryStore(configuration: configuration)
                : SQLiteStore(fileURL: directory.file("\(configuration ?? "Default").sqlite"), configuration: configuration)
            try stack.addStorageAndWait(storage)
        }
        // One transaction writes both layouts.
        let drawn = try stack.perform(synchronous: { tx in
            for (index, name) in ["a", "b"].enumerated() {
                let shape = tx.create(Into<CfgShape>(nil))
                (shape.name, shape.size) = (name, index * 10)
                let square = tx.create(Into<CfgSquare>(nil))
                (square.name, square.size) = ("square " + name, index * 10 + 1)
                let circle = tx.create(Into<CfgCircle>(nil))
                (circle.name, circle.size, circle.radius) = ("circle " + name, index * 10 + 2, 2)
            }
            return (0..<3).map { index in
                let circle = tx.create(Into<CfgCircle>("Drawings"))
                (circle.name, circle.size, circle.radius) = ("drawn \(index)", index * 10 + 5, Double(index))
                return circle.objectID
            }
        })
        #expect(drawn.allSatisfy { $0.configuration == "Drawings" && $0.entityName == "CfgCircle" })
        // The base reads the default store only: the Drawings store has no shapes.
        let shapes = try stack.fetchAll(From<CfgShape>().orderBy(.ascending(\.$size)))
        #expect(shapes.map(\.size) == [0, 1, 2, 10, 11, 12])
        #expect(shapes.map { String(describing: type(of: $0)) }
            == ["CfgShape", "CfgSquare", "CfgCircle", "CfgShape", "CfgSquare", "CfgCircle"])
        // Circles come from both stores, merged by the sort, inherited fields included.
        let circles = try stack.fetchAll(From<CfgCircle>().orderBy(.ascending(\.$size)))
        #expect(circles.map(\.size) == [2, 5, 12, 15, 25])
        #expect(circles.map { $0.objectID.configuration } == [nil, "Drawings", nil, "Drawings", "Drawings"])
        #expect(try stack.fetchCount(From<CfgCircle>("Drawings").where(\.$name == "drawn 1")) == 1)
        #expect(try stack.fetchAll(From<CfgCircle>("Drawings").where(\.$radius >= 1)).map(\.name).sorted()
            == ["drawn 1", "drawn 2"])
        #expect(try stack.fetchExisting(drawn[2])?.radius == 2)
        // Edits by ID and bulk writes over both stores commit together.
        try stack.perform(synchronous: { tx in
            tx.edit(drawn[0])?.name = "renamed"
            try tx.updateAll(From<CfgCircle>(), .set(\.$radius, to: 9))
        })
        #expect(try stack.fetchAll(From<CfgCircle>()).allSatisfy { $0.radius == 9 })
        #expect(try stack.fetchExisting(drawn[0])?.name == "renamed")
        #expect(try stack.perform(synchronous: { tx in try tx.deleteAll(From<CfgShape>().where(\.$size < 10)) }) == 3)
        #expect(try stack.fetchCount(From<CfgCircle>()) == 4)
    }

    /// A base entity kept in two stores: every read of it without
    /// subentities, counts over both stores included, sees the base's own
    /// objects only.
    @Test(arguments: StoreKind.allCases)
    func readsWithoutSubentitiesOverSeveralStoresKeepThemOut(_ kind: StoreKind) throws {
        let schema = Schema("CfgShapes2", entities: [
            Entity<CfgShape>("CfgShape", configurations: ["Drawings"]),
            Entity<CfgCircle>("CfgCircle", configurations: ["Drawings"]),
            Entity<CfgSquare>("CfgSquare"),
        ])
        let directory = TemporaryDirectory()
        let stack = DataStack(schema)
        for configuration in [nil, "Drawings"] as [String?] {
            try stack.addStorageAndWait(configurationStorage(configuration, kind, in: directory))
        }
        // A transaction per store: PostgreSQL stores do not commit together.
        for configuration in [nil, "Drawings"] as [String?] {
            try stack.perform(synchronous: { tx in
                for size in 0..<3 {
                    tx.create(Into<CfgShape>(configuration)).size = size
                    tx.create(Into<CfgCircle>(configuration)).size = size
                }
            })
        }
        let own = From<CfgShape>().tweak { $0.includesSubentities = false }
        #expect(try stack.fetchAll(own).allSatisfy { type(of: $0) == CfgShape.self })
        #expect(try stack.fetchAll(own).count == 6)
        #expect(try stack.fetchCount(own) == 6)
        #expect(try stack.fetchCount(own.where(\.$size >= 1).tweak { $0.fetchLimit = 3 }) == 3)
        #expect(try stack.fetchCount(own.tweak { $0.fetchOffset = 4 }) == 2)
        #expect(try stack.fetchCount(From<CfgShape>()) == 12)
    }
}

