import Foundation

@testable import Strata

// CoreStore's DynamicModelTests model, in Strata's spelling: an animal with a
// stored, a coded and a to-one field; a dog, a subentity of it, with a field
// made per object, an ordered to-many relationship to other dogs and its
// inverse; a person whose setters reset a cached virtual field, with a coded
// job made per object, a one-to-one relationship with itself, and pets.
// Names start with `DynPort` so they never clash with other test files'.

/// The `NSCoding` value CoreStore stores as a `UIColor`/`NSColor`, which
/// Linux does not have.
final class DynPortColor: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String

    init(_ name: String) {
        self.name = name
    }

    static var blue: DynPortColor { DynPortColor("blue") }
    static var yellow: DynPortColor { DynPortColor("yellow") }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
    }

    override func isEqual(_ object: Any?) -> Bool {
        (object as? DynPortColor)?.name == name
    }

    override var hash: Int { name.hashValue }
    override var description: String { name }
}

class DynPortAnimal: ManagedObject {
    @Field.Stored("species") var species: String = "Swift"
    @Field.Coded("color", coder: FieldCoders.NSCoding.self) var color: DynPortColor? = .blue
    @Field.Relationship("master") var master: DynPortPerson?
}

final class DynPortDog: DynPortAnimal {
    static let commonNicknames = ["Spot", "Benjie", "Max", "Milo"]

    @Field.Stored("nickname", dynamicInitialValue: { DynPortDog.commonNicknames.randomElement()! })
    var nickname: String
    @Field.Stored("age") var age: Int = 1
    @Field.Relationship("friends") var friends: [DynPortDog]
    @Field.Relationship("friendedBy", inverse: \DynPortDog.$friends) var friendedBy: Set<DynPortDog>
}

/// A value a virtual field keeps in memory (CoreStore's `CustomType`).
struct DynPortCustomType: Equatable {
    var string = "customString"
}

/// Not `Codable`: only the closure coder stores it (CoreStore's `Job`).
enum DynPortJob: String, CaseIterable, Sendable {
    case unemployed, engineer, doctor, lawyer

    init?(data: Data) {
        self.init(rawValue: String(decoding: data, as: UTF8.self))
    }

    var data: Data { Data(rawValue.utf8) }
}

final class DynPortPerson: ManagedObject {
    @Field.Stored(
        "title",
        customSetter: { (object: DynPortPerson, field, newValue) in
            field.primitiveValue = newValue
            object.$displayName.primitiveValue = nil
        })
    var title: String = "Mr."

    @Field.Stored(
        "name",
        customSetter: { (object: DynPortPerson, field, newValue) in
            field.primitiveValue = newValue
            object.$displayName.primitiveValue = nil
        })
    var name: String = ""

    /// "title name", computed once and kept until a setter above resets it.
    @Field.Virtual("displayName", customGetter: DynPortPerson.displayName(_:_:))
    var displayName: String?

    /// Made on first read and kept in memory; never saved.
    @Field.Virtual(
        "customType",
        customGetter: { (object: DynPortPerson, field) in
            if let value = field.primitiveValue { return value }
            let value = DynPortCustomType()
            field.primitiveValue = value
            return value
        })
    var customField: DynPortCustomType

    @Field.Coded(
        "job",
        coder: (encode: { $0.data }, decode: { $0.flatMap(DynPortJob.init(data:)) ?? .unemployed }),
        dynamicInitialValue: { DynPortJob.allCases.randomElement()! })
    var job: DynPortJob

    @Field.Relationship("spouse") var spouse: DynPortPerson?
    @Field.Relationship("pets", inverse: \DynPortAnimal.$master) var pets: Set<DynPortAnimal>
    /// CoreStore names this `_spouseInverse`; a leading `_` is Strata's own.
    @Field.Relationship("spouseInverse", inverse: \DynPortPerson.$spouse) var spouseInverse:
        DynPortPerson?

    private static func displayName(
        _ object: DynPortPerson, _ field: Field.Virtual<String?>.Proxy
    ) -> String? {
        if let value = field.primitiveValue { return value }
        let value = "\(object.$title.value) \(object.$name.value)"
        field.primitiveValue = value
        return value
    }
}

/// CoreStore's schema: the dog's nickname and age indexed together.
func dynPortSchema() -> Schema {
    Schema(
        "V1",
        entities: [
            Entity<DynPortAnimal>("Animal"),
            Entity<DynPortDog>("Dog", indexes: [[\.$nickname, \.$age]]),
            Entity<DynPortPerson>("Person"),
        ])
}

/// The family the relationship queries and lists read: John with Max, Jane
/// (John's wife) with Milo, Spot with no master; Max's friends Spot and
/// Milo, Milo's friend Spot.
func createDynPortFamily(
    in tx: BaseDataTransaction
) -> (john: DynPortPerson, jane: DynPortPerson, dogs: [DynPortDog]) {
    let john = tx.create(Into<DynPortPerson>())
    john.name = "John"
    let jane = tx.create(Into<DynPortPerson>())
    jane.name = "Jane"
    jane.spouse = john
    let dogs = ["Max", "Milo", "Spot"].map { name in
        let dog = tx.create(Into<DynPortDog>())
        dog.nickname = name
        return dog
    }
    dogs[0].master = john
    dogs[1].master = jane
    dogs[0].friends = [dogs[2], dogs[1]]
    dogs[1].friends = [dogs[2]]
    return (john, jane, dogs)
}
