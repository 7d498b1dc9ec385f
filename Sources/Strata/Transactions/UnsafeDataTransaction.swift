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
    let stack: DataStack

    init(context: ObjectContext, author: String?, stack: DataStack) {
        self.stack = stack
        super.init(context: context, author: author)
    }

    deinit {
        context.rollback()
        context.removeAllObjects()
    }

    /// Commits now and returns the change set, which is merged into the main
    /// context on the main actor (before this returns when called there).
    ///
    /// - Throws: a ``StrataError``; the transaction's changes are rolled back.
    @discardableResult
    public func commitAndWait(isolation: isolated (any Actor)? = #isolation) throws -> ChangeSet? {
        let changeSet = try context.commit(author: author, didCommit: stack.scheduleMerge)
        stack.mergeIfOnMainActor(isolation)
        return changeSet
    }

    /// Commits now and calls `completion` on the main actor once the change
    /// set is merged, with `nil` or the error.
    public func commit(_ completion: @escaping @MainActor @Sendable (StrataError?) -> Void = { _ in }) {
        var failure: StrataError?
        do {
            try context.commit(author: author, didCommit: stack.scheduleMerge)
        } catch {
            failure = StrataError.wrapping(error)
        }
        let result = failure
        stack.afterMerge { completion(result) }
    }

    /// Discards every uncommitted change; objects return to their committed values.
    public func rollback() {
        context.rollback()
    }

    /// Writes pending changes into the open SQLite transaction without committing.
    ///
    /// - Throws: a ``StrataError`` (a uniqueness violation, an invalid value).
    public func flush() throws {
        try context.flush()
    }
}
