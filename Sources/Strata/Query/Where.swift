/// A predicate on the objects of an entity, built from key paths to fields.
///
/// ```swift
/// let adults = Where<Person>(\.$age >= 18) && \.$email != nil
/// try stack.fetchAll(From<Person>().where(adults))
/// ```
///
/// The same predicate compiles to SQL for fetches and evaluates in memory on
/// objects, with SQLite's semantics in both (see `Docs/Querying.md`). Every
/// value is bound as an SQL parameter.
///
/// Predicates are `Hashable`, as CoreStore's are: equal when built alike,
/// term by term (`a && b` is not `b && a`).
public struct Where<Object: ManagedObject>: Sendable {
    let predicate: WherePredicate
    /// `predicate.depth`, kept so that combining predicates never walks them.
    let depth: Int
    /// How to build this predicate, of `ManagedObject`, again for the class a
    /// clause list filters: set when a format in it could not be parsed for
    /// want of a class (see ``DeferredWhere``).
    var deferred: DeferredWhere? = nil

    init(unchecked predicate: WherePredicate, depth: Int) {
        self.predicate = predicate
        self.depth = depth
    }

    /// A predicate built from the tree itself: its depth is measured (and checked).
    init(_ predicate: WherePredicate) {
        self.init(predicate, depth: predicate.depth)
    }

    /// A predicate that every object satisfies (`true`) or none does (`false`).
    @_disfavoredOverload  // so that `Where(\.$x == nil)` is a field test, never a Bool
    public init(_ value: Bool) {
        self.init(unchecked: .constant(value), depth: 1)
    }

    /// A predicate that every object satisfies, as CoreStore's `Where()`: the
    /// same as `Where(true)`.
    public init() {
        self.init(true)
    }

    /// Wraps a predicate, so that `Where<Person>(\.$age > 3)` reads like CoreStore.
    public init(_ other: Where<Object>) {
        self = other
    }

    /// A raw SQL condition over the entity's columns, with `?` placeholders
    /// bound to `arguments`. For the rare case the typed clauses cannot say;
    /// it cannot be evaluated in memory, so monitors over it re-fetch.
    ///
    /// ```swift
    /// Where<Person>(sql: "length(name) > ?", arguments: [.integer(3)])
    /// ```
    public init(sql: String, arguments: [StoredValue] = []) {
        self.init(unchecked: .sql(sql, arguments), depth: 1)
    }

    /// Objects that satisfy every predicate (all objects for an empty list).
    public static func all(_ predicates: [Where<Object>]) -> Where<Object> {
        combining(predicates, conjunction: true)
    }

    /// Objects that satisfy at least one predicate (none for an empty list).
    public static func any(_ predicates: [Where<Object>]) -> Where<Object> {
        combining(predicates, conjunction: false)
    }

    /// Whether the predicate can be evaluated in memory (it holds no raw SQL).
    public var isEvaluableInMemory: Bool { predicate.isEvaluableInMemory }

    /// A comparison of the value at `path` with `value`, or an invalid
    /// predicate naming the field when the value cannot be stored.
    static func comparing<Value: FieldStorable>(
        _ path: ValuePath, _ op: WherePredicate.Comparison, _ value: Value
    ) -> Where<Object> {
        stored(value, at: path) { .compare(path, op, $0) }
    }

    /// Builds a predicate from `value`'s stored form, or an invalid predicate.
    static func stored<Value: FieldStorable>(
        _ value: Value, at path: ValuePath, _ make: (StoredValue) -> WherePredicate
    ) -> Where<Object> {
        do {
            return Where(make(try value.storableValue()))
        } catch {
            let error = StrataError.wrapping(error)
                .located(entity: String(describing: Object.self), field: path.description)
            return Where(.invalid(error))
        }
    }
}

// MARK: Combinators

// `&&` and `||` extend a list rather than nest, and `!` pushes itself down to
// the tests (see `WherePredicate+Normalization`), so that a chain of any
// length built with `reduce(||)` or repeated `!` stays shallow.

/// Objects that satisfy both predicates.
public func && <Object>(lhs: Where<Object>, rhs: Where<Object>) -> Where<Object> {
    .combining([lhs, rhs], conjunction: true)
}

/// Objects that satisfy either predicate.
public func || <Object>(lhs: Where<Object>, rhs: Where<Object>) -> Where<Object> {
    .combining([lhs, rhs], conjunction: false)
}

/// Objects that do not satisfy the predicate: exactly the others.
public prefix func ! <Object>(predicate: Where<Object>) -> Where<Object> {
    predicate.negated
}

infix operator &&? : LogicalConjunctionPrecedence
infix operator ||? : LogicalDisjunctionPrecedence

// As in CoreStore, a side that is not optional makes the result not optional,
// so that `From<Person>().where(base &&? filter)` compiles with an optional
// `filter`; only two optional sides give an optional result.

/// Both predicates, ignoring a side that is `nil` (`nil` when both are).
///
/// ```swift
/// let filter = nameFilter &&? ageFilter   // either may be absent
/// ```
public func &&? <Object>(lhs: Where<Object>?, rhs: Where<Object>?) -> Where<Object>? {
    guard let lhs else { return rhs }
    guard let rhs else { return lhs }
    return lhs && rhs
}

/// `lhs`, and `rhs` when there is one.
///
/// ```swift
/// From<Person>().where(\.$age >= 18 &&? nameFilter)   // nameFilter: Where<Person>?
/// ```
public func &&? <Object>(lhs: Where<Object>, rhs: Where<Object>?) -> Where<Object> {
    rhs.map { lhs && $0 } ?? lhs
}

/// `rhs`, and `lhs` when there is one.
public func &&? <Object>(lhs: Where<Object>?, rhs: Where<Object>) -> Where<Object> {
    lhs.map { $0 && rhs } ?? rhs
}

/// Both predicates: `lhs && rhs`.
public func &&? <Object>(lhs: Where<Object>, rhs: Where<Object>) -> Where<Object> {
    lhs && rhs
}

/// Either predicate, ignoring a side that is `nil` (`nil` when both are).
public func ||? <Object>(lhs: Where<Object>?, rhs: Where<Object>?) -> Where<Object>? {
    guard let lhs else { return rhs }
    guard let rhs else { return lhs }
    return lhs || rhs
}

/// `lhs`, or `rhs` when there is one.
public func ||? <Object>(lhs: Where<Object>, rhs: Where<Object>?) -> Where<Object> {
    rhs.map { lhs || $0 } ?? lhs
}

/// `rhs`, or `lhs` when there is one.
public func ||? <Object>(lhs: Where<Object>?, rhs: Where<Object>) -> Where<Object> {
    lhs.map { $0 || rhs } ?? rhs
}

/// Either predicate: `lhs || rhs`.
public func ||? <Object>(lhs: Where<Object>, rhs: Where<Object>) -> Where<Object> {
    lhs || rhs
}

extension Sequence {
    /// The predicates joined with AND, as CoreStore's `combinedByAnd()`:
    /// ``Where/all(_:)`` of them (all objects for none).
    ///
    /// ```swift
    /// let filters = [Where<Person>(\.$age >= 18), Where(\.$age < 65)]
    /// let working = try stack.fetchAll(From<Person>().where(filters.combinedByAnd()))
    /// ```
    public func combinedByAnd<Object>() -> Where<Object> where Element == Where<Object> {
        .all(Array(self))
    }

    /// The predicates joined with OR, as CoreStore's `combinedByOr()`:
    /// ``Where/any(_:)`` of them (no objects for none).
    public func combinedByOr<Object>() -> Where<Object> where Element == Where<Object> {
        .any(Array(self))
    }
}
