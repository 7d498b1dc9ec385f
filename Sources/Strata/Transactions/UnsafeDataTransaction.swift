/// A transaction the caller synchronises itself, from
/// ``DataStack/beginUnsafe(supportsUndo:author:)``.
///
/// It can commit several times; after each commit or rollback it goes on with
/// a fresh SQLite transaction at its next read or write. While it has an open
/// SQLite transaction it holds the store's writer, and other transactions wait.
/// Begun with `supportsUndo: true`, it keeps an undo history: see ``undo()``.
///
/// ```swift
/// let tx = try stack.beginUnsafe()
/// tx.create(Into<Person>()).name = "Ann"
/// try tx.commitAndWait()
/// ```
public final class UnsafeDataTransaction: BaseDataTransaction {
    /// The stack that began it, which merges its commits into the main context.
    let stack: any CommitMerging
    /// The undo and redo stacks, when begun with `supportsUndo: true`.
    private let undoHistory: UndoHistory?

    init(contexts: StoreContexts, author: String?, supportsUndo: Bool = false, stack: any CommitMerging) {
        self.stack = stack
        self.undoHistory = supportsUndo ? UndoHistory() : nil
        let exclusiveUse = ExclusiveUse()
        for context in contexts.all {
            context.keepsObjectsAcrossCommits = true
            context.exclusiveUse = exclusiveUse
            context.undoHistory = undoHistory
        }
        super.init(contexts: contexts, author: author)
    }

    deinit {
        contexts.rollback()
        // The history holds objects, which hold their context, which holds the history.
        undoHistory?.removeAll()
        for context in contexts.all {
            context.undoHistory = nil
            context.removeAllObjects()
        }
    }

    /// Commits now and returns the change set, once it is merged into the
    /// main context and observers are told, as CoreStore's `commitAndWait()`:
    /// on the main actor the merge runs right here; from another thread this
    /// waits for the main actor to run it, as
    /// ``DataStack/perform(synchronous:waitForAllObservers:author:isolation:)``
    /// does (at most 10 seconds when the main actor is blocked).
    ///
    /// - Throws: a ``StrataError``; the transaction's changes are rolled back.
    @discardableResult
    public func commitAndWait(
        isolation: isolated (any Actor)? = #isolation
    ) throws(StrataError) -> ChangeSet? {
        let changeSet = try StrataError.catching { try commitEndingUndoGroup() }
        stack.mergeCommitted(isolation)
        return changeSet
    }

    /// Commits now and calls `completion` on the main actor once the change
    /// set is merged, with `nil` or the error.
    public func commit(_ completion: @escaping @MainActor @Sendable (StrataError?) -> Void = { _ in }) {
        var failure: StrataError?
        do {
            try commitEndingUndoGroup()
        } catch {
            failure = StrataError.wrapping(error)
        }
        let result = failure
        stack.deliver({ completion(result) }, after: contexts.all.map(\.store), holdingMerges: false)
    }

    /// Commits, ending the open undo group first; a failed commit, rolled
    /// back, ends the undo history as ``rollback()`` does.
    @discardableResult
    private func commitEndingUndoGroup() throws -> ChangeSet? {
        guard let undoHistory else {
            return try contexts.commit(author: author, didCommit: stack.scheduleMerge)
        }
        undoHistory.endGroup()
        do {
            // What the commit itself changes (the links a deny rule leaves) is no group of its own.
            let changeSet = try undoHistory.withoutRecording {
                try contexts.commit(author: author, didCommit: stack.scheduleMerge)
            }
            undoHistory.didCommit()
            return changeSet
        } catch {
            undoHistory.removeAll()
            throw error
        }
    }

    /// Discards every uncommitted change; objects return to their committed
    /// values. With `supportsUndo: true`, it also empties the undo and redo
    /// stacks, as Core Data's `rollback()` does: what they held was
    /// relative to changes that no longer exist.
    ///
    /// ```swift
    /// person.name = "Draft"
    /// tx.rollback()      // person.name is the committed name again; nothing to undo
    /// ```
    public func rollback() {
        contexts.rollback()
        undoHistory?.removeAll()
    }

    /// Runs `closure`, then ``flush()``: CoreStore's `flush(closure:)`, for
    /// changes that should end one undo group together.
    ///
    /// ```swift
    /// try tx.flush {
    ///     person.name = form.name
    ///     person.age = form.age
    /// }
    /// tx.undo()          // takes back both fields
    /// ```
    ///
    /// - Throws: the error `closure` throws, unchanged (nothing is flushed
    ///   then, and the changes it made before throwing stay pending, as in
    ///   CoreStore), or the ``StrataError`` of the flush.
    public func flush(closure: () throws -> Void) throws {
        try closure()
        try flush()
    }

    /// Writes pending changes into the open SQLite transaction without
    /// committing. With `supportsUndo: true`, it ends the open undo group,
    /// as Core Data's `processPendingChanges()` (which CoreStore's `flush()`
    /// calls) does; the group ends even when the flush throws.
    ///
    /// - Throws: a ``StrataError`` (a uniqueness violation, an invalid value).
    public func flush() throws(StrataError) {
        undoHistory?.endGroup()
        for context in contexts.all {
            do {
                try context.flush()
            } catch {
                throw context.translated(error)
            }
        }
    }
}

// MARK: Undo and redo

extension UnsafeDataTransaction {
    /// Takes back the last group of this transaction's changes, as Core
    /// Data's undo manager does: field values, creations (an undone
    /// creation is deleted: it reads as a deleted object and fetches leave it
    /// out), deletions (the same object and ID come back, with both sides of
    /// its relationships and what its delete rules changed), and every
    /// relationship edit, inverses and order included.
    ///
    /// A group is everything changed between two boundaries: ``flush()``,
    /// each commit, and `undo()` itself, which ends the open group and
    /// takes it back. Changes already committed can be undone too: they
    /// become pending changes again, which the next commit saves. With
    /// nothing to undo it does nothing. A bulk write (`deleteAll`,
    /// `updateAll`) and ``rollback()`` end the history.
    ///
    /// ```swift
    /// let tx = try stack.beginUnsafe(supportsUndo: true)
    /// let ann = tx.create(Into<Person>())
    /// ann.name = "Ann"
    /// try tx.flush()                 // ends the group
    /// ann.name = "Annie"
    /// tx.undo()                      // ann.name == "Ann"
    /// tx.redo()                      // ann.name == "Annie"
    /// tx.undo(); tx.undo()           // ann.isDeletedObject
    /// ```
    ///
    /// It does not throw: a storage failure while putting links back fails
    /// the transaction's next read or its commit (Docs/Transactions.md,
    /// Rule 4). Calling it on a transaction begun without
    /// `supportsUndo: true` is a programmer error, and traps.
    public func undo() {
        let history = requiredUndoHistory("undo()")
        contexts.primary.exclusively { history.undo() }
    }

    /// Puts back the changes the last ``undo()`` took back. Any new change
    /// after an undo empties the redo stack, as in `NSUndoManager`; with
    /// nothing to redo it does nothing.
    ///
    /// ```swift
    /// tx.undo()
    /// tx.redo()        // as before the undo
    /// ```
    ///
    /// It does not throw (see ``undo()``). Calling it on a transaction begun
    /// without `supportsUndo: true` is a programmer error, and traps.
    public func redo() {
        let history = requiredUndoHistory("redo()")
        contexts.primary.exclusively { history.redo() }
    }

    /// Whether ``undo()`` would take something back: the transaction keeps
    /// an undo history, and it holds a group not undone yet (changes made
    /// since the transaction began, or since its last ``rollback()`` or
    /// bulk write), as `NSUndoManager`'s `canUndo` does. `false` without
    /// `supportsUndo: true`.
    ///
    /// ```swift
    /// undoButton.isEnabled = tx.canUndo
    /// ```
    public var canUndo: Bool { undoHistory?.canUndo ?? false }

    /// Whether ``redo()`` would put something back: an undone group waits,
    /// and no change was made since. `false` without `supportsUndo: true`.
    ///
    /// ```swift
    /// redoButton.isEnabled = tx.canRedo
    /// ```
    public var canRedo: Bool { undoHistory?.canRedo ?? false }

    private func requiredUndoHistory(_ call: String) -> UndoHistory {
        guard let undoHistory else {
            misuse(
                "Strata: \(call) needs an undo history, which this transaction does not keep. "
                    + "Begin it with stack.beginUnsafe(supportsUndo: true).")
        }
        return undoHistory
    }
}

/// What a transaction asks of the stack that began it: merge its commits
/// into the main context. Kept a protocol so that transactions do not reach
/// up to the stack.
protocol CommitMerging: AnyObject, Sendable {
    /// Asks the main actor to merge what was committed, soon, if the stack is still alive then.
    func scheduleMerge()
    /// Queues `completion` behind the commit just made in `stores`, to run on
    /// the main actor once every store's part is merged, keeping the stack
    /// alive until then.
    func deliver(
        _ completion: @escaping @MainActor @Sendable () -> Void, after stores: [StoreRuntime],
        holdingMerges: Bool)
    /// Merges what was committed into the main contexts before returning:
    /// now on the main actor, else by waiting for the main actor to merge.
    func mergeCommitted(_ isolation: isolated (any Actor)?)
}
