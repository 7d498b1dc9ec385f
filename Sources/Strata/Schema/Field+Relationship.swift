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
    public struct Relationship<Value: RelationshipValue>: FieldWrapper, DeclaringFieldWrapper {
        /// The declaration, in a prototype's wrapper and a projected value;
        /// `nil` in the wrapper an ordinary object stores (see ``DeclaredField``).
        @usableFromInline let declaredField: DeclaredField<Value>?

        /// The relationship's name in the schema.
        public var name: String { projection.declaration.name }
        /// What deleting the owner does to the related objects.
        public var deleteRule: DeleteRule {
            if case let .relationship(_, _, _, deleteRule, _) = projection.declaration.kind {
                return deleteRule
            }
            return .nullify
        }
        /// The fewest objects a to-many relationship may hold once it holds
        /// any (0: no minimum); a commit that leaves fewer fails.
        public var minCount: Int { counts.min }
        /// The most objects a to-many relationship may hold (0: no maximum);
        /// a commit that leaves more fails.
        public var maxCount: Int { counts.max }

        private var counts: MemberCounts {
            if case let .relationship(_, _, _, _, counts) = projection.declaration.kind { return counts }
            return MemberCounts()
        }
        /// The relationship's name in the previous schema version, when it was renamed.
        public var renamingIdentifier: String? { projection.declaration.renamingIdentifier }

        /// Declares a relationship whose inverse is the given relationship of the target.
        ///
        /// `minCount` and `maxCount` bound how many objects a to-many
        /// relationship holds once it holds any (0: no bound; an empty
        /// relationship is always allowed, as in CoreStore): a commit that
        /// leaves an object it created or whose relationship it changed
        /// outside them fails with ``StrataError/invalidValue(entity:field:reason:)``.
        /// Bounds are rules, not storage: changing them needs no migration.
        /// A bound on a to-one relationship, a negative one, or a `minCount`
        /// above the `maxCount` makes the schema invalid.
        ///
        /// ```swift
        /// @Field.Relationship("crew", minCount: 2, maxCount: 6, inverse: \Sailor.$boat)
        /// var crew: Set<Sailor>
        /// ```
        public init<Inverse: RelationshipValue>(
            _ name: String,
            minCount: Int = 0,
            maxCount: Int = 0,
            inverse: KeyPath<Value.Target, Field.Relationship<Inverse>>,
            deleteRule: DeleteRule = .nullify,
            renamingIdentifier: String? = nil
        ) {
            declaredField = DeclaredFields.isDescribing
                ? Self.declare(
                    name, inverse, deleteRule, renamingIdentifier,
                    MemberCounts(min: minCount, max: maxCount))
                : nil
        }

        /// Declares a relationship whose inverse, if any, is declared on the other side.
        /// `renamingIdentifier` is its previous name, when a new schema version renames it;
        /// `minCount` and `maxCount` as in
        /// ``init(_:minCount:maxCount:inverse:deleteRule:renamingIdentifier:)``.
        public init(
            _ name: String, minCount: Int = 0, maxCount: Int = 0, deleteRule: DeleteRule = .nullify,
            renamingIdentifier: String? = nil
        ) {
            declaredField = DeclaredFields.isDescribing
                ? Self.declare(
                    name, nil, deleteRule, renamingIdentifier, MemberCounts(min: minCount, max: maxCount))
                : nil
        }

        @usableFromInline
        init(_ declaredField: DeclaredField<Value>) {
            self.declaredField = declaredField
        }

        /// Unavailable: the value lives in the object, read through the
        /// `_enclosingInstance` subscript, so a field outside a class has none.
        @available(*, unavailable, message: "Fields live in ManagedObject subclasses only")
        public var wrappedValue: Value {
            get { fatalError() }
            set { fatalError() }
        }

        /// The field itself, so that `\.$owner` can name it in queries.
        public var projectedValue: Self { self }

        /// `object.$owner`: the relationship, carrying the object it was read from.
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            projected projectedKeyPath: KeyPath<Object, Self>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Self {
            projecting(object, at: storageKeyPath)
        }

        /// `object.pets`: the related objects in the object's context; setting
        /// them keeps the inverse in step.
        public static subscript<Object: ManagedObject>(
            _enclosingInstance object: Object,
            wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
            storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
        ) -> Value {
            get { Value(relatedObjects: object.readRelated(at: storageKeyPath, as: Value.Target.self)) }
            set { object.writeRelated(newValue.relatedObjects, at: storageKeyPath) }
        }

        /// The declaration a prototype's wrapper keeps.
        private static func declare(
            _ name: String, _ inverse: AnyKeyPath?, _ deleteRule: DeleteRule,
            _ renamingIdentifier: String?, _ counts: MemberCounts
        ) -> DeclaredField<Value> {
            let declaration = FieldDeclaration(
                name: name,
                kind: .relationship(
                    target: Value.Target.self, cardinality: Value.cardinality,
                    inverse: inverse, deleteRule: deleteRule, counts: counts),
                renamingIdentifier: renamingIdentifier)
            return DeclaredField(declaration, defaultValue: Value(relatedObjects: []))
        }
    }
}
