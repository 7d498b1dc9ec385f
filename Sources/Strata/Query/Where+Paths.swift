infix operator ~ : AdditionPrecedence

extension Where {
    /// A typed path from `Object` through to-one relationships to a stored
    /// value, built with `~`. A nil link makes the value NULL.
    ///
    /// ```swift
    /// From<Pet>().where(\.$owner ~ \.$name == "Ann")
    /// ```
    public struct Expression<Value: FieldStorable>: Sendable {
        let path: ValuePath
    }

    /// A typed path from `Object` through to-one relationships to a related
    /// object, built with `~`; compare it with an object, an ID or `nil`, or
    /// continue it with `~`.
    public struct Relation<Target: ManagedObject>: Sendable {
        let path: ValuePath
    }
}

/// The stored value `field` of the object a to-one relationship points to.
public func ~ <Object, Target, Value>(
    lhs: KeyPath<Object, Field.Relationship<Target?>>, rhs: KeyPath<Target, Field.Stored<Value>>
) -> Where<Object>.Expression<Value> {
    Where<Object>.Expression(
        path: ValuePath(lhs).appending(ValuePath(rhs)))
}

/// The object a to-one relationship of a related object points to.
public func ~ <Object, Target, Next>(
    lhs: KeyPath<Object, Field.Relationship<Target?>>, rhs: KeyPath<Target, Field.Relationship<Next?>>
) -> Where<Object>.Relation<Next> {
    Where<Object>.Relation(
        path: ValuePath(lhs).appending(ValuePath(rhs)))
}

/// A stored value further along a relation.
public func ~ <Object, Target, Value>(
    lhs: Where<Object>.Relation<Target>, rhs: KeyPath<Target, Field.Stored<Value>>
) -> Where<Object>.Expression<Value> {
    Where<Object>.Expression(path: lhs.path.appending(ValuePath(rhs)))
}

/// A to-one relationship further along a relation.
public func ~ <Object, Target, Next>(
    lhs: Where<Object>.Relation<Target>, rhs: KeyPath<Target, Field.Relationship<Next?>>
) -> Where<Object>.Relation<Next> {
    Where<Object>.Relation(path: lhs.path.appending(ValuePath(rhs)))
}

/// The to-many relationship of the object a to-one relationship points to,
/// for ``Where/any(_:_:)-(Members<Target>,_)`` and the other member tests.
public func ~ <Object, Owner, Target>(
    lhs: KeyPath<Object, Field.Relationship<Owner?>>, rhs: KeyPath<Owner, Field.Relationship<Set<Target>>>
) -> Where<Object>.Members<Target> {
    Where<Object>.Members(owner: ValuePath(lhs), relationship: FieldPath.name(rhs))
}

/// The ordered to-many relationship of the object a to-one relationship points to.
public func ~ <Object, Owner, Target>(
    lhs: KeyPath<Object, Field.Relationship<Owner?>>, rhs: KeyPath<Owner, Field.Relationship<[Target]>>
) -> Where<Object>.Members<Target> {
    Where<Object>.Members(owner: ValuePath(lhs), relationship: FieldPath.name(rhs))
}

/// A to-many relationship further along a relation.
public func ~ <Object, Owner, Target>(
    lhs: Where<Object>.Relation<Owner>, rhs: KeyPath<Owner, Field.Relationship<Set<Target>>>
) -> Where<Object>.Members<Target> {
    Where<Object>.Members(owner: lhs.path, relationship: FieldPath.name(rhs))
}

/// An ordered to-many relationship further along a relation.
public func ~ <Object, Owner, Target>(
    lhs: Where<Object>.Relation<Owner>, rhs: KeyPath<Owner, Field.Relationship<[Target]>>
) -> Where<Object>.Members<Target> {
    Where<Object>.Members(owner: lhs.path, relationship: FieldPath.name(rhs))
}

// MARK: Key path strings

extension Where.Expression: CustomStringConvertible {
    /// The path's field names joined by dots (`owner.name`), as CoreStore
    /// and Core Data spell a key path.
    public var description: String { path.description }
}

extension Where.Relation: CustomStringConvertible {
    /// The path's relationship names joined by dots (`owner.friend`).
    public var description: String { path.description }
}

extension Where.Members: CustomStringConvertible {
    /// The path's relationship names joined by dots (`owner.pets`).
    public var description: String {
        (owner.relationships + [owner.field].compactMap { $0 } + [relationship]).joined(separator: ".")
    }
}

extension String {
    /// The key path string of a `~` path, as CoreStore spells it:
    /// `String(keyPath: \Pet.$owner ~ \.$name)` is `"owner.name"`.
    public init<Object, Value>(keyPath: Where<Object>.Expression<Value>) {
        self = keyPath.description
    }

    /// The key path string of a `~` path to a related object (`"owner.friend"`).
    public init<Object, Target>(keyPath: Where<Object>.Relation<Target>) {
        self = keyPath.description
    }

    /// The key path string of a `~` path to a to-many relationship (`"owner.pets"`).
    public init<Object, Target>(keyPath: Where<Object>.Members<Target>) {
        self = keyPath.description
    }
}
