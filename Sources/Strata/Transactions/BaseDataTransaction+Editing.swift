/// Bringing many objects into a transaction at once: one query per entity
/// for the objects the transaction does not hold yet, rather than one per
/// object.
extension BaseDataTransaction {
    /// The objects with `ids` that still exist, in the same order, ready to
    /// change: for each ID what `edit(id)` returns, but
    /// read in one query (IDs the transaction holds already cost none).
    ///
    /// Objects deleted in the store or in this transaction are left out, so
    /// the result may be shorter than `ids`; an ID given twice gives its
    /// object twice. Like every `edit`, it cannot throw: a storage failure
    /// returns `[]` and fails the transaction's next read or its commit.
    ///
    /// ```swift
    /// try await stack.perform { tx in
    ///     for person in tx.edit(selectedIDs) { person.isArchived = true }
    /// }
    /// ```
    ///
    /// The SQL it runs, once for all the IDs it does not hold:
    ///
    /// ```sql
    /// SELECT _pk, "name", ... FROM "Person" WHERE _pk IN (SELECT value FROM strata_values(?))
    /// ```
    public func edit<IDs: Sequence, Object: ManagedObject>(_ ids: IDs) -> [Object]
    where IDs.Element == ObjectID<Object> {
        // `IDs` is declared before `Object`: the other way round, Swift 6.3
        // binds `Object` to its bound, `ManagedObject`, unless the result's
        // type is spelled out, and `tx.edit(ids)` alone does not compile.
        deferringFailure(or: []) { try contexts.fetchExisting(ids) }
    }

    /// The objects with `ids` that still exist, ready to change: the
    /// sequence form, for an array literal (`tx.edit([a, b])`), whose element
    /// type the generic form cannot infer.
    public func edit<Object: ManagedObject>(_ ids: [ObjectID<Object>]) -> [Object] {
        deferringFailure(or: []) { try contexts.fetchExisting(ids) }
    }

    /// This transaction's instances of `objects` (from any context, for
    /// example the main context's objects a list shows) that still exist, in
    /// the same order, ready to change: for each object what
    /// `edit(object)` returns, but those the transaction does not hold
    /// yet are read in one query per entity.
    ///
    /// Objects deleted in the store or in this transaction, objects made
    /// with `init()` outside any transaction, and objects of another stack's
    /// store (another file) are left out. It cannot throw:
    /// a storage failure returns `[]` and fails the transaction's next read or
    /// its commit.
    ///
    /// ```swift
    /// let selected = monitor.objectsInAllSections().filter(\.isSelected)
    /// try stack.perform(synchronous: { tx in
    ///     for task in tx.edit(selected) { task.isDone = true }
    /// })
    /// ```
    public func edit<Object: ManagedObject>(_ objects: some Sequence<Object>) -> [Object] {
        deferringFailure(or: []) { try contexts.fetchExisting(objects) }
    }

    /// The result of `body`, or `fallback` when it fails: `edit` cannot
    /// throw, so the failure is kept and thrown by the transaction's next
    /// read or its commit.
    func deferringFailure<Result>(or fallback: Result, _ body: () throws -> Result) -> Result {
        do {
            return try body()
        } catch {
            let context = contexts.primary
            context.deferredError = context.deferredError ?? context.translated(error)
            return fallback
        }
    }
}
