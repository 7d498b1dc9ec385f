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
