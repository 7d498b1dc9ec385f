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

    /// CoreStore's name for a sectioned monitor; in Strata the query carries
    /// its sections and ``monitorList(_:)`` takes it.
    @available(*, unavailable, renamed: "monitorList(_:)",
               message: "the query carries its sections: monitorList(From<T>().sectionBy(...))")
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(_ query: SectionedQuery<Object>)
        throws(StrataError) -> ListMonitor<Object>
    {
        try monitorList(query)
    }
}
