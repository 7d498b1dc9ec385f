/// Live lists and objects on the main actor.
extension DataStack {
    /// A monitor of the objects `query` matches, kept current after every commit.
    ///
    /// ```swift
    /// let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func monitorList<Object: ManagedObject>(_ query: From<Object>) throws -> ListMonitor<Object> {
        try ListMonitor(main: main(), query: query, sectionBy: nil)
    }

    /// A monitor of the objects `query` matches, in sections.
    ///
    /// ```swift
    /// let monitor = try stack.monitorSectionedList(
    ///     From<Person>().orderBy(.ascending(\.$name)).sectionBy(\.$city))
    /// ```
    @MainActor
    public func monitorSectionedList<Object: ManagedObject>(_ query: SectionedQuery<Object>) throws -> ListMonitor<Object> {
        try ListMonitor(main: main(), query: query.query, sectionBy: query.sectionBy)
    }
}
