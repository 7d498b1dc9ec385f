import Foundation
import Testing

@testable import Strata

// MARK: Model

/// A model with every kind of virtual field: computed from stored fields,
/// cached in its primitive value, set through a setter, and plain.
class VAnimal: ManagedObject {
    @Field.Stored("species") var species: String = ""
    @Field.Coded("tags") var tags: [String] = []
    @Field.Relationship("keeper") var keeper: VKeeper?

    @Field.Virtual(
        "speciesPlural",
        customGetter: { (object: VAnimal, field) in object.$species.value + "s" },
        customSetter: { (object: VAnimal, field, newValue) in
            object.species = String(newValue.dropLast())
        })
    var speciesPlural: String

    /// Computed once, then kept in its primitive value until reset.
    @Field.Virtual("label", customGetter: { (object: VAnimal, field) in
        if let cached = field.primitiveValue { return cached }
        let label = "\(object.species)#\(object.$tags.value.count)"
        field.primitiveValue = label
        return label
    })
    var label: String

    /// Keeps what it is given, and resets `label`'s cache.
    @Field.Virtual("rawInput", customSetter: { (object: VAnimal, field, newValue) in
        field.primitiveValue = newValue
        object.$label.primitiveValue = nil
    })
    var rawInput: String?

    @Field.Virtual("keeperName", customGetter: { (object: VAnimal, _) in object.$keeper.value?.name })
    var keeperName: String?

    @Field.Virtual("note") var note: String?
    @Field.Virtual("isPicked") var isPicked: Bool = false
}

/// A subclass whose getter names the superclass.
final class VDog: VAnimal {
    @Field.Stored("tricks") var tricks: Int = 0
    @Field.Virtual("summary", customGetter: { (object: VAnimal, _) in
        "\(object.species) with \((object as? VDog)?.tricks ?? 0) tricks"
    })
    var summary: String
}

final class VKeeper: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("animals", inverse: \VAnimal.$keeper) var animals: Set<VAnimal>
}

/// A getter that names a class the field's class is not: a programmer error.
final class VMistyped: ManagedObject {
    @Field.Stored("n") var n: Int = 0
    @Field.Virtual("twice", customGetter: { (object: VKeeper, _) in object.name.count * 2 })
    var twice: Int
}

/// The same stored fields as ``VThingWithVirtuals``, without its virtual ones.
final class VThing: ManagedObject {
    @Field.Stored("n") var n: Int = 0
    @Field.Stored("label", .indexed) var label: String? = nil
}

final class VThingWithVirtuals: ManagedObject {
    @Field.Stored("n") var n: Int = 0
    @Field.Virtual("double", customGetter: { (object: VThingWithVirtuals, _) in object.n * 2 })
    var double: Int
    @Field.Stored("label", .indexed) var label: String? = nil
    @Field.Virtual("scratch") var scratch: [Int] = []
}

let virtualSchema = Schema(
    "V1",
    entities: [
        Entity<VAnimal>("VAnimal"), Entity<VDog>("VDog"), Entity<VKeeper>("VKeeper"),
        Entity<VMistyped>("VMistyped"),
    ])

// MARK: Tests

/// `@Field.Virtual` with CoreStore's `customGetter` and `customSetter`.
@Suite("Virtual fields: custom getters and setters")
struct FieldVirtualTests {
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func aGetterComputesFromStoredFieldsInEveryContext(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let cat = tx.create(Into<VAnimal>())
            #expect(cat.speciesPlural == "s")
            cat.species = "cat"
            #expect(cat.speciesPlural == "cats")
            return cat.objectID
        })
        let cat = try #require(try stack.fetchExisting(id))
        #expect(cat.speciesPlural == "cats")
        try stack.perform(synchronous: { tx in tx.edit(cat)?.species = "lion" })
        // The main-context object follows the commit: the getter reads its new value.
        #expect(cat.speciesPlural == "lions")
    }

    @Test
    @MainActor
    func aSetterRunsInsteadOfKeepingTheValueAndMayWriteStoredFields() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let dog = tx.create(Into<VAnimal>())
            dog.speciesPlural = "dogs"
            #expect(dog.species == "dog")
            #expect(dog.$speciesPlural.primitiveValue == nil)
            return dog.objectID
        })
        #expect(try stack.fetchExisting(id)?.species == "dog")
    }

    @Test
    @MainActor
    func theFieldsPrimitiveValueCachesUntilReset() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let owl = tx.create(Into<VAnimal>())
            owl.species = "owl"
            owl.tags = ["wise"]
            #expect(owl.label == "owl#1")
            owl.species = "eagle"
            #expect(owl.label == "owl#1")  // cached
            owl.rawInput = "x"  // its setter resets label's cache
            #expect(owl.rawInput == "x")
            #expect(owl.label == "eagle#1")
            // A field with a getter and no setter keeps what it is set to as
            // its primitive value, which this getter returns.
            owl.label = "given"
            #expect(owl.label == "given")
        })
    }

    @Test
    @MainActor
    func optionalVirtualFieldsStartAsNil() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let fox = tx.create(Into<VAnimal>())
            #expect(fox.note == nil && fox.rawInput == nil && fox.keeperName == nil)
            fox.note = "sly"
            #expect(fox.note == "sly")
            let keeper = tx.create(Into<VKeeper>())
            keeper.name = "Kim"
            fox.keeper = keeper
            #expect(fox.keeperName == "Kim")
            // Reset to nil, an optional field reads as nil again.
            fox.$note.primitiveValue = nil
            #expect(fox.note == nil)
        })
    }

    @Test
    @MainActor
    func aGetterMayNameASuperclassOfTheObject() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let dog = tx.create(Into<VDog>())
            dog.species = "dog"
            dog.tricks = 3
            #expect(dog.summary == "dog with 3 tricks")
            #expect(dog.speciesPlural == "dogs")  // inherited
        })
    }

    @Test
    @MainActor
    func virtualFieldsAreSettableOnMainContextObjectsAndNeverAChange() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let ant = tx.create(Into<VAnimal>())
            ant.species = "ant"
            return ant.objectID
        })
        let ant = try #require(try stack.fetchExisting(id))
        ant.isPicked = true
        ant.rawInput = "typed"  // a setter that writes no stored field
        ant.label = "mine"
        #expect(ant.isPicked && ant.rawInput == "typed" && ant.label == "mine")
        try stack.perform(synchronous: { tx in
            let edited = try #require(tx.edit(ant))
            edited.isPicked = true
            edited.rawInput = "x"
            #expect(edited.speciesPlural == "ants")
            #expect(!tx.hasChanges)
            // Each context's object has its own value.
            #expect(edited.label == "ant#0")
        })
    }

    /// Transactions.md, Rule 12a: virtual values are not part of the undo history.
    @Test
    @MainActor
    func undoTakesBackStoredFieldsAndLeavesVirtualValues() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let bee = tx.create(Into<VAnimal>())
        bee.species = "bee"
        try tx.flush()
        bee.speciesPlural = "wasps"
        bee.rawInput = "buzz"
        bee.isPicked = true
        tx.undo()
        #expect(bee.species == "bee" && bee.speciesPlural == "bees")
        #expect(bee.rawInput == "buzz" && bee.isPicked)
        tx.redo()
        #expect(bee.speciesPlural == "wasps")
    }

    @Test
    @MainActor
    func anObservedFieldsHandlerSeesTheVirtualFieldsNewValue() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { tx in tx.create(Into<VAnimal>()).objectID })
        let animal = try #require(try stack.fetchExisting(id))
        var seen: [String] = []
        let observation = animal.$species.observe { _, _ in seen.append(animal.speciesPlural) }
        try stack.perform(synchronous: { tx in tx.edit(animal)?.speciesPlural = "yaks" })
        try stack.perform(synchronous: { tx in tx.edit(animal)?.species = "gnu" })
        #expect(seen == ["yaks", "gnus"])
        observation.cancel()
    }

    /// Whatever is assigned, through the stored field or the virtual one,
    /// the getter agrees with the stored field, in the transaction and after
    /// the commit.
    @Test
    @MainActor
    func aSetterAndAGetterStayInStepOnRandomWrites() throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        let words = ["cat", "dog", "", "ox", "émeu", "a b"]
        for round in 0..<20 {
            let (id, expected) = try stack.perform(synchronous: { tx in
                let animal = tx.create(Into<VAnimal>())
                var expected = ""
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let word = words.randomElement(using: &random)!
                    if Bool.random(using: &random) {
                        animal.species = word
                        expected = word
                    } else {
                        animal.speciesPlural = word + "s"
                        expected = word
                    }
                    #expect(
                        animal.speciesPlural == expected + "s",
                        "seed \(random.seed), round \(round)")
                }
                return (animal.objectID, expected)
            })
            let saved = try #require(try stack.fetchExisting(id))
            #expect(saved.speciesPlural == expected + "s", "seed \(random.seed), round \(round)")
            #expect(saved.species == expected, "seed \(random.seed), round \(round)")
        }
    }

    @Test
    func virtualFieldsLeaveTheFingerprintAsItWas() {
        let plain = Schema("A", entities: [Entity<VThing>("Thing")])
        let computed = Schema("B", entities: [Entity<VThingWithVirtuals>("Thing")])
        #expect(plain.fingerprint == computed.fingerprint)
    }

    @Test
    func onlyThePrototypeHoldsTheGetterAndSetter() throws {
        func accessors(_ object: ManagedObject) -> [String] {
            Mirror(reflecting: object).children.compactMap { child in
                guard let field = child.value as? Field.Virtual<String> else { return nil }
                switch field.accessors {
                case .none: return "none"
                case .declared: return "declared"
                case .held: return "held"
                }
            }
        }
        let animal = VAnimal()
        #expect(accessors(animal) == ["declared", "declared"])
        #expect(accessors(DeclaredFields.prototype(of: VAnimal.self)) == ["held", "held"])
        // Once used, an object keeps what it found for its next accesses.
        _ = animal.speciesPlural
        #expect(accessors(animal) == ["held", "declared"])
        #expect(String(keyPath: \VAnimal.$speciesPlural) == "speciesPlural")
        #expect(VAnimal().$label.name == "label")
    }

    @Test
    @MainActor
    func projectedValuesReadTheirObjectsFields() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(virtualSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let emu = tx.create(Into<VAnimal>())
            let keeper = tx.create(Into<VKeeper>())
            emu.species = "emu"
            emu.tags = ["tall", "fast"]
            emu.keeper = keeper
            #expect(emu.$species.value == "emu")
            #expect(emu.$tags.value == ["tall", "fast"])
            #expect(emu.$keeper.value === keeper)
            #expect(keeper.$animals.value == [emu])
        })
    }

    /// CoreStore's spellings that Strata refuses are compile errors that
    /// say what to write instead; the rest compiles.
    @Test
    func refusedCoreStoreSpellingsAreCompileErrorsSayingWhatToDo() throws {
        var source = DocSnippets.Source()
        for line in [
            "import Strata",
            "final class Animal: ManagedObject {",
            #"    @Field.Stored("species") var species: String = """#,
            #"    @Field.Virtual("a", customGetter: { (object: Animal, _) in object.species },"#,
            #"        affectedByKeyPaths: ["species"]) var a: String"#,
            #"    @Field.Virtual("b", customGetter: { (object: Animal, _) in object.species })"#,
            #"    var b: String = "b""#,
            #"    @Field.Virtual("c", customGetter: { (object: Animal, _) in object.species }) var c: String"#,
            #"    @Field.Virtual("d", customSetter: { (object: Animal, _, new) in object.species = new ?? "" })"#,
            "    var d: String?",
            #"    @Field.Virtual("e") var e: Int?"#,
            "}",
        ] {
            source.append(line, from: nil)
        }
        let errors = try DocSnippetTests.typeCheck(source)
        #expect(errors.count == 2, "\(errors)")
        #expect(errors.contains { $0.contains("line 4") && $0.contains("Strata has no KVO") }, "\(errors)")
        #expect(errors.contains { $0.contains("line 6") && $0.contains("takes no initial value") }, "\(errors)")
    }

    @Test
    func misusesTrapSayingWhatToDo() async {
        let mistyped = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = VMistyped().twice
        }
        let unset = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let animal = VAnimal()
            animal.$isPicked.primitiveValue = nil
            _ = animal.isPicked
        }
        let keyPathValue = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Field.Stored<String>(wrappedValue: "", "species").value
        }
        // A setter that writes stored fields obeys the main context's rule.
        let mainSetter = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(virtualSchema, .inMemory, in: directory)
                let id = try stack.perform(synchronous: { tx in tx.create(Into<VAnimal>()).objectID })
                try stack.fetchExisting(id)?.speciesPlural = "cats"
            }
        }
        func message(_ result: ExitTest.Result?) -> String {
            String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        }
        #expect(message(mistyped).contains("the customGetter of VMistyped.twice takes a VKeeper"))
        #expect(message(unset).contains("the virtual field 'isPicked' has no value"))
        #expect(message(mainSetter).contains("cannot set VAnimal.species on an object of the main context"))
        #expect(message(keyPathValue).contains("field.value reads the field of an object"))
    }
}
