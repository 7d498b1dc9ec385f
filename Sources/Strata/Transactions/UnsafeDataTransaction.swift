/// A transaction the caller synchronises itself, from ``DataStack/beginUnsafe(author:)``.
///
/// It can commit several times; after each commit or rollback it goes on with
/// a fresh SQLite transaction at its next read or write. While it has an open
/// SQLite transaction it holds the store's writer, and other transactions wait.
///
/// ```swift
/// let tx = try stack.beginUnsafe()
/// tx.create(Into<Person>()).name = "Ann"
/// try tx.commitAndWait()
/// ```
public final class UnsafeDataTransaction: BaseDataTransaction {
    /// The stack that began it, which merges its commits into the main context.
    let stack: any CommitMerging

    init(contexts: StoreContexts, author: String?, stack: any CommitMerging) {
        self.stack = stack
        let exclusiveUse = ExclusiveUse()
        for context in contexts.all {
            context.keepsObjectsAcrossCommits = true
            context.exclusiveUse = exclusiveUse
        }
        super.init(contexts: contexts, author: author)
    }

    deinit {
        contexts.rollback()
        for context in contexts.all { context.removeAllObjects() }
    }

    /// Commits now and returns the change set, which is merged into the main
    /// context on the main actor (before this returns when called there).
    ///
    /// - Throws: a ``StrataError``; the transaction's changes are rolled back.
    @discardableResult
    public func commitAndWait(
        isolation: isolated (any Actor)? = #isolation
    ) throws(StrataError) -> ChangeSet? {
        let changeSet = try StrataError.catching {
            try contexts.commit(author: author, didCommit: stack.scheduleMerge)
        }
        stack.mergeIfOnMainActor(isolation)
        return changeSet
    }

    /// Commits now and calls `completion` on the main actor once the change
    /// set is merged, with `nil` or the error.
    public func commit(_ completion: @escaping @MainActor @Sendable (StrataError?) -> Void = { _ in }) {
        var failure: StrataError?
        do {
            try contexts.commit(author: author, didCommit: stack.scheduleMerge)
        } catch {
            failure = StrataError.wrapping(error)
        }
        let result = failure
        stack.deliver({ completion(result) }, after: contexts.all.map(\.store), holdingMerges: false)
    }

    /// Brings the objects the transaction holds up to the store's last
    /// commit, by any writer, keeping the fields changed here since: call it
    /// before reading kept objects to change them again after a commit, so
    /// that no other writer's update is lost. Begins the transaction's next
    /// SQLite write transaction (other writers then wait until it commits);
    /// any read or flush does the same.
    ///
    /// ```swift
    /// try tx.commitAndWait()
    /// // ... later, another process may have changed `counter`
    /// try tx.refreshAndMergeAllObjects()
    /// counter.value += 1
    /// try tx.commitAndWait()
    /// ```
    ///
    /// - Throws: a ``StrataError`` when the store cannot be read or locked.
    public func refreshAndMergeAllObjects() throws(StrataError) {
        try StrataError.catching {
            for context in contexts.all { _ = try context.writeConnection() }
        }
    }

    /// Discards every uncommitted change; objects return to their committed values.
    public func rollback() {
        contexts.rollback()
    }

    /// Writes pending changes into the open SQLite transaction without committing.
    ///
    /// - Throws: a ``StrataError`` (a uniqueness violation, an invalid value).
    public func flush() throws(StrataError) {
        for context in contexts.all {
            do {
                try context.flush()
            } catch {
                throw context.translated(error)
            }
        }
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
    /// Merges what was committed now, when the caller is on the main actor.
    func mergeIfOnMainActor(_ isolation: isolated (any Actor)?)
}
