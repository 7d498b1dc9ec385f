// Optional fields take every test their wrapped type takes.
//
// Most operators are generic over the field's type, so a `Field.Stored<Int?>`
// already takes them with `Value == Int?` (`\.$score < 3`, `\.$score == nil`,
// `.ascending(\.$score)`, `.sum(\.$score)`, `SectionBy(\.$score)`). Two tests
// cannot: a range needs a `Comparable` bound, which `Int?` is not, and a
// membership of any `Sequence` of `Int` (a range, a lazy map) does not convert
// to one of `Int?`. The overloads below take those, and build exactly the tree
// the non-optional test builds, so SQL and memory treat the NULL alike: a NULL
// field lies in no range and equals no value of the list.

extension Where {
    /// Objects whose optional field lies in the closed range; a NULL field
    /// lies in none (and so satisfies `!Where(_:between:)`).
    ///
    /// ```swift
    /// // score: Int?
    /// From<Player>().where(Where(\.$score, between: 10...20))
    /// // SQL: t0."score" BETWEEN ? AND ?
    /// ```
    public init<Value: FieldStorable & Comparable>(
        _ keyPath: KeyPath<Object, Field.Stored<Value?>>, between range: ClosedRange<Value>
    ) {
        self = Self.range(ValuePath(keyPath), range)
    }

    /// Objects whose optional value at the end of the path lies in the closed
    /// range; a NULL value, or a nil link on the way, lies in none.
    ///
    /// ```swift
    /// From<Pet>().where(Where(\.$owner ~ \.$score, between: 10...20))
    /// ```
    public init<Value: FieldStorable & Comparable>(
        _ expression: Expression<Value?>, between range: ClosedRange<Value>
    ) {
        self = Self.range(expression.path, range)
    }

    /// Objects whose optional field equals one of `values`, any sequence of
    /// the wrapped type (a range, a set, a lazy map); a NULL field equals none.
    /// To match NULL too, pass optionals with a `nil` among them.
    ///
    /// ```swift
    /// From<Player>().where(Where(\.$score, in: 1...3))          // score: Int?
    /// From<Player>().where(Where(\.$score, in: [1, 2, nil]))    // NULL matches too
    /// ```
    public init<Value: FieldStorable, Values: Sequence>(
        _ keyPath: KeyPath<Object, Field.Stored<Value?>>, in values: Values
    ) where Values.Element == Value {
        self = Self.membership(ValuePath(keyPath), values)
    }

    /// Objects whose optional value at the end of the path equals one of
    /// `values`; a NULL value, or a nil link on the way, equals none.
    public init<Value: FieldStorable, Values: Sequence>(
        _ expression: Expression<Value?>, in values: Values
    ) where Values.Element == Value {
        self = Self.membership(expression.path, values)
    }
}

/// Objects whose optional field equals one of the values: CoreStore's
/// spelling of `in`, which for an optional field takes values of the wrapped
/// type, as CoreStore's does.
///
/// ```swift
/// From<Player>().where((1...3) ~= \.$score)   // score: Int?
/// ```
public func ~= <Object: ManagedObject, Value: FieldStorable, Values: Sequence>(
    lhs: Values, rhs: KeyPath<Object, Field.Stored<Value?>>
) -> Where<Object> where Values.Element == Value {
    Where(rhs, in: lhs)
}
