@_spi(Reflection) import Swift
import Foundation
import Synchronization

/// What one `@Field` declaration says: its ``FieldDeclaration`` and its
/// typed default, plus, in a projected value (`object.$age`), the object it
/// was read from.
///
/// Every object stores one wrapper per field, and most of what a wrapper is
/// given (name, options, default) is the same for every object of a class.
/// So the wrapper an ordinary object stores holds no `DeclaredField`, only
/// `nil`: one word, written at creation, with nothing to release. The
/// declarations are read once per class from a prototype made while
/// describing (see ``DeclaredFields``), whose wrappers hold them.
@usableFromInline
final class DeclaredField<Value>: AnyDeclaredField {
    let declaration: FieldDeclaration
    let defaultValue: Value
    /// How a coded field's values are stored; `nil` for any other field.
    let coding: FieldCoding<Value>?
    /// A stored or coded field's `customGetter` and `customSetter` (a
    /// ``StoredAccessors`` or ``CodedAccessors`` of `Value`); `nil` for a
    /// field without them, which its accessors read and write in place.
    let accessors: (any AnyFieldAccessors)?
    /// The object whose field this is, in a projected value; `nil` otherwise.
    let object: ManagedObject?

    init(
        _ declaration: FieldDeclaration, defaultValue: Value, coding: FieldCoding<Value>? = nil,
        accessors: (any AnyFieldAccessors)? = nil, object: ManagedObject? = nil
    ) {
        self.declaration = declaration
        self.defaultValue = defaultValue
        self.coding = coding
        self.accessors = accessors
        self.object = object
    }

    /// The same declaration, carrying `object`: a projected value.
    func projected(onto object: ManagedObject) -> DeclaredField {
        DeclaredField(declaration, defaultValue: defaultValue, coding: coding, accessors: accessors, object: object)
    }

    /// How a coded field's values are stored.
    var codedForm: FieldCoding<Value> {
        guard let coding else { preconditionFailure("\(declaration.name) is not a coded field") }
        return coding
    }

    /// The options of a stored field; `[]` for any other.
    var options: FieldOptions {
        if case let .stored(_, _, _, options) = declaration.kind { return options }
        return []
    }
}

/// A ``DeclaredField`` of any value type.
protocol AnyDeclaredField: AnyObject {
    var declaration: FieldDeclaration { get }
    /// The Swift type of the field's values (`Int?`, `Set<Pet>`…).
    var valueType: Any.Type { get }
    /// Whether reading or setting the field runs a `customGetter` or
    /// `customSetter`, so that its accessors must not take the fast path.
    var hasCustomAccessors: Bool { get }
}

extension AnyDeclaredField {
    var hasCustomAccessors: Bool { false }
}

extension DeclaredField {
    var valueType: Any.Type { Value.self }
    var hasCustomAccessors: Bool { accessors != nil }
}

/// Where the declarations of a model's fields are read: one prototype per
/// class, made while describing, and the fields at key paths into it.
@usableFromInline
enum DeclaredFields {
    /// How many threads are making a prototype. Read by every field
    /// wrapper's initializer, so that the wrappers of ordinary objects pay
    /// one load for it.
    @usableFromInline static let describers = Atomic<Int>(0)
    /// The class this thread (or task) is describing, if any.
    @TaskLocal private static var describingHere: Description?

    /// A class being described, and its prototype once `ManagedObject.init()`
    /// has run for it (its wrappers are initialized by then, its
    /// initializers' bodies not yet); `outer` is the description this one
    /// runs in. `@unchecked Sendable`: only the describing thread uses it.
    private final class Description: @unchecked Sendable {
        let type: ObjectIdentifier
        let outer: Description?
        var object: ManagedObject?

        init(_ type: ObjectIdentifier, outer: Description?) {
            self.type = type
            self.outer = outer
        }
    }

    /// Whether a field wrapper being initialized belongs to a prototype, and
    /// must therefore keep its declaration.
    @inlinable
    static var isDescribing: Bool {
        describers.load(ordering: .relaxed) != 0 && isDescribingHere()
    }

    @usableFromInline
    static func isDescribingHere() -> Bool { describingHere != nil }

    /// Called by `ManagedObject.init()` while describing: the first object of
    /// the class being described is its prototype.
    static func initialized(_ object: ManagedObject) {
        guard let description = describingHere, description.object == nil,
              description.type == ObjectIdentifier(type(of: object))
        else { return }
        description.object = object
    }

    /// `@unchecked Sendable`: a prototype is never changed once made, only read.
    private struct Prototype: @unchecked Sendable {
        let object: ManagedObject
    }

    /// A key path and the field it names. An object, so that ``lastFound``
    /// can point to one; never freed, as the table never forgets an entry.
    /// `@unchecked Sendable`: key paths and declared fields are immutable.
    private final class Found: @unchecked Sendable {
        let keyPath: AnyKeyPath
        let field: any AnyDeclaredField
        /// The field's declared name, read once.
        let name: String

        init(keyPath: AnyKeyPath, field: any AnyDeclaredField) {
            self.keyPath = keyPath
            self.field = field
            self.name = field.declaration.name
        }
    }

    /// Fields already found: by key path identity, the usual hit, and by key
    /// path value. A generic class's accessors build a new key path object
    /// on every access, so only the first of equal key paths is added: the
    /// table grows by one entry per field, not per access. Each key path is
    /// kept beside its field, so no identity in the table can be reused.
    private struct FoundTable {
        var byIdentity: [ObjectIdentifier: Found] = [:]
        var byValue: [ValueKey: Found] = [:]
    }

    /// A key path compared by value. `@unchecked Sendable`: key paths are immutable.
    private struct ValueKey: Hashable, @unchecked Sendable {
        let keyPath: AnyKeyPath
    }

    // `Locked`, not `Mutex`: every thread's field access may reach these.
    private static let prototypes = Locked<[ObjectIdentifier: Prototype]>([:])
    private static let found = Locked(FoundTable())
    private static let wrapperTables = Locked<[ObjectIdentifier: [Int: any AnyDeclaredField]]>([:])
    /// The entry of `found` that a look-up by identity found last: a query
    /// built in a loop (`\.$code == code`) names the same key path each
    /// time, and finds its field here without the lock and the hashing.
    private static let lastFound = LastFound<Found>()
    /// Held while a key path is read on a prototype: a projected value's
    /// accessor (`\.$age`) reaches its wrapper through an `inout` access,
    /// which two threads looking up the same new key path at once must not
    /// make together on their class's one prototype (the thread sanitizer
    /// reported it, 7 December). Recursive: the key path may be a computed
    /// property whose getter names another field.
    private static let prototypeReads = NSRecursiveLock()

    /// The prototype of `type`: an instance whose field wrappers hold their
    /// declarations. Made once per class.
    static func prototype(of type: ManagedObject.Type) -> ManagedObject {
        let id = ObjectIdentifier(type)
        if let made = prototypes.withLock({ $0[id] }) { return made.object }
        // Asked for again while its initializer runs (it reads a field of
        // another object of its class): the prototype being made.
        var description = describingHere
        while let current = description, current.type != id { description = current.outer }
        if let description {
            guard let object = description.object else {
                misuse(
                    "Strata: a property initializer of \(type) reads a field of another \(type) "
                        + "while Strata describes the class; read it in init(), after super.init().")
            }
            return object
        }
        // Made outside the lock: the class's initializer may create other objects.
        let made = Prototype(object: describe(type))
        return prototypes.withLock { table in
            if let first = table[id] { return first }
            table[id] = made
            return made
        }.object
    }

    /// A new instance of `type` whose field wrappers hold their declarations.
    /// Wrappers initialized meanwhile on other threads do not.
    static func describe(_ type: ManagedObject.Type) -> ManagedObject {
        describers.add(1, ordering: .relaxed)
        defer { describers.subtract(1, ordering: .relaxed) }
        return $describingHere.withValue(Description(ObjectIdentifier(type), outer: describingHere)) {
            type.init()
        }
    }

    /// The fields of `type` and of its superclasses by where their wrappers
    /// lie in an object of `type`: the offset of each wrapper's storage
    /// (`_age`) from the object's start, as the class's layout fixes it.
    /// A field's accessors find their wrapper's offset with no key path at
    /// run time (see ``ManagedObject/wrapperOffset(_:)``), and a value slot
    /// by it (``EntityDescription/slot(ofWrapperAt:)``). Read once per class
    /// from the prototype, through the class's reflection metadata, which
    /// `Mirror` needs too.
    static func wrapperFields(of type: ManagedObject.Type) -> [Int: any AnyDeclaredField] {
        let id = ObjectIdentifier(type)
        if let known = wrapperTables.withLock({ $0[id] }) { return known }
        let prototype = prototype(of: type)
        var fields: [Int: any AnyDeclaredField] = [:]
        withExtendedLifetime(prototype) {
            let object = UnsafeRawPointer(Unmanaged.passUnretained(prototype).toOpaque())
            // The option `.classType`, spelled by its value: the stdlib's
            // static property is mutable state to Swift 6.
            _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) { _, offset, fieldType, _ in
                if let wrapper = fieldType as? any FieldWrapper.Type,
                   let field = wrapper.declared(at: object + offset) {
                    fields[offset] = field
                }
                return true
            }
        }
        return wrapperTables.withLock { tables in
            if let first = tables[id] { return first }
            tables[id] = fields
            return fields
        }
    }

    /// The field whose wrapper lies `offset` bytes into `object`, with its
    /// typed default: an array read in the table of the object's entity
    /// (``EntityDescription/declaration(ofWrapperAt:)``), or else (an object
    /// outside a context, an offset the table does not cover) a look-up in
    /// its class's ``wrapperFields(of:)``.
    @usableFromInline
    static func field<Value>(
        ofWrapperAt offset: Int, in object: ManagedObject, of _: Value.Type
    ) -> DeclaredField<Value> {
        let type = type(of: object)
        // The entity's class is the object's (Strata makes each object of
        // its entity's class); compared all the same, as it is cheap.
        let entity = object.entity.flatMap { ObjectIdentifier($0.type) == ObjectIdentifier(type) ? $0 : nil }
        let found = entity?.declaration(ofWrapperAt: offset) ?? wrapperFields(of: type)[offset]
        guard let field = found as? DeclaredField<Value> else {
            misuse("Strata: no @Field of \(type) lies at offset \(offset) of its objects.")
        }
        return field
    }

    /// The declarations of `type`'s fields and its superclasses', in
    /// declaration order, superclasses first.
    static func declarations(of type: ManagedObject.Type) -> [FieldDeclaration] {
        declarationsByClass(of: type).flatMap(\.fields)
    }

    /// The declarations of `type`'s fields grouped by the class that
    /// declares them, superclasses first (up to `ManagedObject`'s subclasses).
    static func declarationsByClass(
        of type: ManagedObject.Type
    ) -> [(type: Any.Type, fields: [FieldDeclaration])] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: prototype(of: type))
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        return mirrors.map { mirror in
            (mirror.subjectType, mirror.children.compactMap {
                ($0.value as? any FieldWrapper)?.declared?.declaration
            })
        }
    }

    /// The field at `keyPath`: a wrapper's storage (`\._age`) or its
    /// projected value (`\.$age`); `nil` when the key path names no field.
    static func field(at keyPath: AnyKeyPath) -> (any AnyDeclaredField)? {
        found(at: keyPath)?.field
    }

    /// The declared name of the field at `keyPath`; `nil` when the key path
    /// names no field.
    static func name(at keyPath: AnyKeyPath) -> String? {
        found(at: keyPath)?.name
    }

    private static func found(at keyPath: AnyKeyPath) -> Found? {
        let id = ObjectIdentifier(keyPath)
        // Its key path is alive, held by the entry: no other can have its identity.
        if let last = lastFound.entry(), ObjectIdentifier(last.keyPath) == id { return last }
        let key = ValueKey(keyPath: keyPath)
        if let known = found.withLock({ $0.byIdentity[id] ?? $0.byValue[key] }) {
            remember(known, for: id)
            return known
        }
        guard let root = type(of: keyPath).rootType as? ManagedObject.Type else { return nil }
        let prototype = prototype(of: root)
        guard let field = prototypeReads.withLock({ prototype[keyPath: keyPath] as? any FieldWrapper })?.declared
        else { return nil }
        let entry = found.withLock { table in
            if let first = table.byValue[key] { return first }
            let entry = Found(keyPath: key.keyPath, field: field)
            table.byValue[key] = entry
            table.byIdentity[id] = entry
            return entry
        }
        remember(entry, for: id)
        return entry
    }

    /// Makes `entry` the one ``lastFound`` points to when it is the entry of
    /// `id` itself (not of an equal key path found by value, which the next
    /// look-up by `id` would miss anyway).
    private static func remember(_ entry: Found, for id: ObjectIdentifier) {
        guard ObjectIdentifier(entry.keyPath) == id else { return }
        lastFound.remember(entry)
    }

    /// The declaration a projected value holds. A wrapper built by hand,
    /// outside a class, holds none: reading it traps.
    static func held<Value>(_ field: DeclaredField<Value>?) -> DeclaredField<Value> {
        guard let field else {
            misuse(
                "Strata: read a field's name and options through the projected value "
                    + "(object.$field or \\.$field) of a ManagedObject subclass's field.")
        }
        return field
    }

    /// The field whose wrapper is at `keyPath`, with its typed default:
    /// `own`, what that wrapper holds, when it holds it. A prototype's
    /// wrappers do, so a prototype's initializer that reads its own fields
    /// does not ask for the prototype being made.
    @usableFromInline
    static func field<Value>(own: DeclaredField<Value>?, at keyPath: AnyKeyPath) -> DeclaredField<Value> {
        own ?? field(at: keyPath, of: Value.self)
    }

    /// The field whose wrapper is at `keyPath`, with its typed default.
    @usableFromInline
    static func field<Value>(at keyPath: AnyKeyPath, of _: Value.Type) -> DeclaredField<Value> {
        guard let field = field(at: keyPath) as? DeclaredField<Value> else {
            misuse("Strata: \(keyPath) does not name a @Field of a ManagedObject subclass.")
        }
        return field
    }
}

/// The declarations of a class's fields by where their wrappers lie in its
/// objects, in words (``DeclaredFields/wrapperFields(of:)`` as an array):
/// what an entity keeps, so that a field's slow path (custom accessors, a
/// pending value that cannot be stored, a projection `object.$name`) finds
/// its declaration with no lock and no hashing. `@unchecked Sendable`: the
/// declarations are a prototype's, made once and never changed (a
/// projection's, which carry an object, are never kept here).
struct WrapperDeclarations: @unchecked Sendable {
    private let byWord: [(any AnyDeclaredField)?]

    init(_ fields: [Int: any AnyDeclaredField]) {
        byWord = WrapperWords.table(of: fields, empty: nil) { $0 }
    }

    /// The declaration whose wrapper lies `offset` bytes into an object;
    /// `nil` at any other offset.
    subscript(offset: Int) -> (any AnyDeclaredField)? {
        WrapperWords.word(at: offset, within: byWord.count).flatMap { byWord[$0] }
    }
}

/// The tables an entity keeps by its fields' wrapper offsets, a word an
/// entry: a wrapper holds one reference, so it lies a whole number of
/// pointer-sized words into an object (8 bytes, 4 on a 32-bit platform).
enum WrapperWords {
    /// A word's bytes; computed, so that it folds to a constant on the
    /// field accessors' fast path.
    static var size: Int { MemoryLayout<UnsafeRawPointer>.size }

    /// A table with an entry for each word a wrapper in `fields` lies at:
    /// what `entry` makes of its declaration, `empty` where it makes
    /// nothing and at the words between.
    static func table<Entry>(
        of fields: [Int: any AnyDeclaredField], empty: Entry, _ entry: (any AnyDeclaredField) -> Entry?
    ) -> [Entry] {
        var table: [Entry] = []
        for (offset, field) in fields {
            guard offset >= 0, offset % size == 0, let made = entry(field) else { continue }
            let word = offset / size
            if table.count <= word { table += repeatElement(empty, count: word + 1 - table.count) }
            table[word] = made
        }
        return table
    }

    /// The index of the word `offset` bytes into an object, in a table of
    /// `count` words; `nil` for an offset that is not a whole number of
    /// words into the table (negative, unaligned, past it).
    @inline(__always)
    static func word(at offset: Int, within count: Int) -> Int? {
        guard offset >= 0, offset % size == 0 else { return nil }
        let word = offset / size
        return word < count ? word : nil
    }
}
