// Comparisons of fields, paths and relationships with values.
//
// `==` and `!=` accept `nil`; `!=` is true when exactly one side is NULL, as
// in Swift. `<`, `<=`, `>`, `>=` are never true for a NULL value.

// MARK: Stored fields

/// Objects whose field equals `value` (`nil` matches a NULL field).
public func == <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .comparing(ValuePath(lhs), .equal, rhs) }

/// Objects whose field differs from `value`; a NULL field differs from every non-nil value.
public func != <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .comparing(ValuePath(lhs), .notEqual, rhs) }

/// Objects whose field is less than `value`.
public func < <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .comparing(ValuePath(lhs), .less, rhs) }

/// Objects whose field is at most `value`.
public func <= <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .comparing(ValuePath(lhs), .lessOrEqual, rhs) }

/// Objects whose field is greater than `value`.
public func > <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .comparing(ValuePath(lhs), .greater, rhs) }

/// Objects whose field is at least `value`.
public func >= <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .comparing(ValuePath(lhs), .greaterOrEqual, rhs) }

// MARK: Paths

/// Objects whose value at the end of the path equals `value` (`nil` also
/// matches a path broken by a nil relationship).
public func == <Object, Value>(lhs: Where<Object>.Expression<Value>, rhs: Value?) -> Where<Object> {
    rhs.map { .comparing(lhs.path, .equal, $0) } ?? Where(.compare(lhs.path, .equal, .null))
}

/// Objects whose value at the end of the path differs from `value`.
public func != <Object, Value>(lhs: Where<Object>.Expression<Value>, rhs: Value?) -> Where<Object> {
    rhs.map { .comparing(lhs.path, .notEqual, $0) } ?? Where(.compare(lhs.path, .notEqual, .null))
}

/// Objects whose value at the end of the path is less than `value`.
public func < <Object, Value>(lhs: Where<Object>.Expression<Value>, rhs: Value) -> Where<Object> {
    .comparing(lhs.path, .less, rhs)
}

/// Objects whose value at the end of the path is at most `value`.
public func <= <Object, Value>(lhs: Where<Object>.Expression<Value>, rhs: Value) -> Where<Object> {
    .comparing(lhs.path, .lessOrEqual, rhs)
}

/// Objects whose value at the end of the path is greater than `value`.
public func > <Object, Value>(lhs: Where<Object>.Expression<Value>, rhs: Value) -> Where<Object> {
    .comparing(lhs.path, .greater, rhs)
}

/// Objects whose value at the end of the path is at least `value`.
public func >= <Object, Value>(lhs: Where<Object>.Expression<Value>, rhs: Value) -> Where<Object> {
    .comparing(lhs.path, .greaterOrEqual, rhs)
}

// MARK: Relationships

/// Objects whose to-one relationship points to `object` (`nil`: points nowhere).
///
/// ```swift
/// From<Pet>().where(\.$owner == ann)
/// ```
public func == <Object: ManagedObject, Target: ManagedObject>(
    lhs: KeyPath<Object, Field.Relationship<Target?>>, rhs: Target?
) -> Where<Object> {
    Where(.compare(ValuePath(lhs), .equal, rowIDValue(of: rhs)))
}

/// Objects whose to-one relationship does not point to `object`.
public func != <Object: ManagedObject, Target: ManagedObject>(
    lhs: KeyPath<Object, Field.Relationship<Target?>>, rhs: Target?
) -> Where<Object> {
    Where(.compare(ValuePath(lhs), .notEqual, rowIDValue(of: rhs)))
}

/// Objects whose to-one relationship points to the object with `id`.
public func == <Object: ManagedObject, Target: ManagedObject>(
    lhs: KeyPath<Object, Field.Relationship<Target?>>, rhs: ObjectID<Target>
) -> Where<Object> {
    Where(.compare(ValuePath(lhs), .equal, .integer(rhs.rowID)))
}

/// Objects whose to-one relationship does not point to the object with `id`.
public func != <Object: ManagedObject, Target: ManagedObject>(
    lhs: KeyPath<Object, Field.Relationship<Target?>>, rhs: ObjectID<Target>
) -> Where<Object> {
    Where(.compare(ValuePath(lhs), .notEqual, .integer(rhs.rowID)))
}

/// Objects whose relation ends at `object` (`nil`: ends nowhere).
public func == <Object, Target>(lhs: Where<Object>.Relation<Target>, rhs: Target?) -> Where<Object> {
    Where(.compare(lhs.path, .equal, rowIDValue(of: rhs)))
}

/// Objects whose relation does not end at `object`.
public func != <Object, Target>(lhs: Where<Object>.Relation<Target>, rhs: Target?) -> Where<Object> {
    Where(.compare(lhs.path, .notEqual, rowIDValue(of: rhs)))
}

/// Objects whose relation ends at the object with `id`.
public func == <Object, Target>(lhs: Where<Object>.Relation<Target>, rhs: ObjectID<Target>) -> Where<Object> {
    Where(.compare(lhs.path, .equal, .integer(rhs.rowID)))
}

/// Objects whose relation does not end at the object with `id`.
public func != <Object, Target>(lhs: Where<Object>.Relation<Target>, rhs: ObjectID<Target>) -> Where<Object> {
    Where(.compare(lhs.path, .notEqual, .integer(rhs.rowID)))
}

extension Where {
    /// Objects whose to-one relationship points to one of `objects` (never
    /// an object whose relationship points nowhere).
    ///
    /// ```swift
    /// From<Pet>().where(Where(\.$owner, in: [ann, bob]))
    /// ```
    public init<Target: ManagedObject, Targets: Sequence>(
        _ keyPath: KeyPath<Object, Field.Relationship<Target?>>, in objects: Targets
    ) where Targets.Element == Target {
        self.init(.isIn(ValuePath(keyPath), StoredValueSet(objects.map(rowIDValue))))
    }

    /// Objects whose to-one relationship points to one of the objects `ids` name.
    public init<Target: ManagedObject, IDs: Sequence>(
        _ keyPath: KeyPath<Object, Field.Relationship<Target?>>, in ids: IDs
    ) where IDs.Element == ObjectID<Target> {
        let rowIDs = ids.map { StoredValue.integer($0.rowID) }
        self.init(.isIn(ValuePath(keyPath), StoredValueSet(rowIDs)))
    }
}

/// Objects whose to-one relationship points to one of the objects: CoreStore's
/// spelling of `Where(keyPath, in: objects)`.
///
/// ```swift
/// From<Pet>().where([ann, bob] ~= \.$owner)
/// ```
public func ~= <Object: ManagedObject, Target: ManagedObject, Targets: Sequence>(
    lhs: Targets, rhs: KeyPath<Object, Field.Relationship<Target?>>
) -> Where<Object> where Targets.Element == Target {
    Where(rhs, in: lhs)
}

private func rowIDValue(of object: ManagedObject?) -> StoredValue {
    guard let object else { return .null }
    guard object.entity != nil else {
        misuse(
            "Strata: a query compared a relationship with an object created with \(type(of: object))(); "
                + "only objects of a context have an identity.")
    }
    return .integer(object.rowID)
}
