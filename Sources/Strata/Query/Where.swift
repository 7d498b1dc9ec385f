/// A predicate on the objects of an entity, built from key paths to fields.
///
/// ```swift
/// let adults = Where<Person>(\.$age >= 18) && \.$email != nil
/// try stack.fetchAll(From<Person>().where(adults))
/// ```
///
/// Every value is bound as an SQL parameter.
public struct Where<Object: ManagedObject>: Sendable {
    indirect enum Predicate: Sendable {
        case constant(Bool)
        case compare(field: String, ComparisonOperator, StoredValue)
        case and(Predicate, Predicate)
        case or(Predicate, Predicate)
        case not(Predicate)
        /// A value that could not be stored (NaN, for example); compiling throws.
        case invalid(StrataError)
    }

    enum ComparisonOperator: String, Sendable {
        case equal = "="
        case notEqual = "<>"
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    let predicate: Predicate

    init(_ predicate: Predicate) {
        self.predicate = predicate
    }

    /// A predicate that every object satisfies (`true`) or none does (`false`).
    public init(_ value: Bool) {
        self.predicate = .constant(value)
    }

    /// Wraps a predicate, so that `Where<Person>(\.$age > 3)` reads like CoreStore.
    public init(_ other: Where<Object>) {
        self = other
    }

    static func compare<Value: FieldStorable>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, _ op: ComparisonOperator, _ value: Value
    ) -> Where<Object> {
        let field = FieldPath.name(keyPath)
        do {
            return Where(.compare(field: field, op, try value.storedValue()))
        } catch {
            let entity = String(describing: Object.self)
            return Where(.invalid(StrataError.wrapping(error).located(entity: entity, field: field)))
        }
    }
}

// MARK: Comparisons

/// Objects whose field equals `value` (`nil` matches a NULL field).
public func == <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .compare(lhs, .equal, rhs) }

/// Objects whose field differs from `value`; a NULL field differs from every non-nil value.
public func != <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .compare(lhs, .notEqual, rhs) }

/// Objects whose field is less than `value`.
public func < <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .compare(lhs, .less, rhs) }

/// Objects whose field is at most `value`.
public func <= <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .compare(lhs, .lessOrEqual, rhs) }

/// Objects whose field is greater than `value`.
public func > <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .compare(lhs, .greater, rhs) }

/// Objects whose field is at least `value`.
public func >= <Object: ManagedObject, Value: FieldStorable>(
    lhs: KeyPath<Object, Field.Stored<Value>>, rhs: Value
) -> Where<Object> { .compare(lhs, .greaterOrEqual, rhs) }

// MARK: Combinators

/// Objects that satisfy both predicates.
public func && <Object>(lhs: Where<Object>, rhs: Where<Object>) -> Where<Object> {
    Where(.and(lhs.predicate, rhs.predicate))
}

/// Objects that satisfy either predicate.
public func || <Object>(lhs: Where<Object>, rhs: Where<Object>) -> Where<Object> {
    Where(.or(lhs.predicate, rhs.predicate))
}

/// Objects that do not satisfy the predicate.
public prefix func ! <Object>(predicate: Where<Object>) -> Where<Object> {
    Where(.not(predicate.predicate))
}
