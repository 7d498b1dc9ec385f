import Foundation
import Testing

@testable import Strata

/// What CoreStore's `DynamicModelTests` model also promises a CoreStore user
/// beyond its one test: a dog made as an animal is a dog with its own
/// per-object values; snapshots and publishers of its objects carry their
/// relationships; queries reach through the relationships the model declares.
@Suite("CoreStore port: DynamicModelTests, representations and relationship queries")
struct CoreStoreDynamicModelPortRepresentationTests {
    /// `Into<Animal>(Dog.self)` makes a dog: its own defaults and its own
    /// drawn nickname, stored as read.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func aDogMadeAsAnAnimalDrawsItsOwnValues(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let drawn = try stack.perform(synchronous: { tx in
            var nicknames: [ObjectID<DynPortAnimal>: String] = [:]
            for _ in 0..<40 {
                let animal = tx.create(Into<DynPortAnimal>(DynPortDog.self))
                let dog = try #require(animal as? DynPortDog)
                #expect(dog.age == 1 && dog.species == "Swift")
                #expect(DynPortDog.commonNicknames.contains(dog.nickname))
                nicknames[animal.objectID] = dog.nickname
            }
            return nicknames
        })
        #expect(Set(drawn.values).count > 1)
        #expect(try stack.fetchCount(From<DynPortDog>()) == 40)
        for (id, nickname) in drawn {
            #expect((try stack.fetchExisting(id) as? DynPortDog)?.nickname == nickname)
        }
    }

    /// A snapshot of a dog seen as an animal holds the dog's values, its
    /// master and, in order, its friends; a person's snapshot holds both
    /// sides of the one-to-one spouse relationship.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func snapshotsCarryTheRowsFieldsAndRelationships(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let john = tx.create(Into<DynPortPerson>())
            john.name = "John"
            let jane = tx.create(Into<DynPortPerson>())
            jane.name = "Jane"
            jane.spouse = john
            let rex = tx.create(Into<DynPortDog>())
            rex.nickname = "Rex"
            rex.age = 4
            let spot = tx.create(Into<DynPortDog>())
            spot.nickname = "Spot"
            rex.master = john
            rex.friends = [spot, rex]
            return (
                john: john.objectID, jane: jane.objectID, rex: rex.objectID, spot: spot.objectID
            )
        })
        let animal = try #require(try stack.fetchOne(From<DynPortAnimal>().where(\.$master != nil)))
        #expect(animal is DynPortDog)
        let seenAsAnimal = try #require(animal.asSnapshot(in: stack))
        #expect(seenAsAnimal.$species == "Swift")
        #expect(seenAsAnimal.$color == DynPortColor.blue)
        #expect(seenAsAnimal.$master?.objectID == ids.john)
        let values = seenAsAnimal.dictionaryForValues()
        #expect(values["nickname"] == .text("Rex"))
        #expect(values["age"] == .integer(4))

        let rex = try #require(try stack.fetchExisting(ids.rex))
        let snapshot = try #require(rex.asSnapshot(in: stack))
        #expect(snapshot.$friends.map(\.objectID) == [ids.spot, ids.rex])
        #expect(snapshot.$friendedBy.map(\.objectID) == [ids.rex])
        #expect(try rex.asPublisher(in: stack).$nickname == "Rex")

        let john = try #require(try stack.fetchExisting(ids.john)?.asSnapshot(in: stack))
        #expect(john.$spouse == nil)
        #expect(john.$spouseInverse?.objectID == ids.jane)
        #expect(john.$pets.map(\.objectID) == [ids.rex.asAnimal])
        let jane = try #require(try stack.fetchExisting(ids.jane)?.asSnapshot(in: stack))
        #expect(jane.$spouse?.objectID == ids.john)
        #expect(jane.$spouseInverse == nil)
        #expect(jane.dictionaryForValues()["spouse"] == .integer(ids.john.rowID))
    }

    /// Queries through the model's relationships: an inherited to-one's
    /// path from the subentity, the inverse side of the one-to-one, the
    /// ordered friends and their unordered inverse, and a count of each.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func queriesReachThroughEveryRelationshipOfTheModel(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let (john, jane, _) = createDynPortFamily(in: tx)
            tx.create(Into<DynPortAnimal>()).master = john
            return (john: john.objectID, jane: jane.objectID)
        })
        func nicknames(_ query: From<DynPortDog>) throws -> [String] {
            try stack.fetchAll(query.orderBy(.ascending(\.$nickname))).map(\.nickname)
        }
        #expect(try nicknames(From<DynPortDog>().where((\.$master ~ \.$name) == "John")) == ["Max"])
        #expect(try nicknames(From<DynPortDog>().where(\.$master != nil)) == ["Max", "Milo"])
        #expect(
            try nicknames(From<DynPortDog>().where(.any(\.$friends, \.$nickname == "Spot"))) == [
                "Max", "Milo",
            ])
        #expect(
            try nicknames(From<DynPortDog>().where(Where<DynPortDog>.count(\.$friendedBy) >= 2))
                == ["Spot"])
        #expect(
            try nicknames(From<DynPortDog>().where(.any(\.$friendedBy, \.$nickname == "Max"))) == [
                "Milo", "Spot",
            ])
        #expect(
            try stack.fetchCount(From<DynPortAnimal>().where((\.$master ~ \.$name) == "John")) == 2)

        let john = try #require(try stack.fetchExisting(ids.john))
        let jane = try #require(try stack.fetchExisting(ids.jane))
        #expect(
            try stack.fetchAll(From<DynPortPerson>().where(\.$spouse == john)).map(\.objectID) == [
                ids.jane
            ])
        #expect(
            try stack.fetchAll(From<DynPortPerson>().where(\.$spouseInverse == jane)).map(
                \.objectID) == [ids.john])
        #expect(try stack.fetchAll(From<DynPortPerson>().where(\.$spouseInverse == john)).isEmpty)
        #expect(
            try stack.fetchAll(From<DynPortPerson>().where((\.$spouseInverse ~ \.$name) == "Jane"))
                .map(\.objectID) == [ids.john])
        #expect(
            try stack.fetchCount(
                From<DynPortPerson>().where(Where<DynPortPerson>.count(\.$pets) == 2)) == 1)

        let rows = try stack.queryAttributes(
            From<DynPortDog>().select(.attribute(\.$nickname), .count(\.$friends, as: "friends"))
                .orderBy(.ascending(\.$nickname)))
        #expect(
            rows == [
                ["nickname": .text("Max"), "friends": .integer(2)],
                ["nickname": .text("Milo"), "friends": .integer(1)],
                ["nickname": .text("Spot"), "friends": .integer(0)],
            ])
        let byMaster = try stack.fetchAll(
            From<DynPortAnimal>().where(\.$master != nil).orderBy(
                .ascending(\.$master ~ \.$name), .ascending(\.$species)))
        #expect(byMaster.map { $0.master?.name ?? "-" } == ["Jane", "John", "John"])
    }
}
