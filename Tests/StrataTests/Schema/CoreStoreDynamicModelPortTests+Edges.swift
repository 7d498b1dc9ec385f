import Foundation
import Testing

@testable import Strata

/// Edges of CoreStore's `DynamicModelTests` model a CoreStore user meets:
/// an ordered to-many is an ordered set (Core Data's `NSOrderedSet`), an
/// object may be related to itself, an optional coded field holds `nil`
/// rather than its default, and a commit reports the other side of every
/// relationship it changed.
@Suite("CoreStore port: DynamicModelTests, edges of the model")
struct CoreStoreDynamicModelPortEdgeTests {
    /// CoreStore keeps `[Dog]` in an `NSOrderedSet`: a dog given twice is
    /// kept once, where it first came (Transactions.md, Rule 7).
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anOrderedToManyKeepsEachObjectOnceWhereItFirstCame(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let dogs = ["a", "b", "c"].map { name in
                let dog = tx.create(Into<DynPortDog>())
                dog.nickname = name
                return dog
            }
            dogs[0].friends = [dogs[1], dogs[2], dogs[1], dogs[0]]
            #expect(dogs[0].friends.map(\.nickname) == ["b", "c", "a"])
            dogs[0].friends.append(dogs[2])
            #expect(dogs[0].friends.map(\.nickname) == ["b", "c", "a"])
            #expect(dogs[2].friendedBy == [dogs[0]])
            return dogs.map(\.objectID)
        })
        let a = try #require(try stack.fetchExisting(ids[0]))
        #expect(a.friends.map(\.nickname) == ["b", "c", "a"])
        try stack.perform(synchronous: { tx in
            let a = try #require(tx.edit(ids[0]))
            let c = try #require(tx.edit(ids[2]))
            a.friends.insert(c, at: 0)
            #expect(a.friends.map(\.nickname) == ["c", "b", "a"])
        })
        #expect(a.friends.map(\.nickname) == ["c", "b", "a"])
    }

    /// A person who is their own spouse, a dog who is its own friend: both
    /// can be deleted, and the others' relationships lose them.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func objectsRelatedToThemselvesCanBeDeleted(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let narcissus = tx.create(Into<DynPortPerson>())
            narcissus.spouse = narcissus
            let rex = tx.create(Into<DynPortDog>())
            let spot = tx.create(Into<DynPortDog>())
            rex.friends = [rex, spot]
            spot.friends = [rex]
            rex.master = narcissus
            return (person: narcissus.objectID, rex: rex.objectID, spot: spot.objectID)
        })
        let spot = try #require(try stack.fetchExisting(ids.spot))
        #expect(spot.friends.map(\.objectID) == [ids.rex])
        try stack.perform(synchronous: { tx in
            tx.delete(ids.person)
            tx.delete(ids.rex)
        })
        #expect(try stack.fetchCount(From<DynPortPerson>()) == 0)
        #expect(try stack.fetchAll(From<DynPortAnimal>()).map(\.objectID) == [ids.spot.asAnimal])
        #expect(spot.friends.isEmpty && spot.friendedBy.isEmpty)
    }

    /// `color` is optional with a default: `nil` set is `nil` read back,
    /// not the default.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anOptionalCodedFieldSetToNilStaysNil(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let animal = tx.create(Into<DynPortAnimal>())
            animal.color = nil
            #expect(animal.color == nil)
            return animal.objectID
        })
        let animal = try #require(try stack.fetchExisting(id))
        #expect(animal.color == nil)
        #expect(animal.asSnapshot(in: stack)?.$color == nil)
        try stack.perform(synchronous: { tx in tx.edit(id)?.color = .yellow })
        #expect(animal.color == DynPortColor.yellow)
    }

    /// A commit lists the objects on the other side of each relationship it
    /// changed, and the names of their changed relationships: the new and
    /// the unhooked spouse, the new friend, the old and the new master.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func aCommitListsTheOtherSideOfEveryRelationshipItChanged(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let people = (0..<3).map { _ in tx.create(Into<DynPortPerson>()) }
            people[0].spouse = people[1]
            let dogs = (0..<2).map { _ in tx.create(Into<DynPortDog>()) }
            dogs[0].master = people[0]
            return (people: people.map(\.objectID), dogs: dogs.map(\.objectID))
        })
        let tx = try stack.beginUnsafe()
        let people = try ids.people.map { try #require(tx.edit($0)) }
        let dogs = try ids.dogs.map { try #require(tx.edit($0)) }
        people[2].spouse = people[1]
        dogs[0].friends = [dogs[1]]
        dogs[0].master = people[2]
        let changes = try #require(try tx.commitAndWait())
        func fields(_ id: ObjectID<some ManagedObject>) -> Set<String> {
            changes.changedFields(of: id.erased)
        }
        #expect(fields(ids.people[0]) == ["spouse", "pets"])
        #expect(fields(ids.people[1]) == ["spouseInverse"])
        #expect(fields(ids.people[2]) == ["spouse", "pets"])
        #expect(fields(ids.dogs[0]) == ["friends", "master"])
        #expect(fields(ids.dogs[1]) == ["friendedBy"])
        #expect(changes.updatedIDs(entity: "Person") == Set(ids.people.map(\.erased)))
        #expect(changes.updatedIDs(entity: "Dog") == Set(ids.dogs.map(\.erased)))
    }

    /// Assigning a person's pets takes each pet from its previous master.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func assigningPetsTakesThemFromTheirPreviousMaster(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            let john = tx.create(Into<DynPortPerson>())
            let jane = tx.create(Into<DynPortPerson>())
            let dog = tx.create(Into<DynPortDog>())
            let bird = tx.create(Into<DynPortAnimal>())
            john.pets = [dog, bird]
            jane.pets = [dog]
            #expect(john.pets == [bird])
            #expect(dog.master === jane)
            return (john: john.objectID, jane: jane.objectID, dog: dog.objectID)
        })
        #expect(try stack.fetchExisting(ids.john)?.pets.count == 1)
        #expect(try stack.fetchExisting(ids.jane)?.pets.map(\.objectID) == [ids.dog.asAnimal])
        #expect(try stack.fetchExisting(ids.dog)?.master?.objectID == ids.jane)
    }
}

/// Undo over the model's relationships with themselves, as Core Data's
/// undo manager takes back a change and the inverse it made.
@Suite("CoreStore port: DynamicModelTests, undo over self-relationships")
struct CoreStoreDynamicModelPortUndoTests {
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func undoPutsBackBothSidesOfSpousesAndFriends(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let people = (0..<3).map { _ in tx.create(Into<DynPortPerson>()) }
        let dogs = ["a", "b", "c"].map { name in
            let dog = tx.create(Into<DynPortDog>())
            dog.nickname = name
            return dog
        }
        people[0].spouse = people[1]
        dogs[0].friends = [dogs[1], dogs[2]]
        try tx.flush()
        people[2].spouse = people[1]
        dogs[0].friends.insert(dogs[2], at: 0)
        dogs[1].friends = [dogs[0]]
        try tx.flush()
        #expect(people[0].spouse == nil && people[1].spouseInverse === people[2])
        #expect(dogs[0].friends.map(\.nickname) == ["c", "b"])

        tx.undo()
        #expect(people[0].spouse === people[1] && people[1].spouseInverse === people[0])
        #expect(people[2].spouse == nil)
        #expect(dogs[0].friends.map(\.nickname) == ["b", "c"])
        #expect(dogs[1].friends.isEmpty && dogs[0].friendedBy.isEmpty)
        tx.undo()
        #expect(people[0].spouse == nil && people[1].spouseInverse == nil)
        #expect(dogs[0].friends.isEmpty && dogs[1].friendedBy.isEmpty)
        tx.redo()
        tx.redo()
        #expect(people[1].spouseInverse === people[2] && people[0].spouse == nil)
        #expect(dogs[0].friends.map(\.nickname) == ["c", "b"])
        #expect(dogs[0].friendedBy.map(\.nickname) == ["b"])
        try tx.commitAndWait()
        let committed = try #require(
            try stack.fetchOne(From<DynPortDog>().where(\.$nickname == "a")))
        #expect(committed.friends.map(\.nickname) == ["c", "b"])
        #expect(try stack.fetchCount(From<DynPortPerson>().where(\.$spouse != nil)) == 1)
    }
}
