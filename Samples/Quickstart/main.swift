import Foundation
import Strata

// The model: people and their pets.
final class Person: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("email", .unique) var email: String? = nil
    @Field.Relationship("pets", inverse: \Pet.$owner, deleteRule: .cascade)
    var pets: Set<Pet>
}

final class Pet: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: Person?
}

let stack = DataStack(Schema("V1", entities: [Entity<Person>("Person"), Entity<Pet>("Pet")]))
let store = SQLiteStore()  // the default file, in the default folder
try stack.addStorageAndWait(store)
print("Opened \(store.fileURL.path)")

// Start from a clean slate on every run.
let removed = try stack.perform(synchronous: { tx in try tx.deleteAll(From<Person>()) })
print("Removed \(removed) people left by an earlier run")

try stack.perform(synchronous: { tx in
    let ann = tx.create(Into<Person>())
    ann.name = "Ann"
    ann.age = 31
    ann.email = "ann@example.com"
    let rex = tx.create(Into<Pet>())
    rex.name = "Rex"
    rex.owner = ann
    let bob = tx.create(Into<Person>())
    bob.name = "Bob"
    bob.age = 12
})
print("Created Ann (with Rex) and Bob")

let adults = try stack.fetchAll(From<Person>().where(\.$age >= 18).orderBy(.ascending(\.$name)))
for person in adults {
    print("Adult: \(person.name), \(person.age), pets: \(person.pets.map(\.name).sorted())")
}

// Writes happen in transactions; main-context objects are read-only.
let bobID = try stack.fetchOne(From<Person>().where(\.$name == "Bob"))!.objectID
try await stack.perform(author: "quickstart") { tx in tx.edit(bobID)?.age = 18 }
print("Bob turned 18; adults now: \(try stack.fetchCount(From<Person>().where(\.$age >= 18)))")

// A uniqueness violation fails the commit and leaves the store as it was.
do {
    try stack.perform(synchronous: { tx in
        tx.create(Into<Person>()).email = "ann@example.com"
    })
} catch {
    // `perform` throws only StrataError: `error` is one, no cast needed.
    print("Refused as expected: \(error.debugDescription)")
}
print("People in the store: \(try stack.fetchCount(From<Person>()))")
