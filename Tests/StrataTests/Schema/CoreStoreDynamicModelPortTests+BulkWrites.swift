import Foundation
import Testing

@testable import Strata

/// CoreStore's `deleteAll` loads each object and deletes it, so every
/// relationship of CoreStore's `DynamicModelTests` model loses the deleted
/// objects. Strata's bulk writes run in SQL without loading objects; over
/// this model they must leave the same graph: no spouse, master or friend
/// pointing at a deleted row, in the store and in the main context's objects.
@Suite("CoreStore port: DynamicModelTests, bulk writes over the model")
struct CoreStoreDynamicModelPortBulkWriteTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func bulkDeletesAndUpdatesLeaveNoRelationshipToWhatTheyRemoved(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let people = ["Ann", "Bob", "Cy", "Di"].map { name in
                let person = tx.create(Into<DynPortPerson>())
                person.name = name
                return person
            }
            people[0].spouse = people[1]  // Bob's spouseInverse is Ann
            people[2].spouse = people[3]  // Di's spouseInverse is Cy
            let dogs = ["a", "b", "c", "d"].map { name in
                let dog = tx.create(Into<DynPortDog>())
                dog.nickname = name
                return dog
            }
            dogs[0].friends = [dogs[1], dogs[2], dogs[3]]
            dogs[3].friends = [dogs[2], dogs[1]]
            dogs[1].master = people[0]
            dogs[2].master = people[1]
            return (people: people.map(\.objectID), dogs: dogs.map(\.objectID))
        })
        let people = try ids.people.map { try #require(try stack.fetchExisting($0)) }
        let dogs = try ids.dogs.map { try #require(try stack.fetchExisting($0)) }
        #expect(people[1].spouseInverse === people[0])

        // Ann and dog "b" go in SQL; Cy's marriage is undone in SQL.
        try stack.perform(synchronous: { tx in
            #expect(try tx.deleteAll(From<DynPortPerson>().where(\.$name == "Ann")) == 1)
            #expect(try tx.deleteAll(From<DynPortDog>().where(\.$nickname == "b")) == 1)
            // One object matched and changed: Cy; Di, whose key follows, is
            // not counted, as a partner of another entity would not be.
            let unmarried = try tx.updateAll(
                From<DynPortPerson>().where(\.$name == "Cy"), .set(\.$spouse, to: nil))
            #expect(unmarried == 1)
            // Setting it again changes nothing, and counts nothing.
            #expect(
                try tx.updateAll(
                    From<DynPortPerson>().where(\.$name == "Cy"), .set(\.$spouse, to: nil)) == 0)
            // Read in the transaction, after the bulk writes.
            let bob = try #require(tx.edit(ids.people[1]))
            #expect(bob.spouseInverse == nil)
            let di = try #require(tx.edit(ids.people[3]))
            #expect(di.spouseInverse == nil)
            let a = try #require(tx.edit(ids.dogs[0]))
            #expect(a.friends.map(\.nickname) == ["c", "d"])
        })
        #expect(people[1].spouseInverse == nil && people[1].spouse == nil)
        #expect(people[2].spouse == nil && people[3].spouseInverse == nil)
        #expect(dogs[0].friends.map(\.nickname) == ["c", "d"])
        #expect(dogs[3].friends.map(\.nickname) == ["c"])
        #expect(dogs[2].friendedBy.map(\.nickname).sorted() == ["a", "d"])
        #expect(dogs[2].master === people[1])
        #expect(try stack.fetchCount(From<DynPortPerson>().where(\.$spouseInverse != nil)) == 0)
        #expect(try stack.fetchCount(From<DynPortPerson>().where(\.$spouse != nil)) == 0)

        // A second stack on the store reads the same graph.
        if kind != .inMemory {
            let reread = DataStack(dynPortSchema())
            try reread.addStorageAndWait(makeStorage(kind, in: directory))
            let a = try #require(try reread.fetchOne(From<DynPortDog>().where(\.$nickname == "a")))
            #expect(a.friends.map(\.nickname) == ["c", "d"])
            let bob = try #require(
                try reread.fetchOne(From<DynPortPerson>().where(\.$name == "Bob")))
            #expect(bob.spouseInverse == nil && bob.pets.map(\.objectID) == [ids.dogs[2].asAnimal])
        }
    }
}
