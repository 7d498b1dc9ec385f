/// CoreStore's list form of each fetch: a ``From`` and a list of
/// ``FetchClause``s (``Where``, ``OrderBy``, ``Tweak``), given one by one or
/// as an array. Each adds its clauses to the `From` in order, as the chained
/// methods do (see ``FetchClause``), and runs the chained fetch: it returns
/// what that returns and throws what that throws (see ``FetchableSource``).
///
/// ```swift
/// let people = try stack.fetchAll(
///     From<Person>(), Where<Person>(\.$age > 30), OrderBy<Person>(.ascending(\.$name)),
///     Tweak { $0.fetchLimit = 5 })
/// let n = try stack.fetchCount(From<Person>(), [Where<Person>(true)])
/// ```
extension FetchableSource {
    /// Every object the fetch and its clauses match, in their order: `fetchAll(from.where(...)...)`.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchAll<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> [Object] {
        try fetchAll(from.applying(fetchClauses))
    }

    /// Every object the fetch and its clauses match, in their order.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchAll<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> [Object] {
        try fetchAll(from.applying(fetchClauses))
    }

    /// The first object the fetch and its clauses match, or `nil`.
    ///
    /// ```swift
    /// let youngest = try tx.fetchOne(From<Person>(), OrderBy<Person>(.ascending(\.$age)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchOne<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> Object? {
        try fetchOne(from.applying(fetchClauses))
    }

    /// The first object the fetch and its clauses match, or `nil`.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchOne<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> Object? {
        try fetchOne(from.applying(fetchClauses))
    }

    /// How many objects the fetch and its clauses match (limit and offset applied).
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchCount<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> Int {
        try fetchCount(from.applying(fetchClauses))
    }

    /// How many objects the fetch and its clauses match (limit and offset applied).
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchCount<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> Int {
        try fetchCount(from.applying(fetchClauses))
    }

    /// The IDs of the objects the fetch and its clauses match, in their order.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchObjectIDs<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> [ObjectID<Object>] {
        try fetchObjectIDs(from.applying(fetchClauses))
    }

    /// The IDs of the objects the fetch and its clauses match, in their order.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchObjectIDs<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> [ObjectID<Object>] {
        try fetchObjectIDs(from.applying(fetchClauses))
    }

    /// The ID of the first object the fetch and its clauses match; `nil`
    /// when none does.
    ///
    /// ```swift
    /// let oldestID = try stack.fetchObjectID(From<Person>(), OrderBy<Person>(.descending(\.$age)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchObjectID<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> ObjectID<Object>? {
        try fetchObjectID(from.applying(fetchClauses))
    }

    /// The ID of the first object the fetch and its clauses match; `nil`
    /// when none does.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchObjectID<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> ObjectID<Object>? {
        try fetchObjectID(from.applying(fetchClauses))
    }
}
