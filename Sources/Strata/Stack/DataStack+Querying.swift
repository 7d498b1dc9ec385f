/// Queries on the main context: values and rows of values rather than objects.
extension DataStack {
    /// The first term of the first row the query returns, as `Result`; `nil`
    /// when there is no row, the value is NULL (a `sum` of no rows, for
    /// example), or it does not convert (an average of 2.5 asked as `Int`).
    ///
    /// ```swift
    /// let total = try stack.queryValue(From<Person>().select(Int.self, .sum(\.$age)))
    /// // SELECT sum(t0."age") AS "sum(age)" FROM "Person" AS t0 LIMIT ? OFFSET ?
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added, or an SQLite
    ///   error (an integer `sum` that overflows Int64, for example).
    @MainActor
    public func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ query: QueryChain<Object, Result>
    ) throws -> Result? {
        try main().context.queryValue(query)
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
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added, or an SQLite error.
    @MainActor
    public func queryAttributes<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>
    ) throws -> [[String: StoredValue]] {
        try main().context.queryAttributes(query)
    }

    /// The one object the query matches, or `nil` when none or several do
    /// (after the query's own limit and offset).
    ///
    /// ```swift
    /// let ann = try stack.fetchUnique(From<Person>().where(\.$email == "ann@example.com"))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added, or an SQLite error.
    @MainActor
    public func fetchUnique<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        try main().context.fetchUnique(query)
    }
}
