import Foundation
import Testing

@testable import Strata

/// CoreStore's `DynamicModelTests`: its two transactions (one writes an
/// animal, a dog and a person, the next reads them back and queries them by
/// their fields), the publisher it reads in between, and the field
/// observations it makes on the dog.
@Suite("CoreStore port: DynamicModelTests, transactions and queries")
struct CoreStoreDynamicModelPortTransactionTests {
    /// The whole of CoreStore's test, its two asynchronous transactions in order.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func whatOneTransactionWritesTheNextReadsBackAndQueries(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        try await stack.perform { tx in
            let animal = tx.create(Into<DynPortAnimal>())
            animal.species = "Sparrow"
            #expect(animal.species == "Sparrow")
            animal.color = .yellow
            #expect(animal.color == DynPortColor.yellow)

            let dog = tx.create(Into<DynPortDog>())
            dog.species = "Dog"
            dog.nickname = "Spot"
            #expect(dog.species == "Dog" && dog.nickname == "Spot")

            let person = tx.create(Into<DynPortPerson>())
            person.name = "John"
            person.title = "Sir"
            person.customField.string = "newCustomString"
            person.job = .engineer
            person.pets.insert(dog)
            #expect(person.pets.count == 1)
            #expect(person.pets.first === dog)
            #expect(person.pets.first?.master === person)
            #expect(dog.master === person)
            #expect(dog.master?.pets.first === dog)
        }

        let person = try #require(try stack.fetchOne(From<DynPortPerson>()))
        let publisher = try person.asPublisher(in: stack)
        #expect(publisher.$name == "John")
        #expect(publisher.$title == "Sir")
        #expect(publisher.$job == .engineer)
        #expect(person.displayName == "Sir John")

        try await stack.perform { tx in
            let isSparrow = Where<DynPortAnimal>(\.$species == "Sparrow")
            let bird = try #require(try tx.fetchOne(From<DynPortAnimal>(), isSparrow))
            #expect(!(bird is DynPortDog))
            #expect(bird.species == "Sparrow")
            #expect(bird.color == DynPortColor.yellow)

            let dog = try #require(try tx.fetchOne(From<DynPortDog>().where(\.$nickname == "Spot")))
            #expect(dog.nickname == "Spot")
            #expect(dog.species == "Dog")
            #expect(dog.color == DynPortColor.blue)

            let person = try #require(try tx.fetchOne(From<DynPortPerson>()))
            #expect(person.name == "John")
            #expect(person.title == "Sir")
            #expect(person.displayName == "Sir John")
            #expect(person.customField.string == "customString")
            #expect(person.job == .engineer)
            #expect(person.pets.first === dog, "one object per row in a context")

            #expect(try tx.queryValue(From<DynPortDog>().select(Int.self, .sum(\.$age))) == 1)
            #expect(try tx.fetchCount(From<DynPortAnimal>()) == 2, "the dog is an animal too")
            #expect(try tx.fetchAll(From<DynPortAnimal>().where(\.$master == person)) == [dog])

            // CoreStore's fetches that mix a base and a subentity's fields.
            // Strata's `&&` joins clauses of one entity, so the base entity's
            // clause goes in a clause list, where it refines the dog's fetch.
            #expect(
                try tx.fetchAll(
                    From<DynPortDog>(), Where<DynPortAnimal>(\.$species == "Dog"),
                    Where<DynPortDog>(\.$age == 10)
                ).isEmpty)
            #expect(
                try tx.fetchAll(
                    From<DynPortDog>(), Where<DynPortAnimal>(\.$species == "Dog"),
                    Where<DynPortDog>(\.$age == 1)) == [dog])
            #expect(
                try tx.fetchAll(
                    From<DynPortDog>().where(\.$age == 1 && \.$species == "Dog").orderBy(
                        .ascending(\.$species))) == [dog])
            #expect(
                try tx.fetchAll(From<DynPortDog>(), Where<DynPortDog>(\.$age > 10 && \.$age <= 15))
                    .isEmpty)
            #expect(
                try tx.fetchAll(From<DynPortDog>(), Where<DynPortDog>(\.$age > 0 && \.$age <= 15))
                    == [dog])
        }
    }

    /// CoreStore compares each `Where` with the `NSPredicate` it means; in
    /// Strata the format string is parsed into the same tree as the key
    /// path's, and the two are equal.
    @Test
    func keyPathClausesEqualTheFormatStringsTheyMean() {
        #expect(
            Where<DynPortAnimal>(\.$species == "Sparrow")
                == Where<DynPortAnimal>("%K == %@", "species", "Sparrow"))
        #expect(
            Where<DynPortDog>(\.$nickname == "Spot")
                == Where<DynPortDog>("%K == %@", "nickname", "Spot"))
        #expect(Where<DynPortDog>(\.$age == 10) == Where<DynPortDog>("%K == %d", "age", 10))
        #expect(
            Where<DynPortDog>(\.$species == "Dog")
                == Where<DynPortDog>("%K == %@", "species", "Dog"))
        #expect(Where<DynPortDog>(\.$age == 10) != Where<DynPortDog>("%K == %d", "age", 11))
    }

    /// The shapes of CoreStore's dog queries, over dogs of many ages and two
    /// species: each finds what filtering the dogs in Swift finds, written
    /// with key paths or with format strings.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func theQueryShapesFindWhatFilteringInSwiftFinds(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        try stack.perform(synchronous: { tx in
            for age in 0..<24 {
                let dog = tx.create(Into<DynPortDog>())
                dog.age = age
                dog.species = age.isMultiple(of: 3) ? "Wolf" : "Dog"
            }
            tx.create(Into<DynPortAnimal>()).species = "Dog"
        })
        let dogs = try stack.fetchAll(From<DynPortDog>())
        func ages(_ found: [DynPortDog]) -> [Int] { found.map(\.age).sorted() }
        func expected(_ keep: (DynPortDog) -> Bool) -> [Int] { ages(dogs.filter(keep)) }

        let tenYearOldDogs = expected { $0.species == "Dog" && $0.age == 10 }
        #expect(tenYearOldDogs == [10])
        #expect(
            ages(
                try stack.fetchAll(
                    From<DynPortDog>(), Where<DynPortAnimal>(\.$species == "Dog"),
                    Where<DynPortDog>(\.$age == 10))) == tenYearOldDogs)
        #expect(
            ages(try stack.fetchAll(From<DynPortDog>().where(\.$age == 10 && \.$species == "Dog")))
                == tenYearOldDogs)
        #expect(
            ages(
                try stack.fetchAll(
                    From<DynPortDog>(),
                    Where<DynPortDog>("%K == %@ AND %K == %d", "species", "Dog", "age", 10)))
                == tenYearOldDogs)

        let middle = expected { $0.age > 10 && $0.age <= 15 }
        #expect(middle == [11, 12, 13, 14, 15])
        #expect(
            ages(
                try stack.fetchAll(
                    From<DynPortDog>(), Where<DynPortDog>(\.$age > 10 && \.$age <= 15))) == middle)
        #expect(
            ages(
                try stack.fetchAll(
                    From<DynPortDog>(), Where<DynPortDog>("age > %d AND age <= %d", 10, 15)))
                == middle)

        let wolvesFirst = try stack.fetchAll(
            From<DynPortDog>().where(\.$age >= 10).orderBy(
                .descending(\.$species), .ascending(\.$age)))
        #expect(wolvesFirst.map(\.age) == [12, 15, 18, 21, 10, 11, 13, 14, 16, 17, 19, 20, 22, 23])

        #expect(
            try stack.queryValue(From<DynPortDog>().select(Int.self, .sum(\.$age)))
                == (0..<24).reduce(0, +))
        #expect(try stack.fetchCount(From<DynPortAnimal>().where(\.$species == "Dog")) == 17)
        #expect(try stack.fetchCount(From<DynPortDog>().where(\.$species == "Dog")) == 16)
    }

    /// CoreStore's two observations of the dog's species, one with `.prior`.
    /// Strata observes main-context objects, after the commit is merged, so
    /// the dog is fetched on the main context and renamed in a transaction;
    /// both reports of the `.prior` observation come after the merge, and
    /// the object already holds the new value at the prior one
    /// (ComingFromCoreStore.md, "Observing"), where KVO's prior report sees
    /// the old one. `FieldChange` has no `kind`.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func observationsReportTheChangeAndThePriorOneBeforeIt(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<DynPortDog>()).objectID })
        let dog = try #require(try stack.fetchExisting(id))

        var didSet: [String] = []
        var willSet: [String] = []
        let didSetObserver = dog.observe(\.$species, options: [.new, .old]) { object, change in
            #expect(object === dog)
            #expect(!change.isPrior)
            didSet.append(
                "\(change.oldValue ?? "-")->\(change.newValue ?? "-") now \(object.species)")
        }
        let willSetObserver = dog.observe(\.$species, options: [.new, .old, .prior]) {
            object, change in
            #expect(object === dog)
            willSet.append(
                "\(change.isPrior ? "prior " : "")\(change.oldValue ?? "-")->\(change.newValue ?? "-") now \(object.species)"
            )
        }
        try stack.perform(synchronous: { tx in tx.edit(id)?.species = "Dog" })
        #expect(dog.species == "Dog")
        #expect(didSet == ["Swift->Dog now Dog"])
        #expect(willSet == ["prior Swift->- now Dog", "Swift->Dog now Dog"])

        didSetObserver.cancel()
        willSetObserver.cancel()
        try stack.perform(synchronous: { tx in
            let edited = try #require(tx.edit(id))
            edited.species = "Wolf"
            edited.nickname = "Spot"
        })
        #expect(dog.species == "Wolf" && dog.nickname == "Spot")
        #expect(
            didSet.count == 1 && willSet.count == 2, "cancelled observations report nothing more")
    }
}
