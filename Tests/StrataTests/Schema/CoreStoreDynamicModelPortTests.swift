import Foundation
import Testing

@testable import Strata

/// CoreStore's `DynamicModelTests` (`test_ThatDynamicModels_CanBeDeclaredCorrectly`
/// and `test_ThatDynamicModelKeyPaths_CanBeCreated`), split into the things
/// its one long test asserts. Its model is in CoreStoreDynamicModelPortModels.swift.
///
/// Where CoreStore's test cannot be written in Strata, the test says so and
/// checks Strata's documented equivalent instead (ComingFromCoreStore.md):
/// - `affectedByKeyPaths:` and `keyPathsForValuesAffectingValue(forKey:)`:
///   Strata has no KVO; the field is declared without it.
/// - `_spouseInverse`: names starting with `_` are Strata's; it is `spouseInverse`.
/// - `rawObject.value(forKey:)`/`setValue(_:forKey:)`: there is no raw
///   `NSManagedObject`; the port reads `object.$name.value` and sets the field.
/// - `snapshot.$displayName`: a snapshot holds no virtual field.
/// - `Where.predicate == NSPredicate(format:)`: there is no `NSPredicate`;
///   the port compares the key-path `Where` with the format-string `Where`,
///   which Strata parses into the same tree.
/// - `versionLock:` per entity: covered by CoreStoreMigrationChainPortTests.
@Suite("CoreStore port: DynamicModelTests, declarations and values")
struct CoreStoreDynamicModelPortTests {
    /// `test_ThatDynamicModelKeyPaths_CanBeCreated`, and the key paths the
    /// long test prints: the field's stored name, also through a subclass.
    @Test
    func keyPathsNameTheFieldsAlsoThroughASubclass() {
        #expect(String(keyPath: \DynPortAnimal.$species) == "species")
        #expect(String(keyPath: \DynPortDog.$species) == "species")
        #expect(String(keyPath: \DynPortDog.$nickname) == "nickname")
        #expect(String(keyPath: \DynPortDog.$color) == "color")
        #expect(String(keyPath: \DynPortDog.$master) == "master")
        #expect(String(keyPath: \DynPortPerson.$displayName) == "displayName")
        #expect(String(keyPath: \DynPortPerson.$customField) == "customType")
        #expect(String(keyPath: \DynPortPerson.$job) == "job")
    }

    /// CoreStore's loops over `metaProperties(includeSuperclasses: true)`:
    /// each entity has its own fields and its superclass's, each of its kind,
    /// and no other. Virtual fields are fields but have no column.
    @Test
    func eachEntityHasItsOwnAndItsInheritedFieldsOfTheirKinds() throws {
        let schema = dynPortSchema()
        try schema.validate()
        func kinds(_ type: ManagedObject.Type) -> [String: String] {
            let entity = schema.entity(of: type)
            var kinds: [String: String] = [:]
            for attribute in entity.fieldAttributes {
                switch attribute.kind {
                case .stored: kinds[attribute.name] = "stored"
                case .coded: kinds[attribute.name] = "coded"
                default: break
                }
            }
            for (name, relationship) in entity.relationships {
                kinds[name] = "\(relationship.cardinality)"
            }
            return kinds
        }
        let animal = ["species": "stored", "color": "coded", "master": "toOne"]
        #expect(kinds(DynPortAnimal.self) == animal)
        #expect(
            kinds(DynPortDog.self)
                == animal.merging(
                    [
                        "nickname": "stored", "age": "stored", "friends": "orderedToMany",
                        "friendedBy": "toMany",
                    ],
                    uniquingKeysWith: { $1 }))
        #expect(
            kinds(DynPortPerson.self)
                == [
                    "title": "stored", "name": "stored", "job": "coded", "spouse": "toOne",
                    "pets": "toMany", "spouseInverse": "toOne",
                ])
        #expect(
            Set(schema.entity(of: DynPortDog.self).fieldNames) == Set(kinds(DynPortDog.self).keys))
        let person = Set(schema.entity(of: DynPortPerson.self).fieldNames)
        #expect(person == Set(kinds(DynPortPerson.self).keys).union(["displayName", "customType"]))
    }

    /// `Entity<Dog>("Dog", indexes: [[\Dog.$nickname, \Dog.$age]])`: the
    /// index is in the store, on the table of the tree Dog belongs to.
    @Test
    @MainActor
    func aSubentitysCompoundIndexIsInTheTreesTable() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), .file, in: directory)
        #expect(try stack.fetchCount(From<DynPortDog>()) == 0)
        let connection = try makeStorage(.file, in: directory).settings.openConnection(.inspector)
        defer { connection.close() }
        #expect(try connection.indexes(of: "Animal")["Animal__nickname__age_index"] == false)
    }

    /// The defaults CoreStore checks on `create`, and the per-object values:
    /// each dog draws a nickname and each person a job, and what was read
    /// in the transaction is what was stored.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func newObjectsReadTheirDefaultsAndStoreTheValuesTheyDrew(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let drawn = try stack.perform(synchronous: { tx in
            let animal = tx.create(Into<DynPortAnimal>())
            #expect(animal.species == "Swift")
            #expect(animal.color == DynPortColor.blue)
            #expect(animal.master == nil)
            var nicknames: [ObjectID<DynPortDog>: String] = [:]
            var jobs: [ObjectID<DynPortPerson>: DynPortJob] = [:]
            for _ in 0..<40 {
                let dog = tx.create(Into<DynPortDog>())
                #expect(dog.species == "Swift")
                #expect(dog.color == DynPortColor.blue)
                #expect(dog.age == 1)
                #expect(DynPortDog.commonNicknames.contains(dog.nickname))
                #expect(dog.friends.isEmpty && dog.friendedBy.isEmpty)
                nicknames[dog.objectID] = dog.nickname
                let person = tx.create(Into<DynPortPerson>())
                #expect(person.pets.isEmpty)
                #expect(person.title == "Mr." && person.name == "")
                #expect(person.displayName == "Mr. ")
                #expect(person.customField == DynPortCustomType())
                #expect(person.spouse == nil)
                jobs[person.objectID] = person.job
            }
            return (nicknames: nicknames, jobs: jobs)
        })
        // 40 draws of 4 values all alike would be a 1 in 4^39 chance.
        #expect(Set(drawn.nicknames.values).count > 1, "each dog draws its own nickname")
        #expect(Set(drawn.jobs.values).count > 1, "each person draws its own job")
        for (id, nickname) in drawn.nicknames {
            #expect(try stack.fetchExisting(id)?.nickname == nickname)
        }
        for (id, job) in drawn.jobs {
            #expect(try stack.fetchExisting(id)?.job == job)
        }
        let stored = try stack.fetchAll(From<DynPortDog>()).map(\.nickname)
        #expect(stored.sorted() == drawn.nicknames.values.sorted())
    }

    /// The person's setters reset the cached display name; a value given to
    /// the virtual field is kept until then; the custom type is made once
    /// and then changed in place. CoreStore reads and writes `displayName`
    /// through `rawObject` (KVC); Strata through the field.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func settersResetTheCachedDisplayNameAndVirtualValuesStayInMemory(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let person = tx.create(Into<DynPortPerson>())
            person.name = "Joe"
            #expect(person.$name.value == "Joe")
            #expect(person.displayName == "Mr. Joe")
            person.displayName = "AAAA"
            #expect(person.displayName == "AAAA")
            person.name = "John"
            #expect(person.name == "John")
            #expect(person.displayName == "Mr. John")
            person.title = "Sir"
            #expect(person.displayName == "Sir John")
            person.customField.string = "newCustomString"
            #expect(person.customField.string == "newCustomString")
            person.job = .engineer
            #expect(person.job == .engineer)
            return person.objectID
        })
        let person = try #require(try stack.fetchExisting(id))
        #expect(person.name == "John" && person.title == "Sir" && person.job == .engineer)
        #expect(person.displayName == "Sir John", "computed again from the stored fields")
        #expect(person.customField.string == "customString", "a virtual value is never saved")
        // A main-context object's virtual fields can be set; its stored ones cannot.
        person.displayName = "Local"
        #expect(person.displayName == "Local")
        try stack.perform(synchronous: { tx in
            let edited = try #require(tx.edit(id))
            #expect(edited.displayName == "Sir John", "each context's object has its own cache")
            edited.name = "Jack"
            #expect(edited.displayName == "Sir Jack")
        })
        #expect(person.name == "Jack")
        // A merge changes stored values without calling a setter, so the
        // main context's cached value stays (Storage.md, "Nothing resets a
        // cache for you").
        #expect(person.displayName == "Local")
        person.$displayName.primitiveValue = nil
        #expect(person.displayName == "Sir Jack")
    }

    /// CoreStore's three snapshots: each holds the stored and coded values
    /// of its moment, and a `var` copy changes alone.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func snapshotsHoldTheValuesOfTheirMomentAndCopiesChangeAlone(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(dynPortSchema(), kind, in: directory)
        try stack.perform(synchronous: { tx in
            let person = tx.create(Into<DynPortPerson>())
            let initialJob = person.job
            person.name = "John"
            let first = try #require(person.asSnapshot(in: tx))
            #expect(first.$name == person.name)
            #expect(first.$title == person.title)
            #expect(first.$job == person.job)

            person.title = "Sir"
            #expect(person.displayName == "Sir John")
            #expect(first.$name == "John")
            #expect(first.$title == "Mr.")

            person.job = .engineer
            let second = try #require(person.asSnapshot(in: tx))
            #expect(second.$name == person.name)
            #expect(second.$title == person.title)
            #expect(second.$job == person.job)

            var third = second
            third.$name = "James"
            #expect(first.$name == "John")
            #expect(first.$job == initialJob)
            #expect(second.$name == "John")
            #expect(second.$title == "Sir")
            #expect(second.$job == .engineer)
            #expect(third.$name == "James")
            #expect(third.$title == "Sir")
            #expect(third.$job == .engineer)
            #expect(person.name == "John", "a snapshot's copy leaves the object alone")
        })
    }
}
