/// Published lists on the main actor.
extension DataStack {
    /// A publisher of the objects `query` matches, as ``ListSnapshot``s kept
    /// current after every commit: in one section for a ``From``, in
    /// sections for a ``SectionedQuery`` (`From.sectionBy(...)`).
    ///
    /// ```swift
    /// let publisher = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)))
    /// for await snapshot in publisher.snapshots { print(snapshot.count) }
    /// let byCity = try stack.publishList(From<Person>().sectionBy(\.$city))
    /// print(byCity.snapshot.sectionIDs)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func publishList<Object: ManagedObject>(_ query: some ListQuery<Object>)
        throws(StrataError) -> ListPublisher<Object>
    {
        ListPublisher(monitor: try monitorList(query))
    }

    /// CoreStore's name for a sectioned publisher; in Strata the query
    /// carries its sections and ``publishList(_:)`` takes it.
    @available(*, unavailable, renamed: "publishList(_:)",
               message: "the query carries its sections: publishList(From<T>().sectionBy(...))")
    @MainActor
    public func publishSectionedList<Object: ManagedObject>(_ query: SectionedQuery<Object>)
        throws(StrataError) -> ListPublisher<Object>
    {
        try publishList(query)
    }
}
