/// Something queries read from: values and rows of values rather than
/// objects. A ``DataStack`` (on the main actor) and every transaction are
/// one; what differs between them is what ``FetchableSource`` says: a
/// transaction's queries count its own pending changes.
///
/// ```swift
/// let total = try stack.queryValue(From<Person>().select(Int.self, .sum(\.$age)))
/// let withPending = try stack.perform(synchronous: { tx in
///     tx.create(Into<Person>()).age = 40
///     return try tx.queryValue(From<Person>().select(Int.self, .sum(\.$age)))   // total + 40
/// })
/// ```
public protocol QueryableSource: FetchableSource {}

extension QueryableSource {
    /// The first term of the first row the query returns, as `Result`; `nil`
    /// when there is no row, the value is NULL (a `sum` of no rows, for
    /// example), or it does not convert (text asked as `Int`, 300 as `Int8`).
    /// The value is read as CoreStore reads it through `NSNumber`,
    /// `NSDecimalNumber` and `NSDate`:
    ///
    /// - A real narrows: an average of 2.5 asked as `Int` is 2 (toward
    ///   zero), as `Float` the nearest `Float`, as `Bool` `true` (not zero),
    ///   as `Decimal` 2.5 (the decimal Swift prints for the real).
    /// - A decimal (a `Decimal` field's value or aggregate) is a number too:
    ///   as `Double` the nearest `Double`, as `Int` its whole part, exactly.
    /// - Only a `Date` field's value, minimum or maximum is a `Date`; any
    ///   other value asked as `Date` is `nil` (a count, a sum, the largest
    ///   `Int`), not seconds since 1970.
    ///
    /// ```swift
    /// let total = try stack.queryValue(From<Person>().select(Int.self, .sum(\.$age)))
    /// // SELECT coalesce(sum(t0."age"), 0) AS "sum(age)" FROM "Person" AS t0 LIMIT ? OFFSET ?
    /// let average = try stack.queryValue(From<Person>().select(Int.self, .average(\.$age)))
    /// // 41 for ages 40 and 43
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``), among them an
    ///   SQLite error for an integer `sum` that overflows Int64.
    public func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ query: QueryChain<Object, Result>
    ) throws(StrataError) -> Result? {
        try read { try $0.queryValue(query) }
    }

    /// Every row the query returns, each term's value under its name; a NULL
    /// value is left out of its row, as in CoreStore.
    ///
    /// ```swift
    /// let rows = try stack.queryAttributes(
    ///     From<Person>().select(.attribute(\.$city), .count(as: "people")).groupBy(\.$city))
    /// // [["people": .integer(1)], ["city": .text("Oslo"), "people": .integer(2)]]
    /// // (groups in key order, NULL first; the NULL city is left out of its row)
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryAttributes<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>
    ) throws(StrataError) -> [[String: StoredValue]] {
        try read { try $0.queryAttributes(query) }
    }
}
