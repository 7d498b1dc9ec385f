/// Queries and object conveniences in a transaction. Pending changes are
/// flushed to the transaction's connection first, so they are counted.
extension BaseDataTransaction {
    /// The first term of the first row the query returns, as `Result`; `nil`
    /// when there is no row, the value is NULL, or it does not convert.
    ///
    /// ```swift
    /// let oldest = try tx.queryValue(From<Person>().select(Int.self, .maximum(\.$age)))
    /// ```
    ///
    /// - Throws: an SQLite error, or the error of flushing pending changes.
    public func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ query: QueryChain<Object, Result>
    ) throws -> Result? {
        try context.queryValue(query)
    }

    /// Every row the query returns, each term's value under its name; a NULL
    /// value is left out of its row.
    ///
    /// ```swift
    /// let rows = try tx.queryAttributes(
    ///     From<Person>().select(.attribute(\.$city), .sum(\.$age)).groupBy(\.$city))
    /// ```
    ///
    /// - Throws: an SQLite error, or the error of flushing pending changes.
    public func queryAttributes<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>
    ) throws -> [[String: StoredValue]] {
        try context.queryAttributes(query)
    }

    /// The one object the query matches, or `nil` when none or several do.
    ///
    /// - Throws: an SQLite error, or the error of flushing pending changes.
    public func fetchUnique<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        try context.fetchUnique(query)
    }

    /// The first object the query matches or, when none does, a new object
    /// passed to `configure` (which should make it match). `configure` is not
    /// called for an object that was found.
    ///
    /// ```swift
    /// let ann = try tx.fetchOrCreate(From<Person>().where(\.$email == "ann@example.com")) {
    ///     $0.email = "ann@example.com"
    ///     $0.name = "Ann"
    /// }
    /// ```
    ///
    /// - Throws: an error of the fetch, or one `configure` throws (unchanged).
    public func fetchOrCreate<Object: ManagedObject>(
        _ query: From<Object>, configure: (Object) throws -> Void
    ) throws -> Object {
        if let found = try context.fetchOne(query) { return found }
        let object = create(Into<Object>())
        try configure(object)
        return object
    }
}
