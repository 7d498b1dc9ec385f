/// CoreStore's list form of monitors and publishers: a ``From``, for a
/// sectioned list a ``SectionBy``, and a list of ``FetchClause``s
/// (``Where``, ``OrderBy``, ``Tweak``), one by one or as an array. Each adds
/// the clauses to the `From` in order, as the chained methods do (see
/// ``FetchClause``), and makes what the chained form makes of the result.
///
/// ```swift
/// let adults = try stack.monitorList(
///     From<Person>(), Where<Person>(\.$age >= 18), OrderBy<Person>(.ascending(\.$name)))
/// let byCity = try stack.monitorSectionedList(
///     From<Person>(), SectionBy<Person>(\.$city), OrderBy<Person>(.ascending(\.$name)))
/// ```
extension DataStack {
    /// A monitor of the objects the fetch and its clauses match, in one
    /// section: ``monitorList(_:)`` of `from` with the clauses added.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func monitorList<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> ListMonitor<Object> {
        try monitorList(from.applying(fetchClauses))
    }

    /// A monitor of the objects the fetch and its clauses match, in one section.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func monitorList<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> ListMonitor<Object> {
        try monitorList(from.applying(fetchClauses))
    }

    /// A monitor of the objects the fetch and its clauses match, in the
    /// sections `sectionBy` makes: ``monitorList(_:)`` of
    /// `from.sectionBy(sectionBy)` with the clauses added.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(
        _ from: From<Object>, _ sectionBy: SectionBy<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> ListMonitor<Object> {
        try monitorList(from.applying(fetchClauses).sectionBy(sectionBy))
    }

    /// A monitor of the objects the fetch and its clauses match, in the
    /// sections `sectionBy` makes.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(
        _ from: From<Object>, _ sectionBy: SectionBy<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> ListMonitor<Object> {
        try monitorList(from.applying(fetchClauses).sectionBy(sectionBy))
    }

    /// A publisher of the objects the fetch and its clauses match, in one
    /// section: ``publishList(_:)`` of `from` with the clauses added.
    ///
    /// ```swift
    /// let publisher = try stack.publishList(From<Person>(), OrderBy<Person>(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func publishList<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> ListPublisher<Object> {
        try publishList(from.applying(fetchClauses))
    }

    /// A publisher of the objects the fetch and its clauses match, in one section.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func publishList<Object: ManagedObject>(
        _ from: From<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> ListPublisher<Object> {
        try publishList(from.applying(fetchClauses))
    }

    /// A publisher of the objects the fetch and its clauses match, in the
    /// sections `sectionBy` makes, as CoreStore's `publishList(_:_:_:)`:
    /// ``publishList(_:)`` of `from.sectionBy(sectionBy)` with the clauses added.
    ///
    /// ```swift
    /// let byCity = try stack.publishList(
    ///     From<Person>(), SectionBy<Person>(\.$city), OrderBy<Person>(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func publishList<Object: ManagedObject>(
        _ from: From<Object>, _ sectionBy: SectionBy<Object>, _ fetchClauses: any FetchClause...
    ) throws(StrataError) -> ListPublisher<Object> {
        try publishList(from.applying(fetchClauses).sectionBy(sectionBy))
    }

    /// A publisher of the objects the fetch and its clauses match, in the
    /// sections `sectionBy` makes.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func publishList<Object: ManagedObject>(
        _ from: From<Object>, _ sectionBy: SectionBy<Object>, _ fetchClauses: [any FetchClause]
    ) throws(StrataError) -> ListPublisher<Object> {
        try publishList(from.applying(fetchClauses).sectionBy(sectionBy))
    }
}
