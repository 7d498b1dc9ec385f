/// Published lists on the main actor.
extension DataStack {
    /// A publisher of the objects `query` matches, as ``ListSnapshot``s kept
    /// current after every commit.
    ///
    /// ```swift
    /// let publisher = try stack.publishList(From<Person>().orderBy(.ascending(\.$name)))
    /// for await snapshot in publisher.snapshots { print(snapshot.count) }
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func publishList<Object: ManagedObject>(_ query: From<Object>) throws -> ListPublisher<Object> {
        try ListPublisher(monitor: monitorList(query))
    }

    /// A publisher of the objects `query` matches, in sections.
    ///
    /// ```swift
    /// let publisher = try stack.publishSectionedList(
    ///     From<Person>().orderBy(.ascending(\.$name)).sectionBy(\.$city))
    /// print(publisher.snapshot.sectionIDs)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a fetch error.
    @MainActor
    public func publishSectionedList<Object: ManagedObject>(
        _ query: SectionedQuery<Object>
    ) throws -> ListPublisher<Object> {
        try ListPublisher(monitor: monitorSectionedList(query))
    }
}
