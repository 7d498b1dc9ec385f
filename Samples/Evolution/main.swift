import Foundation
import Strata

// Three versions of one model, as an app ships them.
// V2 renames `name` to `fullName` and adds `email`; V3 turns `age` from Int into Double.

final class PersonV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
}

final class PersonV2: ManagedObject {
    @Field.Stored("fullName", renamingIdentifier: "name") var fullName: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("email") var email: String = "unknown"
}

final class PersonV3: ManagedObject {
    @Field.Stored("fullName", renamingIdentifier: "name") var fullName: String = ""
    @Field.Stored("age") var age: Double = 0
    @Field.Stored("email") var email: String = "unknown"
}

let v1 = Schema("V1", entities: [Entity<PersonV1>("Person")])
let v2 = Schema("V2", entities: [Entity<PersonV2>("Person")])
let v3 = Schema("V3", entities: [Entity<PersonV3>("Person")])

let folder = FileManager.default.temporaryDirectory
    .appendingPathComponent("strata-evolution-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: folder) }
let storeURL = folder.appendingPathComponent("people.sqlite")

// 1. The app's first release writes a V1 store.
do {
    let stack = DataStack(v1)
    try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL))
    try stack.perform(synchronous: { tx in
        for (name, age) in [("Ann", 31), ("Bob", 42), ("Cyd", 27)] {
            let person = tx.create(Into<PersonV1>())
            person.name = name
            person.age = age
        }
    })
    print("V1 store written at \(storeURL.path): \(try stack.fetchCount(From<PersonV1>())) people")
}

// 2. A later release knows every version and how they follow each other.
@MainActor
func open(_ history: SchemaHistory) async throws -> DataStack {
    let stack = DataStack(schemaHistory: history)
    let storage = SQLiteStore(fileURL: storeURL)
    let steps = try stack.requiredMigrations(for: storage)
    print("Opening with \(history.currentVersion): "
        + (steps.isEmpty ? "no migration needed" : "will run " + steps.map(\.description).joined(separator: ", ")))
    try await stack.addStorage(storage) { update in
        switch update {
        case let .migrating(step, fraction):
            print("  migrating \(step): \(Int((fraction * 100).rounded()))% of the work done")
        case let .finished(migrationRan):
            print("  open" + (migrationRan ? ", migrated" : ""))
        }
    }
    return stack
}

// The V2 release migrates V1 → V2.
do {
    let stack = try await open(SchemaHistory([v1, v2], chain: ["V1", "V2"]))
    for person in try stack.fetchAll(From<PersonV2>().orderBy(.ascending(\.$fullName))) {
        print("  V2 \(person.fullName), age \(person.age), email \(person.email)")
    }
}

// The V3 release migrates a V2 store in one step (a V1 store would go V1 → V2 → V3).
do {
    let stack = try await open(SchemaHistory([v1, v2, v3], chain: ["V1", "V2", "V3"]))
    for person in try stack.fetchAll(From<PersonV3>().orderBy(.ascending(\.$fullName))) {
        print("  V3 \(person.fullName), age \(person.age), email \(person.email)")
    }
}
