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
    /// called for an object that was found. The new object goes to the store
    /// the query reads: the one its `From` names (`From<Thumbnail>("Cache")`),
    /// or the one store holding the entity; a query over several stores that
    /// hold it traps, as `Into<T>()` does: name one.
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
            let object = create(try creationTarget(of: query))
            try configure(object)
            return object
        }
    }

    /// Where `fetchOrCreate` creates: the one store `query` reads among
    /// those holding `Object`, so that the next same query finds the object.
    private func creationTarget<Object: ManagedObject>(of query: From<Object>) throws -> Into<Object> {
        guard contexts.all.count > 1 else { return Into<Object>() }
        let stores = try contexts.holding(Object.self, in: query.configurations)
        checkUsage(
            stores.count == 1,
            "Strata: fetchOrCreate reads several stores that hold \(Object.self) (configurations "
                + stores.map { $0.schema.configuration ?? "nil" }.joined(separator: ", ")
                + "); name one, as From<\(Object.self)>(\"Configuration\"), to say where to create.")
        return Into<Object>(Object.self, stores[0].schema.configuration)
    }
}
