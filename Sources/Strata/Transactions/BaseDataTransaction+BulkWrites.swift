/// Bulk writes: many rows deleted or changed by a few SQL statements, without
/// loading an object, and still reaching every monitor and publisher when
/// the transaction commits (see "Bulk writes" in Docs/Transactions.md).
extension BaseDataTransaction {
    /// Deletes every object the query matches and returns how many, applying
    /// every relationship's delete rule as deleting them one by one would:
    /// cascades delete in turn, to any depth; nullify unlinks; deny is
    /// judged when the transaction commits, against its final state.
    ///
    /// The query's clauses mean what they mean in a fetch: with a fetch limit
    /// or offset, exactly the objects `fetchAll` returns are deleted (over
    /// several stores too: the limit counts the merged list).
    /// Pending changes are written first, so the query sees them; objects
    /// this transaction holds follow (deleted ones are marked deleted,
    /// unlinked ones lose the link). Nothing is read into objects: the cost
    /// is that of the SQL `DELETE ... RETURNING _pk` and one statement per
    /// relationship involved.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in
    ///     let old = try tx.deleteAll(From<Message>().where(\.$sent < cutoff))
    ///     print("removed \(old) messages")
    /// })
    /// ```
    ///
    /// - Throws: a ``StrataError`` when the query cannot be compiled or the
    ///   store refuses; nothing of the call is then left in the store, and
    ///   the transaction may go on. A `.deny` relationship that still holds
    ///   objects fails the commit with ``StrataError/deleteDenied(entity:relationship:relatedCount:)``.
    @discardableResult
    public func deleteAll<Object: ManagedObject>(_ query: From<Object>) throws(StrataError) -> Int {
        try StrataError.catching {
            try endingUndoHistory {
                try contexts.bulkTargets(query).reduce(0) { count, target in
                    let (context, query) = target
                    let entity = context.entity(Object.self)
                    do {
                        return count + (try context.deleteRows(
                            of: entity,
                            target: query.compileTarget(
                                in: entity, schema: context.schema, dialect: context.store.dialect)))
                    } catch {
                        throw context.translated(error)
                    }
                }
            }
        }
    }

    /// Changes fields of every object the query matches with SQL, without
    /// loading one, and returns how many objects changed. An object whose
    /// field already holds the new value is not changed (nor counted, nor in
    /// the change set), exactly as when set object by object.
    ///
    /// Assignments set stored and coded fields, increment numbers, and set
    /// to-one relationships to an object, an ID or `nil` (the inverse
    /// follows; an ordered to-many inverse gains the objects at its end, in
    /// the query's order). A one-to-one relationship can only be set to
    /// `nil` this way. The query's clauses mean what they mean in a fetch.
    /// Pending changes are written first; objects this transaction holds
    /// take the new values. Monitors see the changes when the transaction
    /// commits, like any other.
    ///
    /// ```swift
    /// let moved = try tx.updateAll(
    ///     From<Ticket>().where(\.$queue == "triage"),
    ///     .set(\.$queue, to: "support"),
    ///     .increment(\.$handovers, by: 1))
    /// ```
    ///
    /// - Throws: ``StrataError/uniqueConstraintViolation(entity:fields:)``
    ///   when the new values break a unique field,
    ///   ``StrataError/invalidValue(entity:field:reason:)`` for a value that
    ///   cannot be stored, an increment past the field's range, a related
    ///   object that does not exist, or a field assigned twice. Nothing of
    ///   the call is then left in the store, and the transaction may go on.
    @discardableResult
    public func updateAll<Object: ManagedObject>(
        _ query: From<Object>, _ assignments: FieldAssignment<Object>...
    ) throws(StrataError) -> Int {
        try updateAll(query, assignments)
    }

    /// Changes fields of every object the query matches; see ``updateAll(_:_:)-(From<Object>,FieldAssignment<Object>...)``.
    @discardableResult
    public func updateAll<Object: ManagedObject>(
        _ query: From<Object>, _ assignments: [FieldAssignment<Object>]
    ) throws(StrataError) -> Int {
        try StrataError.catching {
            try endingUndoHistory {
                try contexts.bulkTargets(query).reduce(0) { count, target in
                    let (context, query) = target
                    do {
                        return count + (try context.updateRows(
                            of: context.entity(Object.self), query: query,
                            assignments: assignments.map { ($0.field, $0.change) }))
                    } catch {
                        throw context.translated(error)
                    }
                }
            }
        }
    }

    /// Runs a bulk write, which an undo history cannot take back cheaply:
    /// it records nothing, and once it succeeds the history ends
    /// (Docs/Transactions.md, Rule 12a). A failed one leaves the history as
    /// it was, as it leaves the store.
    private func endingUndoHistory<Result>(_ body: () throws -> Result) throws -> Result {
        guard let history = contexts.primary.undoHistory else { return try body() }
        let result = try history.withoutRecording(body)
        history.removeAll(keepingDenyChecksOf: contexts.all)
        return result
    }
}
