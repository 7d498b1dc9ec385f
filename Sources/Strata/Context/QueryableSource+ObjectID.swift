// `queryValue` of a `Select` whose result is the object's ID. `ObjectID`
// is no `FieldStorable` (a row ID alone does not say which entity's row it
// is), so the ID has overloads of its own, read by the context.

extension QueryableSource {
    /// The ID of the first object the query matches, when its first term is
    /// ``SelectTerm/objectID(as:)``, as CoreStore's
    /// `queryValue(From<T>(), Select<NSManagedObjectID>())`; `nil` when no
    /// object matches or the first term is another one. An object of a
    /// subentity has its own entity's ID (`"Dog/7"` as an `ObjectID<Animal>`).
    /// In a transaction the query sees its pending changes: an object it
    /// created has its ID already, one it deleted is not matched.
    ///
    /// ```swift
    /// let oldest = try stack.queryValue(
    ///     From<Person>().orderBy(.descending(\.$age)).select(ObjectID<Person>.self, .objectID()))
    /// // SELECT t0._pk AS "objectID" FROM "Person" AS t0 ORDER BY t0."age" DESC, t0._pk ASC LIMIT ? OFFSET ?
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``), among them
    ///   ``StrataError/invalidValue(entity:field:reason:)`` when the query
    ///   also groups or aggregates (its rows are not objects).
    public func queryValue<Object: ManagedObject>(
        _ query: QueryChain<Object, ObjectID<Object>>
    ) throws(StrataError) -> ObjectID<Object>? {
        try read { try $0.queryObjectID(query) }
    }

    /// The ID of the first object the query matches, as the chained
    /// `queryValue(from.select(select))` returns it.
    ///
    /// ```swift
    /// let annID = try stack.queryValue(
    ///     From<Person>(), Select<Person, ObjectID<Person>>(.objectID()), Where<Person>(\.$name == "Ann"))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryValue<Object: ManagedObject>(
        _ from: From<Object>, _ select: Select<Object, ObjectID<Object>>, _ queryClauses: any QueryClause...
    ) throws(StrataError) -> ObjectID<Object>? {
        try queryValue(from.select(select).applying(queryClauses))
    }

    /// The ID of the first object the query matches, the clauses given as an array.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func queryValue<Object: ManagedObject>(
        _ from: From<Object>, _ select: Select<Object, ObjectID<Object>>, _ queryClauses: [any QueryClause]
    ) throws(StrataError) -> ObjectID<Object>? {
        try queryValue(from.select(select).applying(queryClauses))
    }
}
