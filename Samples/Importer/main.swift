import Foundation
import Strata

// Importer: fills a store from the JSON file shipped with this sample, then
// imports the records again, edited, to show that a unique import updates the
// people it already holds instead of duplicating them. Run it with
// `swift run Importer`.

/// One record of `people.json`, decoded as it is and imported as it is.
struct PersonJSON: Decodable {
    var id: Int
    var name: String
    var email: String
    var city: String
    var age: Int
}

/// A person, identified by the `id` of the record it was imported from.
final class Person: ManagedObject {
    // `.unique` indexes the column each import batch looks its IDs up in, and
    // makes the store itself refuse a second person with the same ID.
    @Field.Stored("remoteID", .unique) var remoteID: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("email") var email: String = ""
    @Field.Stored("city") var city: String = ""
    @Field.Stored("age") var age: Int = 0
}

extension Person: ImportableUniqueObject {
    // Swift does not infer this from the requirements below; see Docs/Importing.md.
    typealias ImportSource = PersonJSON

    static var uniqueIDKeyPath: KeyPath<Person, Field.Stored<Int>> { \.$remoteID }

    static func uniqueID(from source: PersonJSON, in transaction: BaseDataTransaction) -> Int? {
        source.id
    }

    /// Copies every field but the ID, which the import sets on a new person.
    /// It fills in new people too (the default `didInsert` calls it).
    func update(from source: PersonJSON, in transaction: BaseDataTransaction) throws {
        name = source.name
        email = source.email
        city = source.city
        age = source.age
    }
}

let stack = DataStack(Schema("V1", entities: [Entity<Person>("Person")]))
let store = SQLiteStore()  // the default file, in the default folder
// Start from a fresh file on every run, so each run tells the same story.
try store.deleteFiles()
try stack.addStorageAndWait(store)
print("Opened \(store.fileURL.path)")

// The file is a resource of this target; SwiftPM copies it next to the program.
guard let url = Bundle.module.url(forResource: "people", withExtension: "json") else {
    fatalError("people.json is missing from the Importer bundle")
}
let records = try JSONDecoder().decode([PersonJSON].self, from: Data(contentsOf: url))
print("Decoded \(records.count) records from \(url.lastPathComponent)")

// First import: no ID is in the store yet, so every record creates a person.
let created = try stack.perform(synchronous: { tx in
    try tx.importUniqueObjects(Into<Person>(), sourceArray: records).count
})
let ada = From<Person>().where(\.$remoteID == 101)
let before = try stack.fetchOne(ada)!
print("First import: \(created) imported, \(try stack.fetchCount(From<Person>())) in the store")
print("  \(before.name): age \(before.age), \(before.city)")

// Second import: the same records a year later, and Ada has moved. Every ID
// is found by the lookup query, so each record updates its person in place.
let edited = records.map { record in
    var record = record
    record.age += 1
    if record.id == 101 { record.city = "Paris" }
    return record
}
let updated = try stack.perform(synchronous: { tx in
    try tx.importUniqueObjects(Into<Person>(), sourceArray: edited).count
})
let after = try stack.fetchOne(ada)!
print("Second import: \(updated) imported, \(try stack.fetchCount(From<Person>())) in the store")
print("  \(after.name): age \(after.age), \(after.city)")
