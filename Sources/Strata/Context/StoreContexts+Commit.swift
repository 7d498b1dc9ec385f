/// Ending a transaction over several stores.
extension StoreContexts {
    /// Commits what the transaction changed, or throws and saves nothing.
    ///
    /// A transaction commits in one store: SQLite does not make a commit
    /// across several WAL files atomic, and Strata does not yet add the
    /// protocol that would, so a transaction that changed objects in two
    /// stores is refused whole rather than saved half.
    ///
    /// Returns the change set of the store that changed, if any.
    ///
    /// - Throws: ``StrataError/crossStoreTransaction(configurations:)`` when
    ///   two stores changed (everything is rolled back), or what the commit of
    ///   the changed store throws.
    @discardableResult
    func commit(author: String?, didCommit: () -> Void) throws -> ChangeSet? {
        if all.count == 1 { return try all[0].commit(author: author, didCommit: didCommit) }
        if let error = all.lazy.compactMap(\.deferredError).first {
            rollback()
            throw error
        }
        // Each context's changes are looked at once: it walks every object it holds.
        let (changed, unchanged) = all.reduce(into: ([ObjectContext](), [ObjectContext]())) { split, context in
            if context.hasChanges { split.0.append(context) } else { split.1.append(context) }
        }
        if changed.count > 1 {
            rollback()
            throw StrataError.crossStoreTransaction(configurations: changed.map(\.schema.configuration))
        }
        // The changed store first; the others only end their reads.
        var changeSet: ChangeSet?
        for context in changed + unchanged {
            changeSet = try context.commit(author: author, didCommit: didCommit) ?? changeSet
        }
        return changeSet
    }

    /// Discards every store's changes.
    func rollback() {
        for context in all { context.rollback() }
    }
}
