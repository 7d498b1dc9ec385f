/// A transaction reads through its own context: every fetch and query of
/// ``FetchableSource`` and ``QueryableSource`` sees its pending changes,
/// which are flushed to its connection first.
extension BaseDataTransaction: QueryableSource {
    /// The transaction's own contexts; never throws.
    public func sourceContext() -> SourceContext {
        SourceContext(contexts)
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
    /// - Throws: an error of the fetch, or ``StrataError/userError(_:)`` wrapping
    ///   an error `configure` throws (a ``StrataError`` it throws comes out
    ///   unchanged), as a transaction body's errors do.
    public func fetchOrCreate<Object: ManagedObject>(
        _ query: From<Object>, configure: (Object) throws -> Void
    ) throws(StrataError) -> Object {
        try StrataError.catching {
            if let found = try fetchOne(query) { return found }
            let object = create(Into<Object>())
            try configure(object)
            return object
        }
    }
}
