/// CoreStore's list form of each query: a ``From``, a ``Select`` and a list
/// of ``QueryClause``s (``Where``, ``OrderBy``, ``GroupBy``, ``Tweak``),
/// given one by one or as an array. Each makes the chained query
/// `from.select(select)` with the clauses added in order (see
/// ``QueryClause``) and runs it: it returns what that returns and throws
/// what that throws (see ``FetchableSource``).
///
/// ```swift
/// let oldestAnn = try stack.queryValue(
///     From<Person>(), Select<Person, Int>(.maximum(\.$age)), Where<Person>(\.$name == "Ann"))
/// let rows = try stack.queryAttributes(
///     From<Person>(), Select<Person, [String: StoredValue]>(.attribute(\.$age), .count()),
///     GroupBy<Person>(\.$age))
/// ```
extension QueryableSource {
    /// The first term of the first row the query returns, as `Result` (see
    /// ``queryValue(_:)``); `nil` for no row, NULL, or a value that does not convert.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ from: From<Object>, _ select: Select<Object, Result>, _ queryClauses: any QueryClause...
    ) throws(StrataError) -> Result? {
        try queryValue(from.select(select).applying(queryClauses))
    }

    /// The first term of the first row the query returns, as `Result`.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ from: From<Object>, _ select: Select<Object, Result>, _ queryClauses: [any QueryClause]
    ) throws(StrataError) -> Result? {
        try queryValue(from.select(select).applying(queryClauses))
    }

    /// The first term of the first row the query returns, as `Wrapped`:
    /// asking `Select<Player, Int?>` for a value is asking for an `Int`, as
    /// in the chained form (`nil` for no row or NULL).
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryValue<Object: ManagedObject, Wrapped: FieldStorable>(
        _ from: From<Object>, _ select: Select<Object, Wrapped?>, _ queryClauses: any QueryClause...
    ) throws(StrataError) -> Wrapped? {
        try queryValue(from.select(select).applying(queryClauses))
    }

    /// The first term of the first row the query returns, as `Wrapped`.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryValue<Object: ManagedObject, Wrapped: FieldStorable>(
        _ from: From<Object>, _ select: Select<Object, Wrapped?>, _ queryClauses: [any QueryClause]
    ) throws(StrataError) -> Wrapped? {
        try queryValue(from.select(select).applying(queryClauses))
    }

    /// Every row the query returns, each term's value under its name (a
    /// NULL left out), as ``queryAttributes(_:)``.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryAttributes<Object: ManagedObject, Result>(
        _ from: From<Object>, _ select: Select<Object, Result>, _ queryClauses: any QueryClause...
    ) throws(StrataError) -> [[String: StoredValue]] {
        try queryAttributes(from.select(select).applying(queryClauses))
    }

    /// Every row the query returns, each term's value under its name.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryAttributes<Object: ManagedObject, Result>(
        _ from: From<Object>, _ select: Select<Object, Result>, _ queryClauses: [any QueryClause]
    ) throws(StrataError) -> [[String: StoredValue]] {
        try queryAttributes(from.select(select).applying(queryClauses))
    }

    // A `Select` written without its result type, as CoreStore's
    // `Select("name", "age")` for `queryAttributes`, is one of rows.

    /// Every row the query returns, each term's value under its name, for a
    /// ``Select`` written without a result type.
    ///
    /// ```swift
    /// let people = try stack.queryAttributes(From<Person>(), Select("name", "age"))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryAttributes<Object: ManagedObject>(
        _ from: From<Object>, _ select: Select<Object, [String: StoredValue]>, _ queryClauses: any QueryClause...
    ) throws(StrataError) -> [[String: StoredValue]] {
        try queryAttributes(from.select(select).applying(queryClauses))
    }

    /// Every row the query returns, each term's value under its name, for a
    /// ``Select`` written without a result type.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryAttributes<Object: ManagedObject>(
        _ from: From<Object>, _ select: Select<Object, [String: StoredValue]>, _ queryClauses: [any QueryClause]
    ) throws(StrataError) -> [[String: StoredValue]] {
        try queryAttributes(from.select(select).applying(queryClauses))
    }
}
