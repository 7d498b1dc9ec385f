/// The namespace of the property wrappers that declare a model's fields.
///
/// ```swift
/// final class Person: ManagedObject {
///     @Field.Stored("name") var name: String = ""
///     @Field.Stored("email", .unique) var email: String? = nil
///     @Field.Coded("tags") var tags: [String] = []
///     @Field.Virtual("isSelected") var isSelected: Bool = false
///     @Field.Relationship("pets", inverse: \Pet.$owner, deleteRule: .cascade)
///     var pets: Set<Pet>
/// }
/// ```
public enum Field {}

/// Options of a stored field.
public struct FieldOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// No two objects of the entity may hold the same value (a unique index).
    public static let unique = FieldOptions(rawValue: 1 << 0)
    /// Queries on the field use an index.
    public static let indexed = FieldOptions(rawValue: 1 << 1)
}

/// What happens to related objects when an object is deleted.
public enum DeleteRule: String, Sendable, Hashable {
    /// The related objects stay; their link back to the deleted object is cleared.
    case nullify
    /// The related objects are deleted too.
    case cascade
    /// The delete fails the commit with ``StrataError/deleteDenied(entity:relationship:relatedCount:)``
    /// while any related object remains.
    case deny
}

/// How many objects a to-many relationship may hold once it holds any:
/// `minCount` and `maxCount` of `@Field.Relationship`, 0 for no bound.
struct MemberCounts: Hashable {
    var min = 0
    var max = 0

    /// Whether either bound is set.
    var isBounded: Bool { min != 0 || max != 0 }

    /// Why `count` members break the bounds, or `nil` when they do not. An
    /// empty relationship never does, as in Core Data and CoreStore.
    func violation(by count: Int) -> String? {
        if count > 0, count < min { return "fewer than its minCount of \(min)" }
        if max > 0, count > max { return "more than its maxCount of \(max)" }
        return nil
    }
}

/// What the schema learns from one property wrapper, read by reflection.
struct FieldDeclaration {
    enum Kind {
        case stored(StoredType, isOptional: Bool, defaultValue: StoredValue, options: FieldOptions)
        case coded(StoredType, isOptional: Bool, defaultValue: StoredValue)
        case virtual
        case relationship(
            target: ManagedObject.Type, cardinality: RelationshipCardinality,
            inverse: AnyKeyPath?, deleteRule: DeleteRule, counts: MemberCounts)
    }

    var name: String
    var kind: Kind
    /// Why the declaration cannot be used, found while reading it.
    var problem: String?
    /// The field's name in the previous schema version, for migrations.
    var renamingIdentifier: String? = nil
    /// Makes each new object's value, for a field declared with
    /// `dynamicInitialValue:`.
    var initialValue: InitialValue? = nil
}

/// Makes a field's value for each new object (`dynamicInitialValue:`); throws
/// when the value cannot be stored.
typealias InitialValue = @Sendable () throws -> StoredValue

extension FieldDeclaration {
    /// A declaration whose kind holds the stored default value: when `kind`
    /// throws (a default that cannot be stored), a declaration whose problem
    /// is `reason` and the error.
    init(
        name: String, renamingIdentifier: String?, initialValue: InitialValue? = nil, failing reason: String,
        kind: () throws -> Kind
    ) {
        do {
            self.init(
                name: name, kind: try kind(), renamingIdentifier: renamingIdentifier, initialValue: initialValue)
        } catch {
            self.init(name: name, kind: .virtual, problem: "\(reason): \(error)")
        }
    }
}

/// A property wrapper that declares a field.
protocol FieldWrapper {
    /// The field's declaration: held by a prototype's wrappers and by
    /// projected values, `nil` in the wrapper an ordinary object stores (see
    /// ``DeclaredField``).
    var declared: (any AnyDeclaredField)? { get }
}

extension FieldWrapper {
    /// The declaration held by the wrapper of this type at `address`: the
    /// wrapper a prototype stores, read where its class's layout puts it.
    static func declared(at address: UnsafeRawPointer) -> (any AnyDeclaredField)? {
        address.load(as: Self.self).declared
    }
}

/// A field wrapper whose one stored property is its ``DeclaredField``:
/// `Field.Stored`, `Field.Coded` and `Field.Relationship`. What they share
/// lives here; the projected `_enclosingInstance` subscript cannot (the
/// compiler looks for it in the wrapper type itself), so each forwards to
/// ``projecting(_:at:)``.
@usableFromInline
protocol DeclaringFieldWrapper {
    associatedtype Value
    /// The declaration, in a prototype's wrapper and a projected value;
    /// `nil` in the wrapper an ordinary object stores.
    var declaredField: DeclaredField<Value>? { get }
    init(_ declaredField: DeclaredField<Value>)
}

extension DeclaringFieldWrapper {
    var declared: (any AnyDeclaredField)? { declaredField }

    /// The declaration of a projected value (`object.$age`, `\.$age`).
    var projection: DeclaredField<Value> { DeclaredFields.held(declaredField) }

    /// The declaration of the field whose wrapper is at `keyPath` in `object`.
    @usableFromInline
    static func declared<Object: ManagedObject>(
        in object: Object, at keyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> DeclaredField<Value> {
        DeclaredFields.field(own: object[keyPath: keyPath].declaredField, at: keyPath)
    }

    /// The declaration of the field whose wrapper lies `offset` bytes into
    /// `object` (see ``ManagedObject/wrapperOffset(_:)``): the one its
    /// class's prototype holds there.
    @usableFromInline
    static func declared(in object: ManagedObject, wrapperAt offset: Int) -> DeclaredField<Value> {
        DeclaredFields.field(ofWrapperAt: offset, in: object, of: Value.self)
    }

    /// `object.$field`: the field, carrying the object it was read from.
    static func projecting<Object: ManagedObject>(
        _ object: Object, at keyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Self {
        Self(declared(in: object, at: keyPath).projected(onto: object))
    }

    /// `object.$field`, for the field whose wrapper lies `offset` bytes into `object`.
    @usableFromInline
    static func projecting(_ object: ManagedObject, wrapperAt offset: Int) -> Self {
        Self(declared(in: object, wrapperAt: offset).projected(onto: object))
    }
}
