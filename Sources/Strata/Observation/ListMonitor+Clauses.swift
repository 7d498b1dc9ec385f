/// CoreStore's `refetch(_ fetchClauses:)`.
extension ListMonitor {
    /// Shows the objects that `fetchClauses` (``Where``, ``OrderBy``,
    /// ``Tweak``) select, in place of the monitor's predicate, order and
    /// tweak: as in CoreStore, the list names every clause the monitor needs,
    /// and the ones it had before are dropped. The entity, the stores (the
    /// configurations of its ``From``) and the sectioning stay. Observers get
    /// `listMonitorWillRefetch` now and `listMonitorDidRefetch` once the new
    /// list is in place, as with ``refetch(_:)-(ListQuery)``; unlike
    /// CoreStore's, the fetch runs before the call returns.
    ///
    /// ```swift
    /// try monitor.refetch(Where<Person>(\.$age >= 21), OrderBy<Person>(.descending(\.$age)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` if the fetch fails; the old list stays, and
    ///   observers still get `listMonitorDidRefetch`.
    public func refetch(_ fetchClauses: any FetchClause...) throws(StrataError) {
        try refetch(fetchClauses)
    }

    /// Shows the objects that `fetchClauses` select, in place of the
    /// monitor's predicate, order and tweak (see ``refetch(_:)-(FetchClause...)``).
    ///
    /// - Throws: a ``StrataError`` if the fetch fails; the old list stays.
    public func refetch(_ fetchClauses: [any FetchClause]) throws(StrataError) {
        let stores = query.configurations.map { From<Object>($0) } ?? From<Object>()
        try refetch(from: stores.applying(fetchClauses), sectionBy: sectionBy)
    }
}
