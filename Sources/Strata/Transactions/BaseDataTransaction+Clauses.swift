/// CoreStore's list form of a bulk delete.
extension BaseDataTransaction {
    /// Deletes every object the fetch and its ``DeleteClause``s (``Where``,
    /// ``OrderBy``, ``Tweak``) match and returns how many: the clauses are
    /// added to `from` in order, as the chained methods do, and the result
    /// deleted as ``deleteAll(_:)-(From<Object>)`` does, delete rules and all.
    ///
    /// ```swift
    /// let removed = try tx.deleteAll(From<Person>(), Where<Person>(\.$age < 18))
    /// ```
    ///
    /// - Throws: what ``deleteAll(_:)-(From<Object>)`` throws.
    @discardableResult
    public func deleteAll<Object: ManagedObject>(
        _ from: From<Object>, _ deleteClauses: any DeleteClause...
    ) throws(StrataError) -> Int {
        try deleteAll(from.applying(deleteClauses))
    }

    /// Deletes every object the fetch and its ``DeleteClause``s match and
    /// returns how many.
    ///
    /// - Throws: what ``deleteAll(_:)-(From<Object>)`` throws.
    @discardableResult
    public func deleteAll<Object: ManagedObject>(
        _ from: From<Object>, _ deleteClauses: [any DeleteClause]
    ) throws(StrataError) -> Int {
        try deleteAll(from.applying(deleteClauses))
    }
}
