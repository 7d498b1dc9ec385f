import Dispatch
import Foundation
@testable import Strata
import Synchronization
import Testing

// Declared fields beyond the plain case: class hierarchies, generic classes,
// initializers that make objects and read fields, defaults that cannot be
// stored, snapshots' fallbacks, traps, and describing racing ordinary work.

// MARK: Models

/// A non-final base class that is not an entity, with subclass entities: its
/// fields are each subclass's own. (A base class that is an entity too makes
/// an inheritance tree instead: `Tests/StrataTests/Schema/InheritanceTests.swift`.)
private class RvPet: ManagedObject {
    @Field.Stored("name", .indexed) var name: String = ""
    @Field.Coded("notes") var notes: [String] = ["none"]
    @Field.Relationship("keeper") var keeper: RvKeeper?
}

private final class RvCat: RvPet {
    @Field.Stored("lives", renamingIdentifier: "spareLives") var lives: Int = 9
}

private final class RvDog: RvPet {
    @Field.Stored("tricks") var tricks: Int = 0
    @Field.Virtual("isPicked") var isPicked: Bool = false
}

private final class RvKeeper: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("dogs", inverse: \RvDog.$keeper) var dogs: Set<RvDog>
    // Inverse rooted at a subclass, naming a relationship its superclass declares.
    @Field.Relationship("cats", inverse: \RvCat.$keeper, renamingIdentifier: "kittens") var cats: Set<RvCat>
    @Field.Coded("badge", renamingIdentifier: "emblem") var badge: String? = nil
}

private let rvPetSchema = Schema(
    "V1",
    entities: [
        Entity<RvCat>("RvCat"), Entity<RvDog>("RvDog"), Entity<RvKeeper>("RvKeeper"),
    ])

/// Not an entity: made by `RvBuilder.init()`.
private final class RvPart: ManagedObject {
    @Field.Stored("size") var size: Int = 3
    @Field.Coded("pieces") var pieces: [Int] = [1, 2]
}

/// An initializer that makes another object and reads fields, its own and that object's.
private final class RvBuilder: ManagedObject {
    @Field.Stored("total") var total: Int = 5
    @Field.Coded("meta") var meta: [String: Int] = ["k": 1]
    let part = RvPart()
    private(set) var seenAtInit = 0

    required init() {
        super.init()
        seenAtInit = total + meta["k", default: 0] + part.size + part.pieces.count + $total.name.count
    }
}

private final class RvNaN: ManagedObject {
    @Field.Stored("ratio") var ratio: Double = .nan
}

private final class RvUnencodable: ManagedObject {
    // JSONEncoder refuses non-finite numbers.
    @Field.Coded("weights") var weights: [Double] = [.infinity]
}

/// A generic entity class: each field access builds its key paths anew.
private final class RvBox<Tag>: ManagedObject {
    @Field.Stored("count") var count: Int = 0
    @Field.Coded("labels") var labels: [String] = []
    @Field.Relationship("holder") var holder: RvHolder?
}

private final class RvHolder: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("boxes", inverse: \RvBox<Int>.$holder) var boxes: Set<RvBox<Int>>
}

private let rvBoxSchema = Schema("V1", entities: [Entity<RvBox<Int>>("RvBox"), Entity<RvHolder>("RvHolder")])

/// An initializer that copies a field of a template object of its own class.
private final class RvTemplated: ManagedObject {
    nonisolated(unsafe) static var template: RvTemplated?
    @Field.Stored("label") var label: String = "plain"
    private(set) var copied = ""

    required init() {
        super.init()
        if let template = Self.template { copied = template.label }
    }
}

/// A property initializer that reads a field of another object of its class.
private final class RvEagerCopy: ManagedObject {
    nonisolated(unsafe) static var template: RvEagerCopy?
    @Field.Stored("label") var label: String = "plain"
    let copied: String = RvEagerCopy.template?.label ?? ""
}

/// Initializers that read a field of a shared object of the other class.
private final class RvMutualA: ManagedObject {
    nonisolated(unsafe) static var shared: RvMutualA?
    nonisolated(unsafe) static var isArmed = false
    @Field.Coded("a") var a: [Int] = [1]
    private(set) var seen = 0

    required init() {
        super.init()
        if Self.isArmed { seen = RvMutualB.shared?.b ?? 0 }
    }
}

private final class RvMutualB: ManagedObject {
    nonisolated(unsafe) static var shared: RvMutualB?
    @Field.Stored("b") var b: Int = 2
    private(set) var seen: [Int] = []

    required init() {
        super.init()
        if RvMutualA.isArmed { seen = RvMutualA.shared?.a ?? [] }
    }
}

// Fresh classes for the race: described only by the race test.
private final class RvRaceA: ManagedObject {
    @Field.Stored("a") var a: Int = 1
    @Field.Coded("c") var c: [Int] = [1]
}

private final class RvRaceB: ManagedObject {
    @Field.Stored("b") var b: String = "b"
    @Field.Relationship("a") var a: RvRaceA?
}

private class RvRaceBase: ManagedObject {
    @Field.Stored("base") var base: Int = 2
}

private final class RvRaceSub: RvRaceBase {
    @Field.Stored("sub") var sub: Int = 3
}

// MARK: Helpers

/// How many field wrappers of `object` (and its superclasses) hold a declaration.
private func declarationsHeld(by object: ManagedObject) -> Int {
    var count = 0
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
        for child in current.children {
            if let wrapper = child.value as? any FieldWrapper, wrapper.declared != nil,
               !(child.value is Field.Virtual<Bool>)
            {
                count += 1
            }
        }
        mirror = current.superclassMirror
    }
    return count
}

private func entity(_ name: String, of schema: Schema) throws -> EntityDescription {
    try #require(schema.entities.first { $0.name == name })
}

/// The bytes the process holds in live heap blocks, as the sanitizer counts
/// them when one runs (`--sanitize=address` or `thread`); else its resident
/// memory, from `/proc/self/statm` (Linux). Under a sanitizer the resident
/// memory is no measure: freed blocks wait in its quarantine (256 MB by
/// default) before they are reused, so every short-lived key path would count.
private func heapInUse() -> Int {
    if let symbol = dlsym(dlopen(nil, RTLD_NOW), "__sanitizer_get_current_allocated_bytes") {
        return unsafeBitCast(symbol, to: (@convention(c) () -> Int).self)()
    }
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4096 : 0
}

/// In a child process: the heap growth of 100,000 reads of each kind of
/// field of a generic entity, written to standard error as `name=bytes`.
@MainActor
private func measureGenericEntityReads() throws {
    let directory = TemporaryDirectory()
    let stack = try makeStack(rvBoxSchema, .inMemory, in: directory)
    try stack.perform(synchronous: { tx in
        let holder = tx.create(Into<RvHolder>())
        holder.name = "h"
        let box = tx.create(Into<RvBox<Int>>())
        box.labels = ["x"]
        box.holder = holder
    })
    guard let box = try stack.fetchOne(From<RvBox<Int>>()) else { fatalError("no box") }
    let detached = RvBox<Int>()
    let reads: [(String, () -> Int)] = [
        ("coded", { box.labels.count }),
        ("relationship", { box.holder == nil ? 0 : 1 }),
        ("detachedStored", { detached.count }),
        ("detachedCoded", { detached.labels.count }),
    ]
    var report = ""
    var sink = 0
    for (name, read) in reads {
        for _ in 0..<1_000 { sink &+= read() }  // warm up
        let before = heapInUse()
        for _ in 0..<100_000 { sink &+= read() }
        report += "\(name)=\(heapInUse() - before)\n"
    }
    FileHandle.standardError.write(Data((report + "sink=\(sink)\n").utf8))
}

// MARK: Tests

@Suite("Declared fields: edge cases")
struct DeclaredFieldEdgeCaseTests {

    /// Reading a coded or relationship field (or any field of a detached
    /// object) of a generic entity class looks its declaration up by key
    /// path; a generic class's accessors build a new key path object for
    /// every access, so the look-up must not keep one entry per read.
    @Test
    func readingFieldsOfAGenericEntityDoesNotGrowTheHeap() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            try await MainActor.run { try measureGenericEntityReads() }
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        var growth: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2, let bytes = Int(parts[1]) { growth[String(parts[0])] = bytes }
        }
        for name in ["coded", "relationship", "detachedStored", "detachedCoded"] {
            let bytes = try #require(growth[name], "no figure for \(name) in: \(text)")
            // 100,000 reads: a leak of one key path and one table entry per read is ~10 MB.
            #expect(bytes < 2_000_000, "100,000 \(name) reads kept \(bytes) bytes")
        }
    }

    /// A generic class's accessors make a new key path object on every
    /// access; the context's table of resolved fields keeps one entry per
    /// field all the same, in the main context and in a transaction.
    @Test
    @MainActor
    func readingFieldsOfAGenericEntityKeepsTheContextTableBounded() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(rvBoxSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let box = tx.create(Into<RvBox<Int>>())
            box.labels = ["x"]
            var sum = 0
            for round in 0..<2_000 {
                box.count = round
                sum += box.count + box.labels.count
            }
            #expect(sum == (0..<2_000).reduce(0, +) + 2_000)
            #expect(tx.contexts.primary.resolvedKeyPathCount <= 2)
        })
        let box = try #require(try stack.fetchOne(From<RvBox<Int>>()))
        var sum = 0
        for _ in 0..<2_000 { sum += box.count + box.labels.count }
        #expect(sum == 2_000 * 2_000)
        #expect(try stack.main().context.resolvedKeyPathCount <= 2)
    }

    /// An initializer may read a field of another, ordinary object of its
    /// own class (a template made earlier), or of a class whose initializer
    /// reads one of its class: the read asks for the class's prototype,
    /// whose own initializer reads the template again before the prototype
    /// is kept, and gets the prototype being made.
    @Test
    func anInitializerMayReadAFieldOfAnotherObjectOfItsClass() async {
        await #expect(processExitsWith: .success) {
            RvTemplated.template = RvTemplated()
            let copy = RvTemplated()
            if copy.copied != "plain" { exit(1) }
        }
        await #expect(processExitsWith: .success) {
            RvMutualA.shared = RvMutualA()
            RvMutualB.shared = RvMutualB()
            RvMutualA.isArmed = true
            if RvMutualA().seen != 2 || RvMutualB().seen != [1] { exit(1) }
        }
        // Before super.init() there is no prototype to hand out: a trap that says so.
        let eager = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            RvEagerCopy.template = RvEagerCopy()
            _ = RvEagerCopy()
        }
        let message = String(decoding: eager?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("a property initializer of RvEagerCopy"), "\(message)")
    }

    @Test
    func hierarchiesWithSharedBaseClassesAndSubclassEntitiesReachTheSchema() throws {
        try rvPetSchema.validate()
        let cat = try entity("RvCat", of: rvPetSchema)
        #expect(cat.attributes.map(\.name).contains("name") && cat.attributes.map(\.name).contains("notes"))
        #expect(cat.attributes.first { $0.name == "lives" }?.renamingIdentifier == "spareLives")
        #expect(cat.attributes.first { $0.name == "name" }?.options == .indexed)
        let keeper = try entity("RvKeeper", of: rvPetSchema)
        #expect(keeper.relationships["cats"]?.inverse == "keeper")
        #expect(keeper.relationships["cats"]?.renamingIdentifier == "kittens")
        #expect(keeper.relationships["dogs"]?.inverse == "keeper")
        #expect(keeper.attributes.first { $0.name == "badge" }?.renamingIdentifier == "emblem")
        #expect(try entity("RvCat", of: rvPetSchema).relationships["keeper"]?.inverse == "cats")
        #expect(try entity("RvDog", of: rvPetSchema).relationships["keeper"]?.inverse == "dogs")
        #expect(try entity("RvCat", of: rvPetSchema).tree == nil)
    }

    @Test
    @MainActor
    func inheritedFieldsOfSubclassEntitiesAreStoredQueriedObservedAndRead() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(rvPetSchema, .inMemory, in: directory)
        let catID = try stack.perform(synchronous: { tx in
            let keeper = tx.create(Into<RvKeeper>())
            keeper.name = "K"
            let cat = tx.create(Into<RvCat>())
            cat.name = "Tom"
            cat.notes = ["purrs"]
            cat.keeper = keeper
            let dog = tx.create(Into<RvDog>())
            dog.name = "Rex"
            dog.keeper = keeper
            return cat.objectID
        })
        let keeper = try #require(try stack.fetchOne(From<RvKeeper>()))
        #expect(keeper.cats.map(\.name) == ["Tom"])
        #expect(keeper.dogs.count == 1)
        let appended = (\RvCat.self).appending(path: \RvCat.$name)
        let cat = try #require(try stack.fetchOne(From<RvCat>().where(appended == "Tom")))
        #expect(cat.notes == ["purrs"] && cat.lives == 9 && cat.keeper?.name == "K")
        #expect(cat.$name.name == "name" && cat.$name.options == .indexed && cat.$lives.renamingIdentifier == "spareLives")
        var seen: [[String]] = []
        let token = cat.$name.observe { old, new in seen.append([old, new]) }
        try stack.perform(synchronous: { tx in tx.edit(catID)!.name = "Tim" })
        #expect(seen == [["Tom", "Tim"]])
        token.cancel()
        #expect(FieldPath.name(\RvDog.$isPicked) == "isPicked")
        #expect(try stack.fetchCount(From<RvDog>().where(\.$name == "Rex")) == 1)
        // The base class's relationship and coded field are resolved by key
        // path once for each entity that inherits them, so neither entity's
        // reads take the slow path again; a stored field is found by its
        // wrapper's offset, with no key path to resolve.
        let dog = try #require(try stack.fetchOne(From<RvDog>()))
        let main = try stack.main().context
        let before = main.resolvedKeyPathCount
        #expect(dog.name == "Rex" && dog.keeper?.name == "K" && dog.notes == ["none"])
        #expect(main.resolvedKeyPathCount == before + 2)
        #expect(cat.name == "Tim" && dog.name == "Rex" && dog.keeper != nil && dog.notes == ["none"])
        #expect(main.resolvedKeyPathCount == before + 2)
    }

    @Test
    @MainActor
    func anInitializerMayMakeObjectsAndReadFields() throws {
        #expect(RvBuilder().seenAtInit == 16)
        #expect((DeclaredFields.describe(RvBuilder.self) as? RvBuilder)?.seenAtInit == 16)
        #expect(declarationsHeld(by: RvBuilder()) == 0)
        let schema = Schema("V1", entities: [Entity<RvBuilder>("RvBuilder")])
        try schema.validate()
        let directory = TemporaryDirectory()
        let stack = try makeStack(schema, .inMemory, in: directory)
        let made = try stack.perform(synchronous: { tx in
            let builder = tx.create(Into<RvBuilder>())
            builder.total = 7
            return builder.seenAtInit
        })
        #expect(made == 16)
        let fetched = try #require(try stack.fetchOne(From<RvBuilder>()))
        #expect(fetched.total == 7 && fetched.meta == ["k": 1] && fetched.seenAtInit == 16)
    }

    @Test
    @MainActor
    func defaultsThatCannotBeStoredOrEncodedAreInvalidSchemas() {
        for (schema, entityName, field) in [
            (Schema("V1", entities: [Entity<RvNaN>("RvNaN")]), "RvNaN", "ratio"),
            (Schema("V1", entities: [Entity<RvUnencodable>("RvUnencodable")]), "RvUnencodable", "weights"),
        ] {
            let error = #expect(throws: StrataError.self) { try schema.validate() }
            guard case let .invalidSchema(errorEntity, errorField, reason)? = error else {
                Issue.record("expected .invalidSchema, got \(String(describing: error))")
                continue
            }
            #expect(errorEntity == entityName && errorField == field, "\(reason)")
            #expect(reason.contains("cannot be"), "\(reason)")
        }
        #expect(RvNaN().ratio.isNaN && RvUnencodable().weights == [.infinity])
        #expect(RvNaN().$ratio.name == "ratio" && RvNaN().$ratio.options == [])
    }

    @Test
    func snapshotsReadTheDefaultOfAStoredOrCodedFieldHoldingABadValue() throws {
        let cat = try entity("RvCat", of: rvPetSchema)
        var values = ContiguousArray(cat.attributes.map(\.defaultValue))
        values[try #require(cat.slot(of: "name"))] = .null
        values[try #require(cat.slot(of: "notes"))] = .text("{not json")
        values[try #require(cat.slot(of: "lives"))] = .integer(4)
        let snapshot = ObjectSnapshot<RvCat>(entity: cat, rowID: 1, values: values)
        #expect(snapshot.$name == "")
        #expect(snapshot.$notes == ["none"])
        #expect(snapshot.$lives == 4)
    }

    @Test
    func trapsOnWritesStillNameTheField() async {
        let detached = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            RvCat().lives = 3
        }
        let mainContext = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(rvPetSchema, .inMemory, in: directory)
                let id = try stack.perform(synchronous: { tx in tx.create(Into<RvCat>()).objectID })
                try stack.fetchExisting(id)?.notes = ["x"]
            }
        }
        let messages = [detached, mainContext].map {
            String(decoding: $0?.standardErrorContent ?? [], as: UTF8.self)
        }
        #expect(messages[0].contains("lives"), "\(messages[0])")
        #expect(messages[1].contains("RvCat.notes"), "\(messages[1])")
    }

    @Test
    func describingRacesWithOrdinaryObjectsAndSchemasOnManyThreads() {
        let plainWithDeclarations = Atomic<Int>(0)
        let wrong = Atomic<Int>(0)
        let fingerprints = Locked<Set<String>>([])  // not Mutex, which the thread sanitizer cannot see
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for _ in 0..<200 {
                if worker.isMultiple(of: 2) {
                    let schema = Schema(
                        "V1",
                        entities: [
                            Entity<RvRaceA>("A"), Entity<RvRaceB>("B"), Entity<RvRaceSub>("Sub"),
                        ])
                    if (try? schema.validate()) == nil { wrong.add(1, ordering: .relaxed) }
                    fingerprints.withLock { _ = $0.insert(schema.fingerprint) }
                } else {
                    let a = RvRaceA()
                    let b = RvRaceB()
                    let sub = RvRaceSub()
                    let held = declarationsHeld(by: a) + declarationsHeld(by: b) + declarationsHeld(by: sub)
                    if held != 0 { plainWithDeclarations.add(1, ordering: .relaxed) }
                    if a.a != 1 || a.c != [1] || b.b != "b" || b.a != nil || sub.base != 2 || sub.sub != 3
                        || a.$c.name != "c" || FieldPath.name(\RvRaceSub.$base) != "base"
                    {
                        wrong.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(plainWithDeclarations.load(ordering: .relaxed) == 0)
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(fingerprints.withLock { $0.count } == 1)
    }
}
