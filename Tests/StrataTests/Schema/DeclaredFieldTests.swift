import Dispatch
@testable import Strata
import Synchronization
import Testing

// MARK: Models

private class KennelAnimal: ManagedObject {
    @Field.Stored("name", .indexed) var name: String = ""
    @Field.Coded("tags") var tags: [String] = ["new"]
}

private final class Dog: KennelAnimal {
    @Field.Stored("breed") var breed: String = "mutt"
    @Field.Stored("age", renamingIdentifier: "years") var age: Int = 1
    @Field.Virtual("isSelected") var isSelected: Bool = false
    @Field.Relationship("owner") var owner: Walker?
}

private final class Walker: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("dogs", inverse: \Dog.$owner) var dogs: Set<Dog>
}

/// Reads one of its own fields while it is initialized.
private final class SelfReading: ManagedObject {
    @Field.Stored("count") var count: Int = 7
    private(set) var countAtInit = 0

    required init() {
        super.init()
        countAtInit = count
    }
}

private let kennelSchema = Schema("V1", entities: [Entity<Dog>("Dog"), Entity<Walker>("Walker")])

/// The declarations the field wrappers of `object` hold, in declaration
/// order, superclasses first; `nil` for a wrapper that holds none.
private func heldDeclarations(_ object: ManagedObject) -> [String?] {
    var mirrors: [Mirror] = []
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
        mirrors.insert(current, at: 0)
        mirror = current.superclassMirror
    }
    return mirrors.flatMap { mirror in
        mirror.children.compactMap { child -> String?? in
            guard let wrapper = child.value as? any FieldWrapper else { return nil }
            return .some(wrapper.declared?.declaration.name)
        }
    }
}

// MARK: Tests

@Suite("Declared fields")
struct DeclaredFieldTests {
    @Test
    func ordinaryObjectsHoldNoDeclarationsButVirtualFields() {
        // A virtual field holds its value, so its name costs nothing more.
        #expect(heldDeclarations(Dog()) == [nil, nil, nil, nil, "isSelected", nil])
        #expect(heldDeclarations(Walker()) == [nil, nil])
    }

    @Test
    func aPrototypeHoldsEveryDeclarationSuperclassFirst() {
        let prototype = DeclaredFields.prototype(of: Dog.self)
        #expect(heldDeclarations(prototype) == ["name", "tags", "breed", "age", "isSelected", "owner"])
        #expect(DeclaredFields.prototype(of: Dog.self) === prototype)
        let declarations = DeclaredFields.declarations(of: Dog.self)
        #expect(declarations.map(\.name) == ["name", "tags", "breed", "age", "isSelected", "owner"])
        #expect(declarations[3].renamingIdentifier == "years")
        guard case let .stored(type, isOptional, defaultValue, options) = declarations[0].kind else {
            Issue.record("name is not a stored field: \(declarations[0].kind)")
            return
        }
        #expect(type == .text && !isOptional && defaultValue == .text("") && options == .indexed)
    }

    @Test
    func projectionsCarryTheirDeclarationAndObject() {
        let dog = Dog()
        #expect(dog.$name.name == "name" && dog.$name.options == .indexed)
        #expect(dog.$age.name == "age" && dog.$age.renamingIdentifier == "years" && dog.$age.options == [])
        #expect(dog.$name.enclosingObject === dog && dog.$breed.defaultValue == "mutt")
        #expect(dog.$tags.name == "tags" && dog.$tags.defaultValue == ["new"])
        #expect(dog.$owner.name == "owner" && dog.$owner.deleteRule == .nullify)
        #expect(Walker().$dogs.name == "dogs")
    }

    @Test
    func detachedObjectsReadTheirDefaults() {
        let dog = Dog()
        #expect(dog.name == "" && dog.breed == "mutt" && dog.age == 1 && dog.tags == ["new"])
        #expect(dog.owner == nil && Walker().dogs.isEmpty)
    }

    @Test
    func anInitializerMayReadItsOwnFields() throws {
        #expect(SelfReading().countAtInit == 7)
        #expect((DeclaredFields.describe(SelfReading.self) as? SelfReading)?.countAtInit == 7)
        try Schema("V1", entities: [Entity<SelfReading>("SelfReading")]).validate()
    }

    @Test
    func describingOnOneThreadLeavesObjectsMadeOnOthersPlain() {
        let plainWithDeclarations = Atomic<Int>(0)
        let describedWithout = Atomic<Int>(0)
        let plain = Array(repeating: nil as String?, count: 6)
        let described: [String?] = ["name", "tags", "breed", "age", "isSelected", "owner"]
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for _ in 0..<(worker == 0 ? 2_000 : 5_000) {
                if worker == 0 {
                    if heldDeclarations(DeclaredFields.describe(Dog.self)) != described {
                        describedWithout.add(1, ordering: .relaxed)
                    }
                } else {
                    var expected = plain
                    expected[4] = "isSelected"
                    if heldDeclarations(Dog()) != expected {
                        plainWithDeclarations.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(describedWithout.load(ordering: .relaxed) == 0)
        #expect(plainWithDeclarations.load(ordering: .relaxed) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func inheritedFieldsAreStoredQueriedAndRead(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(kennelSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let walker = tx.create(Into<Walker>())
            walker.name = "Sam"
            for (name, breed) in [("Rex", "collie"), ("Ace", "pug"), ("Bo", "collie")] {
                let dog = tx.create(Into<Dog>())
                dog.name = name
                dog.breed = breed
                dog.tags = [breed]
                dog.owner = walker
            }
        })
        let collies = try stack.fetchAll(
            From<Dog>().where(\.$breed == "collie").orderBy(.descending(\.$name)))
        #expect(collies.map(\.name) == ["Rex", "Bo"])
        #expect(collies.allSatisfy { $0.tags == ["collie"] && $0.age == 1 && $0.owner?.name == "Sam" })
        let walker = try #require(try stack.fetchOne(From<Walker>()))
        #expect(Set(walker.dogs.map(\.name)) == ["Rex", "Ace", "Bo"])
        #expect(try stack.fetchCount(From<Dog>().where(\.$name >= "B")) == 2)
    }
}
