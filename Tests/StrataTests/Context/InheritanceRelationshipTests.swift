import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Inheritance: relationships, delete rules, uniqueness and bulk writes across a tree")
struct InheritanceRelationshipTests {
    @Test(arguments: StoreKind.allCases)
    func aToManyOfTheBaseHoldsEverySubentityAsItsClass(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        try stack.perform(synchronous: { tx in
            let keeper = tx.create(Into<ZooKeeper>())
            keeper.name = "Kim"
            let dog = tx.create(Into<ZooDog>()), lion = tx.create(Into<ZooLion>()), cat = tx.create(Into<ZooCat>())
            (dog.name, lion.name, cat.name) = ("Rex", "Leo", "Tom")
            keeper.animals = [lion, dog, cat]
            #expect(dog.keeper === keeper, "the inverse follows in the transaction")
        })
        let keeper = try #require(try stack.fetchOne(From<ZooKeeper>()))
        #expect(keeper.animals.map(\.name) == ["Leo", "Rex", "Tom"])
        #expect(keeper.animals.map { ZooKind.of($0) } == [.lion, .dog, .cat])
        #expect(try stack.fetchOne(From<ZooDog>())?.keeper?.name == "Kim")
        // Members leave and move within the ordered relationship.
        try stack.perform(synchronous: { tx in
            let keeper = try #require(tx.edit(keeper))
            keeper.animals = [keeper.animals[2], keeper.animals[0]]
        })
        #expect(keeper.animals.map(\.name) == ["Tom", "Leo"])
        #expect(try stack.fetchOne(From<ZooDog>())?.keeper == nil)
        // A path through the base relationship, from a subentity.
        #expect(try stack.fetchCount(From<ZooCat>().where(\.$keeper ~ \.$name == "Kim")) == 2)
        #expect(try stack.fetchCount(From<ZooKeeper>().where(.any(\.$animals, \.$legs == 4))) == 1)
    }

    @Test(arguments: [false, true])
    func deleteRulesReachEverySubentityAndTheRelationshipsSubentitiesDeclare(bulk: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let keeper = tx.create(Into<ZooKeeper>())
            let other = tx.create(Into<ZooKeeper>())
            let dog = tx.create(Into<ZooDog>())
            dog.keeper = keeper
            for label in ["ball", "bone"] {
                let toy = tx.create(Into<ZooToy>())
                toy.label = label
                toy.dog = dog
            }
            let lion = tx.create(Into<ZooLion>())
            lion.keeper = keeper
            other.favorite = dog          // no inverse: cleared when the dog goes
            tx.create(Into<ZooCat>()).keeper = other
        })
        try stack.perform(synchronous: { tx in
            if bulk {
                _ = try tx.deleteAll(From<ZooKeeper>().where(\.$favorite == nil))
            } else {
                tx.delete(try #require(try tx.fetchOne(From<ZooKeeper>().where(\.$favorite == nil))))
            }
        })
        #expect(try stack.fetchAll(From<ZooAnimal>()).map { ZooKind.of($0) } == [.cat], "bulk: \(bulk)")
        #expect(try stack.fetchCount(From<ZooToy>()) == 0, "the dog's own relationship cascades (bulk: \(bulk))")
        #expect(try stack.fetchOne(From<ZooKeeper>())?.favorite == nil, "bulk: \(bulk)")
    }

    @Test
    func aUniqueFieldOfTheBaseIsUniqueAcrossTheTree() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<ZooDog>()).tag = "A1" })
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in tx.create(Into<ZooLion>()).tag = "A1" })
        }
        guard case .uniqueConstraintViolation(_, let fields)? = error else {
            Issue.record("expected a unique violation, got \(String(describing: error))")
            return
        }
        #expect(fields == ["tag"])
        // Other entities' fields hold NULL in a dog's row, never their defaults.
        try stack.perform(synchronous: { tx in tx.create(Into<ZooCat>()).tag = "B2" })
        #expect(try stack.fetchCount(From<ZooAnimal>()) == 2)
    }

    @Test
    func bulkWritesOfABaseReachEverySubentityAndNameEachRowsEntity() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .file, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            ZooKind.allCases.flatMap { kind in (0..<2).map { _ in kind.create(in: tx).objectID } }
        })
        let tx = try stack.beginUnsafe()
        #expect(try tx.updateAll(From<ZooAnimal>(), .set(\.$legs, to: 3)) == 8)
        let updated = try #require(try tx.commitAndWait())
        #expect(updated.entityNames == ["ZooAnimal", "ZooDog", "ZooCat", "ZooLion"])
        #expect(updated.updatedIDs(entity: "ZooAnimal") == Set(ids.map(\.erased)))
        #expect(updated.updatedIDs(entity: "ZooCat").map(\.entityName).sorted() == ["ZooCat", "ZooCat", "ZooLion", "ZooLion"])
        #expect(updated.updatedIDs(Entity<ZooCat>("ZooCat")).count == 4)
        #expect(try stack.fetchAll(From<ZooAnimal>()).allSatisfy { $0.legs == 3 })
        // A held object takes the bulk write's value and keeps its class.
        let lion = try #require(try tx.fetchOne(From<ZooLion>()))
        #expect(try tx.deleteAll(From<ZooCat>()) == 4)
        #expect(lion.isDeletedObject)
        let deleted = try #require(try tx.commitAndWait())
        #expect(deleted.entityNames == ["ZooCat", "ZooLion"])
        #expect(deleted.deletedRowIDs(entity: "ZooLion").count == 2)
        #expect(deleted.deletedIDs(entity: "ZooAnimal").count == 4)
        #expect(deleted.changedFields(of: ids[0].erased).isEmpty)
        #expect(try stack.fetchAll(From<ZooAnimal>()).map { ZooKind.of($0) }.sorted { "\($0)" < "\($1)" } == [.animal, .animal, .dog, .dog])
        // The commit log records each row under its own entity.
        let history = try stack.history(after: 0)
        #expect(history.last?.entityNames == ["ZooCat", "ZooLion"])
        #expect(history.last?.deletedRowIDs(entity: "ZooLion").count == 2)
    }
}
