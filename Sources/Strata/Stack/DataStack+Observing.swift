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

/// A query with a ``SectionBy``, for ``DataStack/monitorSectionedList(_:)``.
public struct SectionedQuery<Object: ManagedObject>: Sendable {
    let query: From<Object>
    let sectionBy: SectionBy<Object>
}

extension From {
    /// Sections the list by the field at `keyPath`, each named by `sectionName`.
    ///
    /// ```swift
    /// From<Person>().orderBy(.ascending(\.$name)).sectionBy(\.$age) { "\($0 / 10 * 10)s" }
    /// ```
    public func sectionBy<Value: FieldStorable>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>,
        _ sectionName: @escaping @Sendable (Value) -> String = defaultSectionName
    ) -> SectionedQuery<Object> {
        SectionedQuery(query: self, sectionBy: SectionBy(keyPath, sectionName))
    }

    /// Sections the list as `sectionBy` says.
    public func sectionBy(_ sectionBy: SectionBy<Object>) -> SectionedQuery<Object> {
        SectionedQuery(query: self, sectionBy: sectionBy)
    }
}
