// Membership, ranges and to-many relationships.

extension Where {
    /// Objects whose field equals one of `values` (`nil` among them matches NULL).
    ///
    /// Any number of values is one SQL parameter: up to 32 are listed inline
    /// (`IN (?, ?)`), more are bound as one list that `strata_values` reads
    /// back exactly; in memory, testing an object is one hash lookup.
    ///
    /// ```swift
    /// From<Person>().where(Where(\.$name, in: ["Ann", "Bob"]))
    /// ```
    public init<Value: FieldStorable, Values: Sequence>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, in values: Values
    ) where Values.Element == Value {
        self = Self.membership(ValuePath(keyPath), values)
    }

    /// Objects whose value at the end of the path equals one of `values`.
    public init<Value: FieldStorable, Values: Sequence>(
        _ expression: Expression<Value>, in values: Values
    ) where Values.Element == Value {
        self = Self.membership(expression.path, values)
    }

    /// Objects whose field lies in the closed range.
    ///
    /// ```swift
    /// From<Person>().where(Where(\.$age, between: 18...65))
    /// ```
    public init<Value: FieldStorable & Comparable>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, between range: ClosedRange<Value>
    ) {
        self = Self.range(ValuePath(keyPath), range)
    }

    /// Objects whose value at the end of the path lies in the closed range.
    public init<Value: FieldStorable & Comparable>(
        _ expression: Expression<Value>, between range: ClosedRange<Value>
    ) {
        self = Self.range(expression.path, range)
    }

    /// `Where(keyPath, in: values)` for values already converted: the unique
    /// import converts its IDs where it is specialized for the model, since
    /// the generic `in:`, unspecialized across the module boundary, spent
    /// most of its time (4% of an import) in metadata and witness look-ups.
    /// `distinct`: no two values are equal as SQL compares them (see
    /// ``StoredValueSet/init(_:distinct:)``).
    @usableFromInline
    init<Value>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, inStored values: [StoredValue], distinct: Bool
    ) {
        self.init(.isIn(ValuePath(keyPath), StoredValueSet(values, distinct: distinct)))
    }

    /// The membership test every `in:` builds, or an invalid predicate naming
    /// the field when a value cannot be stored.
    static func membership<Value: FieldStorable, Values: Sequence>(
        _ path: ValuePath, _ values: Values
    ) -> Where<Object> where Values.Element == Value {
        do {
            return Where(.isIn(path, StoredValueSet(try values.map { try $0.storableValue() })))
        } catch {
            return Where(.invalid(StrataError.wrapping(error)
                .located(entity: String(describing: Object.self), field: path.description)))
        }
    }

    /// The range test every `between:` builds, or an invalid predicate naming
    /// the field when a bound cannot be stored.
    static func range<Value: FieldStorable>(_ path: ValuePath, _ range: ClosedRange<Value>) -> Where<Object> {
        stored(range.lowerBound, at: path) { lower in
            (try? range.upperBound.storableValue()).map { .between(path, lower, $0) }
                ?? .invalid(.invalidValue(
                    entity: String(describing: Object.self), field: path.description,
                    reason: "\(range.upperBound) cannot be stored"))
        }
    }

    // MARK: To-many relationships

    /// Objects with at least one related object that satisfies `predicate`.
    ///
    /// ```swift
    /// From<Person>().where(.any(\.$pets, \.$name == "Rex"))
    /// ```
    public static func any<Related: RelationshipValue>(
        _ keyPath: KeyPath<Object, Field.Relationship<Related>>, _ predicate: Where<Related.Target>
    ) -> Where<Object> {
        members(keyPath, .any, predicate)
    }

    /// Objects all of whose related objects satisfy `predicate` (true with none).
    public static func all<Related: RelationshipValue>(
        _ keyPath: KeyPath<Object, Field.Relationship<Related>>, _ predicate: Where<Related.Target>
    ) -> Where<Object> {
        members(keyPath, .all, predicate)
    }

    /// Objects none of whose related objects satisfies `predicate`.
    public static func none<Related: RelationshipValue>(
        _ keyPath: KeyPath<Object, Field.Relationship<Related>>, _ predicate: Where<Related.Target>
    ) -> Where<Object> {
        members(keyPath, .none, predicate)
    }

    /// The number of objects a to-many relationship holds, to compare with an integer.
    ///
    /// ```swift
    /// From<Person>().where(Where<Person>.count(\.$pets) >= 2)
    /// ```
    public static func count<Related: RelationshipValue>(
        _ keyPath: KeyPath<Object, Field.Relationship<Related>>
    ) -> RelationshipCount {
        checkUsage(Related.cardinality != .toOne, "Strata: count() takes a to-many relationship.")
        return RelationshipCount(owner: ValuePath(field: nil), relationship: FieldPath.name(keyPath))
    }

    /// Objects whose related object, at the end of a to-one path, has at
    /// least one member of its to-many relationship that satisfies
    /// `predicate`: CoreStore's `(\.$master ~ \.$pets ~ \.$name).any() == "Rex"`.
    /// An object whose path ends in `nil` has no members.
    ///
    /// ```swift
    /// // Pets whose owner has a pet named Rex (themselves included).
    /// From<Pet>().where(.any(\.$owner ~ \.$pets, \.$name == "Rex"))
    /// ```
    public static func any<Target>(_ members: Members<Target>, _ predicate: Where<Target>) -> Where<Object> {
        members.test(.any, predicate)
    }

    /// Objects all of whose related object's members (at the end of a
    /// to-one path) satisfy `predicate`; true when the path ends in `nil`.
    public static func all<Target>(_ members: Members<Target>, _ predicate: Where<Target>) -> Where<Object> {
        members.test(.all, predicate)
    }

    /// Objects none of whose related object's members (at the end of a
    /// to-one path) satisfies `predicate`.
    public static func none<Target>(_ members: Members<Target>, _ predicate: Where<Target>) -> Where<Object> {
        members.test(.none, predicate)
    }

    /// How many members the to-many relationship at the end of a to-one
    /// path holds (0 when the path ends in `nil`), to compare with an
    /// integer: CoreStore's `(\.$master ~ \.$pets).count() > 1`.
    ///
    /// ```swift
    /// // Pets that share their owner with another pet.
    /// From<Pet>().where(Where<Pet>.count(\.$owner ~ \.$pets) > 1)
    /// ```
    public static func count<Target>(_ members: Members<Target>) -> RelationshipCount {
        RelationshipCount(owner: members.owner, relationship: members.relationship)
    }

    private static func members<Related: RelationshipValue>(
        _ keyPath: KeyPath<Object, Field.Relationship<Related>>, _ quantifier: WherePredicate.Quantifier,
        _ predicate: Where<Related.Target>
    ) -> Where<Object> {
        checkUsage(
            Related.cardinality != .toOne,
            "Strata: any/all/none take a to-many relationship; compare a to-one one with == instead.")
        return Members<Related.Target>(owner: ValuePath(field: nil), relationship: FieldPath.name(keyPath))
            .test(quantifier, predicate)
    }

    /// A to-many relationship of the object at the end of a to-one path,
    /// built with `~` (`\.$owner ~ \.$pets`): test its members with
    /// ``any(_:_:)-(Members<Target>,_)``, ``all(_:_:)-(Members<Target>,_)``,
    /// ``none(_:_:)-(Members<Target>,_)`` or its size with ``count(_:)-(Members<Target>)``.
    public struct Members<Target: ManagedObject>: Sendable {
        /// The to-one path to the object holding the relationship (its
        /// `field` the last link; `nil` for the object itself).
        let owner: ValuePath
        let relationship: String

        func test(_ quantifier: WherePredicate.Quantifier, _ predicate: Where<Target>) -> Where<Object> {
            if case .invalid(let error) = predicate.predicate { return Where(.invalid(error)) }
            return Where(
                .members(owner: owner, relationship: relationship, quantifier, predicate.predicate),
                depth: predicate.depth + 1)
        }
    }

    /// The size of a to-many relationship, from ``count(_:)``.
    public struct RelationshipCount: Sendable {
        let owner: ValuePath
        let relationship: String

        func compared(_ op: WherePredicate.Comparison, _ value: Int) -> Where<Object> {
            Where(.count(owner: owner, relationship: relationship, op, value))
        }

        /// Objects whose relationship's size is `rhs`: `Where<Person>.count(\.$pets) == 2`.
        public static func == (lhs: Self, rhs: Int) -> Where<Object> { lhs.compared(.equal, rhs) }
        /// Objects whose relationship's size is not `rhs`: `Where<Person>.count(\.$pets) != 2`.
        public static func != (lhs: Self, rhs: Int) -> Where<Object> { lhs.compared(.notEqual, rhs) }
        /// Objects whose relationship's size is less than `rhs`: `Where<Person>.count(\.$pets) < 2`.
        public static func < (lhs: Self, rhs: Int) -> Where<Object> { lhs.compared(.less, rhs) }
        /// Objects whose relationship's size is at most `rhs`: `Where<Person>.count(\.$pets) <= 2`.
        public static func <= (lhs: Self, rhs: Int) -> Where<Object> { lhs.compared(.lessOrEqual, rhs) }
        /// Objects whose relationship's size is more than `rhs`: `Where<Person>.count(\.$pets) > 2`.
        public static func > (lhs: Self, rhs: Int) -> Where<Object> { lhs.compared(.greater, rhs) }
        /// Objects whose relationship's size is at least `rhs`: `Where<Person>.count(\.$pets) >= 2`.
        public static func >= (lhs: Self, rhs: Int) -> Where<Object> { lhs.compared(.greaterOrEqual, rhs) }
    }
}

/// Objects whose field equals one of the values: CoreStore's spelling of `in`.
///
/// ```swift
/// From<Person>().where(["Ann", "Bob"] ~= \.$name)
/// ```
public func ~= <Object: ManagedObject, Value: FieldStorable, Values: Sequence>(
    lhs: Values, rhs: KeyPath<Object, Field.Stored<Value>>
) -> Where<Object> where Values.Element == Value {
    Where(rhs, in: lhs)
}
