@testable import Strata
import Testing

// MARK: Models

/// Fields whose Swift names differ from their stored names, as in CoreStore's
/// README (`@Field.Stored("name") private var internalName`).
private class NamedAnimal: ManagedObject {
    @Field.Stored("species") var kind: String = ""
}

private final class NamedDog: NamedAnimal {
    @Field.Stored("nickname") var nickname: String?
    @Field.Stored("name") private var internalName: String = ""
    @Field.Coded("otherInfo") var info: [String] = []
    @Field.Virtual("isSelected") var selected: Bool = false
    @Field.Relationship("master") var owner: NamedPerson?

    /// The key path of the private field, for the test.
    static var internalNameKeyPath: KeyPath<NamedDog, Field.Stored<String>> { \.$internalName }
}

private final class NamedPerson: ManagedObject {
    @Field.Relationship("pets", inverse: \NamedDog.$owner) var dogs: Set<NamedDog>
}

private let namedSchema = Schema(
    "V1", entities: [Entity<NamedAnimal>("Animal"), Entity<NamedDog>("Dog"), Entity<NamedPerson>("Person")])

// MARK: Tests

@Suite("Field names from key paths")
struct FieldKeyPathNameTests {
    /// CoreStore's `String(keyPath: \Dog.$nickname)`: the name the store
    /// uses, whatever the Swift property is called.
    @Test
    func aKeyPathGivesTheFieldsStoredName() {
        #expect(String(keyPath: \NamedDog.$nickname) == "nickname")
        #expect(String(keyPath: NamedDog.internalNameKeyPath) == "name")
        #expect(String(keyPath: \NamedDog.$kind) == "species")
        #expect(String(keyPath: \NamedAnimal.$kind) == "species")
        #expect(String(keyPath: \NamedDog.$info) == "otherInfo")
        #expect(String(keyPath: \NamedDog.$selected) == "isSelected")
        #expect(String(keyPath: \NamedDog.$owner) == "master")
        #expect(String(keyPath: \NamedPerson.$dogs) == "pets")
    }

    /// Every name a key path gives is a field of the entity in the schema.
    @Test
    func theNamesAreTheSchemasFieldNames() throws {
        try namedSchema.validate()
        let dog = namedSchema.entity(of: NamedDog.self)
        let names = [
            String(keyPath: \NamedDog.$nickname), String(keyPath: NamedDog.internalNameKeyPath),
            String(keyPath: \NamedDog.$kind), String(keyPath: \NamedDog.$info),
            String(keyPath: \NamedDog.$selected), String(keyPath: \NamedDog.$owner),
        ]
        for name in names {
            #expect(dog.fieldNames.contains(name) || dog.relationships[name] != nil, "\(name)")
        }
    }
}
