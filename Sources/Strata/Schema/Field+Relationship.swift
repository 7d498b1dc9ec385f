/// How many objects a relationship holds.
public enum RelationshipCardinality: String, Sendable, Hashable {
    /// An optional single object (`Person?`).
    case toOne
    /// An unordered set (`Set<Pet>`).
    case toMany
    /// An ordered list (`[Pet]`).
    case orderedToMany
}

/// The Swift types a `@Field.Relationship` can hold: `T?`, `Set<T>` and `[T]`.
public protocol RelationshipValue {
    /// The related entity's class.
    associatedtype Target: ManagedObject
    /// Whether this is a to-one, to-many or ordered to-many relationship.
    static var cardinality: RelationshipCardinality { get }
    /// Builds the value from the related objects, in order.
    init(relatedObjects: [Target])
    /// The related objects, in order.
    var relatedObjects: [Target] { get }
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
    public typealias Target = Wrapped
    public static var cardinality: RelationshipCardinality { .toOne }
    public init(relatedObjects: [Wrapped]) { self = relatedObjects.first }
    public var relatedObjects: [Wrapped] { map { [$0] } ?? [] }
}

extension Set: RelationshipValue where Element: ManagedObject {
    public typealias Target = Element
    public static var cardinality: RelationshipCardinality { .toMany }
    public init(relatedObjects: [Element]) { self.init(relatedObjects) }
    public var relatedObjects: [Element] { Array(self) }
}

extension Array: RelationshipValue where Element: ManagedObject {
    public typealias Target = Element
    public static var cardinality: RelationshipCardinality { .orderedToMany }
    public init(relatedObjects: [Element]) { self = relatedObjects }
    public var relatedObjects: [Element] { self }
}

extension Field {
    /// A relationship to other objects: to-one (`Person?`), to-many
    /// (`Set<Pet>`) or ordered to-many (`[Pet]`).
    ///
    /// Declare the inverse on one side (or on both, pointing at each other);
    /// Strata keeps the two sides in step as either is set.
    ///
    /// ```swift
    /// @Field.Relationship("pets", inverse: \Pet.$owner, deleteRule: .cascade)
    /// var pets: Set<Pet>
    /// ```
    @propertyWrapper
    public struct Relationship<Value: RelationshipValue>: FieldWrapper {
        @usableFromInline let names: FieldNames
        /// The relationship's name in the schema.
        public var name: String { names.name }
        /// What deleting the owner does to the related objects.
        public let deleteRule: DeleteRule
        /// The relationship's name in the previous schema version, when it was renamed.
        public var renamingIdentifier: String? { names.previous }
        let inverse: AnyKeyPath?

        /// Declares a relationship whose inverse is the given relationship of the target.
        public init<Inverse: RelationshipValue>(
            _ name: String,
            inverse: KeyPath<Value.Target, Field.Relationship<Inverse>>,
            deleteRule: DeleteRule = .nullify,
            renamingIdentifier: String? = nil
        ) {
            self.names = FieldNames(name, previous: renamingIdentifier)
            self.inverse = inverse
            self.deleteRule = deleteRule
        }

        /// Declares a relationship whose inverse, if any, is declared on the other side.
        /// `renamingIdentifier` is its previous name, when a new schema version renames it.
        public init(
            _ name: String, deleteRule: DeleteRule = .nullify, renamingIdentifier: String? = nil
        ) {
            self.names = FieldNames(name, previous: renamingIdentifier)
            self.inverse = nil
            self.deleteRule = deleteRule
        }

        @available(*, unavailable, message: "Fields live in ManagedObject subclasses only")
        public var wrappedValue: Value {
            get { fatalError() }
            set { fatalError() }
        }

        /// The field itself, so that `\.$owner` can name it in queries.
        public var projectedValue: Self { self }

        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            get {
                let name = object[keyPath: storageKeyPath].name
                return Value(relatedObjects: object.readRelated(name, as: Value.Target.self))
            }
            set {
                object.writeRelated(
                    newValue.relatedObjects, field: object[keyPath: storageKeyPath].name)
            }
        }

        func declaration() -> FieldDeclaration {
            FieldDeclaration(
                name: name,
                kind: .relationship(
                    target: Value.Target.self, cardinality: Value.cardinality,
                    inverse: inverse, deleteRule: deleteRule),
                renamingIdentifier: renamingIdentifier)
        }
    }
}
