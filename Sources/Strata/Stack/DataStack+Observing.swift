/// Live lists on the main actor.
extension DataStack {
    /// A monitor of the objects `query` matches, kept current after every
    /// commit: in one section for a ``From``, in sections for a
    /// ``SectionedQuery`` (`From.sectionBy(...)`).
    ///
    /// ```swift
    /// let people = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)))
    /// let byCity = try stack.monitorList(
    ///     From<Person>().sectionBy(\.$city).orderBy(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func monitorList<Object: ManagedObject>(_ query: some ListQuery<Object>)
        throws(StrataError) -> ListMonitor<Object>
    {
        try StrataError.catching {
            let monitor = try ListMonitor(
                main: main(following: query.from), query: query.from, sectionBy: query.sectionBy)
            monitor.storeOfQuery = { [weak self] query in try self?.main(following: query) }
            return monitor
        }
    }

    /// CoreStore's name for a sectioned monitor, kept so that CoreStore code
    /// reads the same: the monitor ``monitorList(_:)`` makes of the same
    /// query (in Strata the query carries its sections, so either name
    /// takes it).
    ///
    /// ```swift
    /// let byCity = try stack.monitorSectionedList(
    ///     From<Person>().sectionBy(\.$city).orderBy(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(_ query: SectionedQuery<Object>)
        throws(StrataError) -> ListMonitor<Object>
    {
        try monitorList(query)
    }
}
