import Foundation
import Testing

@testable import Strata

/// The relationships of CoreStore's `DynamicModelTests` model: a person's
/// pets (a to-many to the base entity, holding dogs), the person's spouse (a
/// one-to-one with itself) and a dog's friends (an ordered to-many from a
/// subentity to itself, with an unordered inverse). CoreStore's test sets
/// the pets only; these hold each relationship and its inverse as Core Data
/// keeps them, in the transaction and after the commit.
@Suite("CoreStore port: DynamicModelTests, relationships")
struct CoreStoreDynamicModelPortRelationshipTests {
    /// Pets are animals: a dog among them is read back as a dog, and moving
    /// a pet to another master takes it from the first one's pets.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func petsHoldDogsAsDogsAndFollowTheirMaster(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let john = tx.create(Into<DynPortPerson>())
            john.name = "John"
            let jane = tx.create(Into<DynPortPerson>())
            jane.name = "Jane"
            let dog = tx.create(Into<DynPortDog>())
            let bird = tx.create(Into<DynPortAnimal>())
            john.pets.insert(dog)
            bird.master = john
            #expect(john.pets == [dog, bird])
            #expect(dog.master === john && bird.master === john)
            return (
                john: john.objectID, jane: jane.objectID, dog: dog.objectID, bird: bird.objectID
            )
        })
        let john = try #require(try stack.fetchExisting(ids.john))
        let jane = try #require(try stack.fetchExisting(ids.jane))
        #expect(Set(john.pets.map(\.objectID)) == [ids.dog.asAnimal, ids.bird])
        #expect(john.pets.compactMap { $0 as? DynPortDog }.map(\.objectID) == [ids.dog])
        #expect(jane.pets.isEmpty)

        try stack.perform(synchronous: { tx in
            let dog = try #require(tx.edit(ids.dog))
            let jane = try #require(tx.edit(ids.jane))
            dog.master = jane
            #expect(jane.pets.map(\.objectID) == [ids.dog.asAnimal])
            #expect(try #require(tx.edit(ids.john)).pets.map(\.objectID) == [ids.bird])
        })
        #expect(john.pets.map(\.objectID) == [ids.bird])
        #expect(jane.pets.map(\.objectID) == [ids.dog.asAnimal])
        #expect(try stack.fetchCount(From<DynPortDog>().where(\.$master == jane)) == 1)

        // Deleting a master nullifies its pets' master (the default rule).
        try stack.perform(synchronous: { tx in tx.delete(ids.jane) })
        #expect(try stack.fetchExisting(ids.dog)?.master == nil)
        #expect(try stack.fetchCount(From<DynPortAnimal>()) == 2)
    }

    /// `spouse` and its inverse make a one-to-one relationship of a person
    /// with another: marrying a third person to the same spouse unlinks the
    /// first, on both sides; a person may be their own spouse.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aSpouseIsOneToOneAndTheInverseFollows(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let a = tx.create(Into<DynPortPerson>())
            let b = tx.create(Into<DynPortPerson>())
            let c = tx.create(Into<DynPortPerson>())
            a.spouse = b
            #expect(b.spouseInverse === a)
            c.spouse = b
            #expect(b.spouseInverse === c)
            #expect(a.spouse == nil, "b is one person's spouse only")
            a.spouse = a
            #expect(a.spouseInverse === a)
            return [a.objectID, b.objectID, c.objectID]
        })
        func linked() throws -> [String] {
            try ids.map { id in
                let person = try #require(try stack.fetchExisting(id))
                let spouse = person.spouse.map { ids.firstIndex(of: $0.objectID)! }
                let inverse = person.spouseInverse.map { ids.firstIndex(of: $0.objectID)! }
                return "\(spouse.map(String.init) ?? "-")/\(inverse.map(String.init) ?? "-")"
            }
        }
        #expect(try linked() == ["0/0", "-/2", "1/-"])

        try stack.perform(synchronous: { tx in
            let b = try #require(tx.edit(ids[1]))
            b.spouseInverse = nil
            let c = try #require(tx.edit(ids[2]))
            #expect(c.spouse == nil)
            b.spouse = c
        })
        #expect(try linked() == ["0/0", "2/-", "-/1"])
    }

    /// `friends` is ordered and keeps the order it is given through the
    /// commit; `friendedBy`, its unordered inverse, follows every change,
    /// and a friend added from that side comes last in the friends.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func friendsKeepTheirOrderAndFriendedByFollows(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let dogs = (0..<4).map { index in
                let dog = tx.create(Into<DynPortDog>())
                dog.nickname = "dog\(index)"
                return dog
            }
            dogs[0].friends = [dogs[2], dogs[1], dogs[0]]
            #expect(dogs[1].friendedBy == [dogs[0]])
            #expect(dogs[0].friendedBy == [dogs[0]])
            dogs[1].friends.append(dogs[2])
            #expect(dogs[2].friendedBy == [dogs[0], dogs[1]])
            dogs[3].friendedBy.insert(dogs[0])
            #expect(dogs[0].friends == [dogs[2], dogs[1], dogs[0], dogs[3]])
            return dogs.map(\.objectID)
        })
        func names(_ dogs: some Sequence<DynPortDog>) -> [String] { dogs.map(\.nickname) }
        let dogs = try ids.map { try #require(try stack.fetchExisting($0)) }
        #expect(names(dogs[0].friends) == ["dog2", "dog1", "dog0", "dog3"])
        #expect(names(dogs[1].friends) == ["dog2"])
        #expect(names(dogs[2].friendedBy).sorted() == ["dog0", "dog1"])
        #expect(names(dogs[0].friendedBy) == ["dog0"])

        try stack.perform(synchronous: { tx in
            let first = try #require(tx.edit(ids[0]))
            let second = try #require(tx.edit(ids[1]))
            first.friends = [first, try #require(tx.edit(ids[3])), try #require(tx.edit(ids[2]))]
            #expect(second.friendedBy.isEmpty)
            second.friends.insert(first, at: 0)
            #expect(first.friendedBy.map(\.nickname).sorted() == ["dog0", "dog1"])
        })
        #expect(names(dogs[0].friends) == ["dog0", "dog3", "dog2"])
        #expect(names(dogs[1].friends) == ["dog0", "dog2"])
        #expect(dogs[1].friendedBy.isEmpty)
        #expect(names(dogs[0].friendedBy).sorted() == ["dog0", "dog1"])

        // Deleting a dog takes it out of every list it was in, keeping the others' order.
        try stack.perform(synchronous: { tx in tx.delete(ids[2]) })
        #expect(names(dogs[0].friends) == ["dog0", "dog3"])
        #expect(names(dogs[1].friends) == ["dog0"])
        let refetched = try #require(
            try stack.fetchOne(From<DynPortDog>().where(\.$nickname == "dog0")))
        #expect(names(refetched.friends) == ["dog0", "dog3"])
        #expect(
            try stack.fetchCount(From<DynPortDog>().where(.any(\.$friends, \.$nickname == "dog3")))
                == 1)
    }
}

extension ObjectID where Object == DynPortDog {
    /// The same object as an animal, to compare with a to-many of animals.
    var asAnimal: ObjectID<DynPortAnimal> { erased.typed(as: DynPortAnimal.self) }
}
