import Foundation
@testable import Strata
import Testing

@Suite("Inheritance: the schema of a tree, its table, identity and abstract entities")
struct InheritanceTests {
    private func entity(_ name: String, of schema: Schema = zooSchema()) throws -> EntityDescription {
        try #require(schema.entity(named: name))
    }

    /// CoreStore's `entityTypesByName(for:)`: the entities whose class is the
    /// one given or inherits from it, by name; `modelSchema` is the schema.
    @Test
    func entityTypesByNameListsAClassAndItsSubclasses() throws {
        func names(_ type: ManagedObject.Type) -> [String: String] {
            zooSchema().entityTypesByName(for: type).mapValues { String(describing: $0) }
        }
        #expect(names(ZooCat.self) == ["ZooCat": "ZooCat", "ZooLion": "ZooLion"])
        #expect(names(ZooAnimal.self).keys.sorted() == ["ZooAnimal", "ZooCat", "ZooDog", "ZooLion"])
        #expect(names(ManagedObject.self).count == 6)
        #expect(names(ZooToy.self) == ["ZooToy": "ZooToy"])
        #expect(names(ProbeItem.self).isEmpty)
        let stack = DataStack(zooSchema())
        #expect(stack.entityTypesByName(for: ZooDog.self).keys.sorted() == ["ZooDog"])
        #expect(stack.modelSchema.fingerprint == zooSchema().fingerprint)
    }

    @Test
    func aTreeIsOneTableWithADiscriminatorAndEveryEntitysColumns() throws {
        let schema = zooSchema()
        try schema.validate()
        #expect(schema.tables.map(\.name).sorted() == ["ZooAnimal", "ZooKeeper", "ZooToy"])
        let animals = try #require(schema.tables.first { $0.name == "ZooAnimal" })
        #expect(animals.createStatements(in: .sqlite) == [
            #"CREATE TABLE "ZooAnimal" ("_pk" INTEGER PRIMARY KEY, "_entity" TEXT, "name" TEXT, "legs" INTEGER, "#
                + #""tag" TEXT, "keeper" INTEGER, "_order_keeper" INTEGER, "breed" TEXT, "lives" INTEGER, "mane")"#,
            #"CREATE INDEX "ZooAnimal__entity_index" ON "ZooAnimal" ("_entity")"#,
            #"CREATE INDEX "ZooAnimal_legs_index" ON "ZooAnimal" ("legs")"#,
            #"CREATE UNIQUE INDEX "ZooAnimal_tag_unique" ON "ZooAnimal" ("tag")"#,
            #"CREATE INDEX "ZooAnimal_keeper_index" ON "ZooAnimal" ("keeper")"#,
        ])
        // Every entity of the tree reads the same row; each has its own fields.
        let lion = try entity("ZooLion"), dog = try entity("ZooDog"), root = try entity("ZooAnimal")
        #expect(lion.attributes.map(\.name) == root.attributes.map(\.name))
        #expect(lion.fieldAttributes.map(\.name) == ["name", "legs", "tag", "keeper", "_order_keeper", "lives", "mane"])
        #expect(dog.slot(of: "lives") == nil && dog.slot(of: "breed") != nil && root.slot(of: "breed") == nil)
        #expect(dog.relationships["keeper"]?.entity == "ZooAnimal" && dog.relationships["toys"] != nil)
        #expect(try entity("ZooCat").tree?.familyNames == ["ZooCat", "ZooLion"])
        #expect(root.tree?.familyNames == ["ZooDog", "ZooAnimal", "ZooCat", "ZooLion"])
        #expect(root.tree?.filter == nil && lion.tree?.filter == ["ZooLion"])
        #expect(lion.defaultValues[0] == .text("ZooLion") && lion.defaultValues[lion.slot(of: "mane")!] == .real(1.5))
        #expect(lion.defaultValues[root.attributes.firstIndex { $0.name == "breed" }!] == .null)
        #expect(try entity("ZooKeeper").tree == nil)
        #expect(try entity("ZooToy").tree == nil)
    }

    @Test
    func aSchemaWithoutInheritanceKeepsItsTablesAndNoDiscriminator() throws {
        for entity in monitorSchema.entities {
            #expect(entity.tree == nil && entity.ownsTable && entity.fieldAttributes.count == entity.attributes.count)
            #expect(!entity.table.columns.contains { $0.name == EntityTree.discriminatorColumn })
        }
        #expect(!monitorSchema.hasInheritance && monitorSchema.entityFamilies == nil)
    }

    @Test
    func abstractDoesNotChangeTheFingerprintButTheTreeDoes() {
        #expect(zooSchema(abstract: true).fingerprint == zooSchema().fingerprint)
        let flat = Schema("Z1", entities: [Entity<ZooDog>("ZooDog"), Entity<ZooKeeper>("ZooKeeper"), Entity<ZooToy>("ZooToy")])
        #expect(flat.entity(named: "ZooDog")?.tree == nil)
        #expect(flat.fingerprint != zooSchema().fingerprint)
    }

    @Test
    func aSubentityRedeclaringAnInheritedFieldIsAnInvalidSchema() {
        let schema = Schema("V1", entities: [Entity<BadBase>("BadBase"), Entity<BadRedeclaring>("BadRedeclaring")])
        let error = #expect(throws: StrataError.self) { try schema.validate() }
        guard case let .invalidSchema(entity, field, reason)? = error else {
            Issue.record("expected .invalidSchema, got \(String(describing: error))")
            return
        }
        #expect(entity == "BadRedeclaring" && field == "title", "\(reason)")
        #expect(reason.contains("inherits a field of that name from BadBase"), "\(reason)")
    }

    @Test
    func siblingsDeclaringOneFieldNameIsAnInvalidSchema() {
        let schema = Schema("V1", entities: [
            Entity<BadBase>("BadBase"), Entity<BadLeft>("BadLeft"), Entity<BadRight>("BadRight"),
        ])
        let error = #expect(throws: StrataError.self) { try schema.validate() }
        guard case let .invalidSchema(entity, field, reason)? = error else {
            Issue.record("expected .invalidSchema, got \(String(describing: error))")
            return
        }
        #expect(entity == "BadRight" && field == "size", "\(reason)")
        #expect(reason.contains("BadLeft declares a field size too"), "\(reason)")
        // Either one alone is fine.
        #expect(throws: Never.self) {
            try Schema("V1", entities: [Entity<BadBase>("BadBase"), Entity<BadLeft>("BadLeft")]).validate()
        }
    }

    @Test
    func creatingAnObjectOfAnAbstractEntityTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(zooSchema(abstract: true), .inMemory, in: directory)
                try stack.perform(synchronous: { tx in _ = tx.create(Into<ZooAnimal>()) })
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("ZooAnimal is abstract"), "\(message)")
        #expect(message.contains("ZooDog, ZooCat, ZooLion"), "\(message)")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anIDNamesTheConcreteEntityWhateverTypeSeesIt(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(abstract: true), kind, in: directory)
        let (dogID, catID): (ObjectID<ZooAnimal>, ObjectID<ZooCat>) = try stack.perform(synchronous: { tx in
            let dog: ZooAnimal = tx.create(Into<ZooDog>())
            dog.name = "Rex"
            let lion: ZooCat = tx.create(Into<ZooLion>())
            return (dog.objectID, lion.objectID)
        })
        #expect(dogID.entityName == "ZooDog" && catID.entityName == "ZooLion")
        #expect(dogID.rowID != catID.rowID, "one tree, one sequence of row IDs")
        let dog = try #require(try stack.fetchExisting(dogID) as? ZooDog)
        #expect(dog.name == "Rex" && dog.breed == "mutt")
        // One row, one object, whichever entity reached it.
        #expect(try stack.fetchOne(From<ZooDog>()) === dog)
        #expect(try stack.fetchAll(From<ZooAnimal>()).contains { $0 === dog })
        #expect(try stack.fetchExisting(catID) is ZooLion)
        // A dog's row ID named as a cat is no cat.
        #expect(try stack.fetchExisting(ObjectID<ZooCat>(entityName: "ZooCat", rowID: dogID.rowID)) == nil)
        let many = try stack.perform(synchronous: { tx in
            let ids = [ObjectID<ZooCat>(entityName: "ZooCat", rowID: dogID.rowID), catID]
            let cats: [ZooCat] = tx.edit(ids)
            return cats.map(\.objectID)
        })
        #expect(many == [catID])
        let edited = try stack.perform(synchronous: { tx in
            let animal = try #require(tx.edit(dogID))
            animal.legs = 3
            return String(describing: type(of: animal))
        })
        #expect(edited == "ZooDog" && dog.legs == 3)
        // Text forms: a subentity's ID reads as its base's with the schema.
        #expect(try ObjectID<ZooAnimal>(parsing: dogID.description, in: stack.schema) == dogID)
        #expect(throws: StrataError.self) { try ObjectID<ZooCat>(parsing: dogID.description, in: stack.schema) }
    }

    @Test
    @MainActor
    func rowIDsAreNeverReusedAcrossTheTree() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .file, in: directory)
        var seen: Set<Int64> = []
        var random = SplitMix64(seed: 7)
        for round in 0..<20 {
            let ids = try stack.perform(synchronous: { tx in
                let made = (0..<3).map { _ in ZooKind.allCases[Int(random.next() % 4)].create(in: tx).objectID.rowID }
                if round % 3 == 0, let last = try tx.fetchOne(From<ZooAnimal>().orderBy(.descending(\.$legs))) {
                    tx.delete(last)
                }
                return made
            })
            for id in ids { #expect(seen.insert(id).inserted, "row ID \(id) given twice (round \(round))") }
        }
    }
}

class BadBase: ManagedObject {
    @Field.Stored("title") var title: String = ""
}

final class BadRedeclaring: BadBase {
    @Field.Stored("title") var otherTitle: String = ""
}

final class BadLeft: BadBase {
    @Field.Stored("size") var size: Int = 0
}

final class BadRight: BadBase {
    @Field.Stored("size") var size: Double = 0
}
