@testable import Strata

// Three versions of one model, and a fourth that cannot be inferred.
// V1 → V2: Person.name renamed fullName, nickname optional → required,
// score Int → Double, email added, obsolete removed; entity Pet renamed Animal.
// V2 → V3: Person.age Int → String.

final class PersonV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age", .indexed) var age: Int = 0
    @Field.Stored("nickname") var nickname: String? = nil
    @Field.Stored("score") var score: Int = 0
    @Field.Stored("obsolete") var obsolete: String = ""
    @Field.Relationship("pets", inverse: \PetV1.$owner) var pets: Set<PetV1>
    @Field.Relationship("clubs", inverse: \ClubV1.$members) var clubs: Set<ClubV1>
}

final class PetV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: PersonV1?
}

final class ClubV1: ManagedObject {
    @Field.Stored("title", .unique) var title: String = ""
    @Field.Relationship("members") var members: Set<PersonV1>
}

final class PersonV2: ManagedObject {
    @Field.Stored("fullName", renamingIdentifier: "name") var fullName: String = ""
    @Field.Stored("age", .indexed) var age: Int = 0
    @Field.Stored("nickname") var nickname: String = "none"
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("email") var email: String = "unknown@example.com"
    @Field.Relationship("pets", inverse: \AnimalV2.$owner) var pets: Set<AnimalV2>
    @Field.Relationship("clubs", inverse: \ClubV2.$members) var clubs: Set<ClubV2>
}

final class AnimalV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: PersonV2?
}

final class ClubV2: ManagedObject {
    @Field.Stored("title", .unique) var title: String = ""
    @Field.Relationship("members") var members: Set<PersonV2>
}

final class PersonV3: ManagedObject {
    // The previous names stay declared: V1 → V3 directly still finds them.
    @Field.Stored("fullName", renamingIdentifier: "name") var fullName: String = ""
    @Field.Stored("age", .indexed) var age: String = ""
    @Field.Stored("nickname") var nickname: String = "none"
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("email") var email: String = "unknown@example.com"
    @Field.Relationship("pets", inverse: \AnimalV3.$owner) var pets: Set<AnimalV3>
    @Field.Relationship("clubs", inverse: \ClubV3.$members) var clubs: Set<ClubV3>
}

final class AnimalV3: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: PersonV3?
}

final class ClubV3: ManagedObject {
    @Field.Stored("title", .unique) var title: String = ""
    @Field.Relationship("members") var members: Set<PersonV3>
}

/// Person.fullName String → Int: TEXT → INTEGER is not lossless.
final class PersonLossy: ManagedObject {
    @Field.Stored("fullName") var fullName: Int = 0
    @Field.Stored("age", .indexed) var age: Int = 0
}

let schemaV1 = Schema("V1", entities: [
    Entity<PersonV1>("Person"), Entity<PetV1>("Pet"), Entity<ClubV1>("Club"),
])
let schemaV2 = Schema("V2", entities: [
    Entity<PersonV2>("Person"), Entity<AnimalV2>("Animal", renamingIdentifier: "Pet"),
    Entity<ClubV2>("Club"),
])
let schemaV3 = Schema("V3", entities: [
    Entity<PersonV3>("Person"), Entity<AnimalV3>("Animal", renamingIdentifier: "Pet"),
    Entity<ClubV3>("Club"),
])
let schemaLossy = Schema("Lossy", entities: [Entity<PersonLossy>("Person")])

/// The stores whose migrations are tested: a file, and a PostgreSQL schema
/// (transactional DDL: a failed migration leaves the old version there too).
let migratingKinds = StoreKind.enabled([.file, .postgreSQL])

/// Lets the store of `kind` in `directory` settle after its stack is gone:
/// a file's WAL is folded into it, so that its bytes are the store's whole
/// content and a later open that writes nothing must leave them as they are.
@MainActor
func settleStore(_ kind: StoreKind, in directory: TemporaryDirectory) async throws {
    if kind == .file {
        let connection = try Connection(path: storeURL(in: directory).path, readOnly: false)
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
    }
    try await Task.sleep(for: .milliseconds(1))
}
