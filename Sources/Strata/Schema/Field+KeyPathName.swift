/// A field's name or a dotted path through to-one relationships, as text:
/// CoreStore's name for the strings its clauses, `SectionBy` and
/// `changedPersistentKeys` take. In Strata a plain `String`, so code ported
/// with either spelling compiles.
///
/// ```swift
/// func objectMonitor(
///     _ monitor: ObjectMonitor<Person>, didUpdateObject person: Person,
///     changedPersistentKeys: Set<KeyPathString>
/// ) {
///     if changedPersistentKeys.contains(String(keyPath: \Person.$name)) { title = person.name }
/// }
/// ```
public typealias KeyPathString = String

/// A field's name from its key path, as CoreStore spells it:
/// `String(keyPath: \Dog.$nickname)`. The name is the one given to the
/// property wrapper, which the store uses, not the Swift property's.
///
/// ```swift
/// final class Person: ManagedObject {
///     @Field.Stored("name") private var internalName: String = ""
/// }
/// String(keyPath: \Person.$internalName)   // "name"
/// ```
extension String {
    /// The name of the stored field at `keyPath` (a `$` key path).
    public init<Object: ManagedObject, Value>(keyPath: KeyPath<Object, Field.Stored<Value>>) {
        self = Self.fieldName(at: keyPath)
    }

    /// The name of the coded field at `keyPath` (a `$` key path).
    public init<Object: ManagedObject, Value>(keyPath: KeyPath<Object, Field.Coded<Value>>) {
        self = Self.fieldName(at: keyPath)
    }

    /// The name of the relationship at `keyPath` (a `$` key path).
    public init<Object: ManagedObject, Value>(keyPath: KeyPath<Object, Field.Relationship<Value>>) {
        self = Self.fieldName(at: keyPath)
    }

    /// The name of the virtual field at `keyPath` (a `$` key path).
    public init<Object: ManagedObject, Value>(keyPath: KeyPath<Object, Field.Virtual<Value>>) {
        self = Self.fieldName(at: keyPath)
    }

    /// The declared name of the field whose projected value is at `keyPath`.
    private static func fieldName(at keyPath: AnyKeyPath) -> String {
        guard let field = DeclaredFields.field(at: keyPath) else {
            misuse("Strata: \(keyPath) does not name a @Field of a ManagedObject subclass.")
        }
        return field.declaration.name
    }
}
