import Testing

@testable import Strata

/// Fields among other stored properties of several sizes, so that the
/// wrappers do not lie in one run.
private class WoBase: ManagedObject {
    var scratch: (Int, Int, Int) = (0, 0, 0)
    @Field.Stored("title") var title: String = "untitled"
    let marker: UInt8 = 7
    @Field.Stored("count") var count: Int = 0
    @Field.Coded("tags") var tags: [String] = []
    @Field.Stored("ratio") var ratio: Double? = nil

    /// Where each stored field's wrapper lies, as its accessors find it.
    func wrapperOffsets() -> [String: Int] {
        ["title": wrapperOffset(&_title), "count": wrapperOffset(&_count), "ratio": wrapperOffset(&_ratio)]
    }

    /// Where the other stored properties lie.
    func otherOffsets() -> [Int] {
        [wrapperOffset(&scratch), wrapperOffset(&_tags)]
    }
}

/// A subentity, with a field whose getter is its own.
private final class WoChild: WoBase {
    var note = ""
    @Field.Stored("level") var level: Int = 1
    @Field.Stored("shout", customGetter: { (object: WoChild, field) in field.primitiveValue.uppercased() })
    var shout: String = ""

    override func wrapperOffsets() -> [String: Int] {
        super.wrapperOffsets().merging(["level": wrapperOffset(&_level)]) { old, _ in old }
    }

    override func otherOffsets() -> [Int] {
        super.otherOffsets() + [wrapperOffset(&note), wrapperOffset(&_shout)]
    }
}

/// A generic class: its layout comes from its metadata at run time.
private final class WoGeneric<Tag>: ManagedObject {
    var tag: Tag? = nil
    @Field.Stored("value") var value: Int = 0
    @Field.Stored("label") var label: String = ""

    func wrapperOffsets() -> [String: Int] {
        ["value": wrapperOffset(&_value), "label": wrapperOffset(&_label)]
    }
}

private let woSchema = Schema(
    "V1", entities: [Entity<WoBase>("WoBase"), Entity<WoChild>("WoChild"), Entity<WoGeneric<String>>("WoGeneric")])

/// A stored field's accessors find its value slot by where the field's
/// wrapper lies in the object (``ManagedObject/wrapperOffset(_:)``), in a
/// table each entity reads from its class's layout.
@Suite("ManagedObject: fields found by their wrappers' offsets")
struct WrapperOffsetTests {
    private func entity(_ name: String) throws -> EntityDescription {
        try #require(woSchema.entities.first { $0.name == name })
    }

    @Test func eachEntityFindsItsStoredFieldsWhereTheAccessorsLook() throws {
        let cases: [(String, [String: Int], [Int])] = [
            ("WoBase", WoBase().wrapperOffsets(), WoBase().otherOffsets()),
            ("WoChild", WoChild().wrapperOffsets(), WoChild().otherOffsets()),
            ("WoGeneric", WoGeneric<String>().wrapperOffsets(), []),
        ]
        for (name, offsets, others) in cases {
            let entity = try entity(name)
            for (field, offset) in offsets {
                #expect(entity.slot(ofWrapperAt: offset) == entity.slot(of: field), "\(name).\(field)")
                #expect(entity.slot(of: field) != nil, "\(name).\(field)")
            }
            // A coded field, a field with a custom getter and any other
            // property take the slow path; so do offsets no wrapper has.
            for offset in others + [-8, -1, 1, 3, 4_096, Int.max, Int.min] {
                #expect(entity.slot(ofWrapperAt: offset) == nil, "\(name) at \(offset)")
            }
        }
        // The subentity keeps its parent's fields where the parent has them.
        let base = WoBase().wrapperOffsets()
        for (field, offset) in WoChild().wrapperOffsets() where base[field] != nil {
            #expect(base[field] == offset, "\(field)")
        }
    }

    @Test func aClassesWrappersAreItsDeclaredFields() throws {
        let child = DeclaredFields.wrapperFields(of: WoChild.self)
        #expect(Set(child.values.map(\.declaration.name)) == ["title", "count", "tags", "ratio", "level", "shout"])
        for (field, offset) in WoChild().wrapperOffsets() {
            #expect(child[offset]?.declaration.name == field)
        }
        let generic = DeclaredFields.wrapperFields(of: WoGeneric<String>.self)
        #expect(Set(generic.values.map(\.declaration.name)) == ["value", "label"])
        // Another specialization's layout is its own.
        let other = DeclaredFields.wrapperFields(of: WoGeneric<(Int, Int, Int, Int)>.self)
        #expect(other[WoGeneric<(Int, Int, Int, Int)>().wrapperOffsets()["label"]!]?.declaration.name == "label")
        #expect(WoGeneric<(Int, Int, Int, Int)>().wrapperOffsets() != WoGeneric<String>().wrapperOffsets())
    }

    /// Each entity keeps its class's declarations by offset, for the slow
    /// paths of its objects: the same as the class's own table at every
    /// offset a wrapper has, and none anywhere else.
    @Test func eachEntityKeepsItsClassesDeclarationsByOffset() throws {
        let cases: [(String, ManagedObject.Type, [Int])] = [
            ("WoBase", WoBase.self, WoBase().otherOffsets()),
            ("WoChild", WoChild.self, WoChild().otherOffsets()),
            ("WoGeneric", WoGeneric<String>.self, []),
        ]
        for (name, type, others) in cases {
            let entity = try entity(name)
            let fields = DeclaredFields.wrapperFields(of: type)
            #expect(!fields.isEmpty, "\(name)")
            for (offset, field) in fields {
                #expect(entity.declaration(ofWrapperAt: offset) === field, "\(name) at \(offset)")
            }
            // The coded field's and the custom getter's wrappers are among the
            // class's fields; the plain properties are not.
            for offset in others where fields[offset] == nil {
                #expect(entity.declaration(ofWrapperAt: offset) == nil, "\(name) at \(offset)")
            }
            for offset in [-8, -1, 1, 3, 4_096, Int.max, Int.min] {
                #expect(entity.declaration(ofWrapperAt: offset) == nil, "\(name) at \(offset)")
            }
        }
    }

    /// The tables by offset are a pointer-sized word an entry (a wrapper
    /// holds one reference: 8 bytes here, 4 on a 32-bit platform). Seeded:
    /// declarations at random offsets, whole words and not, are found at
    /// exactly the whole-word ones, and nothing is found anywhere else.
    @Test(arguments: [UInt64(21), 22])
    func tablesByOffsetHoldWholeWordsOnly(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let size = MemoryLayout<UnsafeRawPointer>.size
        let declarations = Array(DeclaredFields.wrapperFields(of: WoChild.self).values)
        try #require(!declarations.isEmpty)
        for _ in 0..<50 {
            var fields: [Int: any AnyDeclaredField] = [:]
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                let offset = Int.random(in: -2 * size...(40 * size), using: &random)
                fields[offset] = declarations.randomElement(using: &random)!
            }
            let table = WrapperDeclarations(fields)
            for offset in -2 * size...(42 * size) {
                let expected = offset >= 0 && offset % size == 0 ? fields[offset] : nil
                #expect(table[offset] === expected, "seed \(seed): offset \(offset) of \(fields.keys.sorted())")
            }
            #expect(table[Int.max] == nil && table[Int.min] == nil)
        }
    }

    /// The slow paths of an object in a context, which find the declaration
    /// in its entity's table: a custom getter, a projection, and a field a
    /// transaction gave a value that cannot be stored.
    @Test @MainActor
    func anAttachedObjectsSlowPathsFindTheirFields() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(woSchema, .inMemory, in: directory)
        let id = try stack.perform(synchronous: { transaction in
            let child = transaction.create(Into<WoChild>())
            child.shout = "quiet"
            child.level = 4
            #expect(child.shout == "QUIET")
            #expect(child.$level.name == "level" && child.$shout.name == "shout" && child.$ratio.name == "ratio")
            child.ratio = .nan
            #expect(child.ratio?.isNaN == true)
            child.ratio = 0.5
            return child.objectID
        })
        let child = try #require(try stack.fetchExisting(id))
        #expect(child.shout == "QUIET" && child.level == 4 && child.ratio == 0.5)
        #expect(child.$title.name == "title" && child.$shout.name == "shout")
    }

    @Test func anObjectOutsideAContextReadsItsDefaults() {
        let child = WoChild()
        #expect(child.title == "untitled" && child.count == 0 && child.ratio == nil && child.level == 1)
        #expect(child.shout == "" && child.tags == [])
        #expect(child.$level.name == "level" && child.$title.name == "title")
        #expect(WoGeneric<Int>().label == "" && WoGeneric<Int>().$value.name == "value")
    }

    /// Random writes and reads of every field, of objects of a class, its
    /// subentity and a generic class, in transactions and then in the main
    /// context, against a plain record of what was written.
    @Test(arguments: [UInt64(11), 12, 13])
    @MainActor
    func randomWritesReadBackFieldByField(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(woSchema, .inMemory, in: directory)
        var expected: [AnyObjectID: Fields] = [:]
        for round in 0..<4 {
            var written: [AnyObjectID: Fields] = [:]
            try stack.perform(synchronous: { tx in
                var objects = try Self.everyObject(in: tx).filter { _ in Bool.random(using: &random) }
                for _ in 0..<Int.random(in: 5...20, using: &random) {
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: objects.append(tx.create(Into<WoBase>()))
                    case 1: objects.append(tx.create(Into<WoChild>()))
                    default: objects.append(tx.create(Into<WoGeneric<String>>()))
                    }
                }
                for _ in 0..<200 {
                    let object = objects.randomElement(using: &random)!
                    let id = object.objectID.erased
                    var fields = written[id] ?? expected[id] ?? Fields()
                    fields.change(object, to: Int.random(in: -1_000...1_000, using: &random), using: &random)
                    written[id] = fields
                    fields.check(object, "seed \(seed), round \(round), as written")
                }
                for object in objects {
                    let id = object.objectID.erased
                    (written[id] ?? expected[id] ?? Fields()).check(object, "seed \(seed), round \(round), at the end")
                }
            })
            expected.merge(written) { $1 }
            let fetched = try Self.everyObject(in: stack)
            #expect(fetched.count >= expected.count)
            for object in fetched {
                (expected[object.objectID.erased] ?? Fields())
                    .check(object, "seed \(seed), round \(round), in the main context")
            }
        }
        #expect(expected.count >= 10)
    }

    private static func everyObject(in source: some FetchableSource) throws -> [ManagedObject] {
        try source.fetchAll(From<WoBase>()) + source.fetchAll(From<WoGeneric<String>>())
    }

    /// What an object's fields should read.
    private struct Fields {
        var title = "untitled", count = 0, ratio: Double? = nil, tags: [String] = []
        var level = 1, shout = "", value = 0, label = ""

        /// Sets one field of `object`, chosen at random, and records it.
        mutating func change(_ object: ManagedObject, to number: Int, using random: inout SplitMix64) {
            if let generic = object as? WoGeneric<String> {
                if Bool.random(using: &random) {
                    generic.value = number
                    value = number
                } else {
                    generic.label = "l\(number)"
                    label = "l\(number)"
                }
                return
            }
            let base = object as! WoBase
            switch Int.random(in: 0..<(object is WoChild ? 6 : 4), using: &random) {
            case 0: base.title = "t\(number)"; title = "t\(number)"
            case 1: base.count = number; count = number
            case 2:
                ratio = number % 3 == 0 ? nil : Double(number) / 4
                base.ratio = ratio
            case 3: base.tags = ["g\(number)"]; tags = ["g\(number)"]
            case 4: (base as! WoChild).level = number; level = number
            default: (base as! WoChild).shout = "s\(number)"; shout = "s\(number)"
            }
        }

        func check(_ object: ManagedObject, _ place: String) {
            if let generic = object as? WoGeneric<String> {
                #expect(generic.value == value && generic.label == label, "\(place)")
                return
            }
            let base = object as! WoBase
            #expect(base.title == title && base.count == count, "\(place)")
            #expect(base.ratio == ratio && base.tags == tags, "\(place)")
            if let child = object as? WoChild {
                #expect(child.level == level && child.shout == shout.uppercased(), "\(place)")
            }
        }
    }
}
