import Foundation
import Testing

@testable import Strata

// An earlier version of CoreStore's `DynamicModelTests` model: no nickname,
// friends or job, no spouse. Entity names as in `dynPortSchema()`.

class DynPortV1Animal: ManagedObject {
    @Field.Stored("species") var species: String = "Swift"
    @Field.Coded("color", coder: FieldCoders.NSCoding.self) var color: DynPortColor? = .blue
    @Field.Relationship("master") var master: DynPortV1Person?
}

final class DynPortV1Dog: DynPortV1Animal {
    @Field.Stored("age") var age: Int = 1
}

final class DynPortV1Person: ManagedObject {
    @Field.Stored("title") var title: String = "Mr."
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("pets", inverse: \DynPortV1Animal.$master) var pets: Set<DynPortV1Animal>
}

/// Version 2 is the model of the port; its new fields are drawn per
/// object, as CoreStore draws them when it creates one.
@Suite("CoreStore port: DynamicModelTests, the model added by a migration")
struct CoreStoreDynamicModelPortMigrationTests {
    /// Each existing dog draws its own nickname and each person a job (a
    /// coded field), where Core Data would give every row one default
    /// (ComingFromCoreStore.md, `dynamicInitialValue`); the old values and
    /// relationships stay, and the new relationships start empty.
    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]))
    @MainActor
    func aMigrationDrawsTheNewFieldsForEachExistingRow(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let v1 = Schema(
            "V0",
            entities: [
                Entity<DynPortV1Animal>("Animal"), Entity<DynPortV1Dog>("Dog"),
                Entity<DynPortV1Person>("Person"),
            ])
        do {
            let old = try makeStack(v1, kind, in: directory)
            try old.perform(synchronous: { tx in
                for index in 0..<40 {
                    let person = tx.create(Into<DynPortV1Person>())
                    person.name = "p\(index)"
                    let dog = tx.create(Into<DynPortV1Dog>())
                    dog.age = index
                    dog.color = .yellow
                    dog.master = person
                }
                tx.create(Into<DynPortV1Animal>()).species = "Sparrow"
            })
        }
        let stack = DataStack(
            schemaHistory: SchemaHistory([v1, dynPortSchema()], chain: ["V0", "V1"]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))

        let dogs = try stack.fetchAll(From<DynPortDog>().orderBy(.ascending(\.$age)))
        #expect(dogs.map(\.age) == Array(0..<40))
        #expect(dogs.allSatisfy { DynPortDog.commonNicknames.contains($0.nickname) })
        #expect(Set(dogs.map(\.nickname)).count > 1, "each dog draws its own nickname")
        #expect(dogs.allSatisfy { $0.color == DynPortColor.yellow && $0.species == "Swift" })
        #expect(dogs.allSatisfy { $0.friends.isEmpty && $0.friendedBy.isEmpty })
        #expect(dogs.map { $0.master?.name } == (0..<40).map { "p\($0)" })

        let people = try stack.fetchAll(From<DynPortPerson>())
        #expect(people.count == 40)
        #expect(Set(people.map(\.job)).count > 1, "each person draws their own job")
        #expect(
            people.allSatisfy { $0.spouse == nil && $0.spouseInverse == nil && $0.pets.count == 1 })
        #expect(try stack.fetchCount(From<DynPortAnimal>().where(\.$species == "Sparrow")) == 1)

        // What was drawn is stored: a second stack reads the same values.
        let again = DataStack(dynPortSchema())
        try again.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(
            try again.fetchAll(From<DynPortDog>().orderBy(.ascending(\.$age))).map(\.nickname)
                == dogs.map(\.nickname))
        #expect(try again.fetchAll(From<DynPortPerson>()).map(\.job) == people.map(\.job))
    }
}
