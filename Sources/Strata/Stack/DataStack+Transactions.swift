import Dispatch
import Foundation

extension DataStack: CommitMerging {
    /// Runs `body` in a transaction on the transaction queue, blocking the
    /// caller, and commits when it returns.
    ///
    /// ```swift
    /// let count = try stack.perform(synchronous: { tx in
    ///     tx.create(Into<Person>()).name = "Ann"
    ///     return try tx.fetchCount(From<Person>())
    /// })
    /// ```
    ///
    /// With `waitForAllObservers` (the default, as in CoreStore), the commit is
    /// merged into the main context before this returns, so monitors,
    /// publishers and their observers have been told of it: on the main
    /// actor the merge runs right here; from another thread this waits for
    /// the main actor to run it. Where CoreStore deadlocks when the main
    /// thread is itself blocked waiting for the caller (a semaphore, a
    /// `sync` onto the caller's queue), Strata waits at most 10 seconds for
    /// the main actor to begin the merge, then returns (and does not wait
    /// again until the main actor has run it); pass `false` there to return
    /// at once. With `false`, this returns right after the commit and the
    /// main actor merges it soon after; any main-context read merges it first.
    ///
    /// - Throws: ``StrataError/nestedTransaction`` when called from inside a
    ///   transaction of this stack; ``StrataError/storeNotAdded`` when the
    ///   stack has no store, or has it removed before the transaction reads or
    ///   writes, or when called on the main actor while the stack replaces or
    ///   resets its file (see ``replaceStore(withContentsOf:)``);
    ///   ``StrataError/userCancelled`` after `cancel()`;
    ///   ``StrataError/userError(_:)`` wrapping an error of your own `body` threw
    ///   (a ``StrataError`` it throws, from a fetch say, comes out unchanged);
    ///   any commit failure. On any error nothing is saved.
    @_disfavoredOverload  // In async code, `perform { }` means the async variant.
    public func perform<Result>(
        synchronous body: (SynchronousDataTransaction) throws -> Result, waitForAllObservers: Bool = true,
        author: String? = nil, isolation: isolated (any Actor)? = #isolation
    ) throws(StrataError) -> Result {
        let stores = try stores()
        let author = self.author(author)
        if stores.contains(where: \.gate.isHeldByCurrentThread)
            || DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(self) {
            throw .nestedTransaction
        }
        // Called back while this thread swaps the store's file: the transactions
        // queued ahead of this one wait for the swap, which would wait for this.
        if stores.contains(where: \.succession.isSwappingOnCurrentThread) { throw .storeNotAdded }
        let result = try StrataError.catching {
            try withoutActuallyEscaping(body) { body in
                try transactionQueue.sync {
                    try runTransaction(
                        transactionContexts(stores), author: author,
                        mergesOnReturn: waitForAllObservers && Self.isOnMainActor(isolation)
                    ) { contexts in
                        try body(SynchronousDataTransaction(contexts: contexts, author: author))
                    }
                }
            }
        }
        if waitForAllObservers { mergeCommitted(isolation) }
        return result
    }

    /// Runs `body` in a transaction on the transaction queue without blocking,
    /// commits, and calls `completion` on the main actor right after the
    /// commit is merged into the main context, before any later commit is
    /// merged: completions come in commit order, each seeing its own commit.
    ///
    /// ```swift
    /// stack.perform(asynchronous: { tx in
    ///     tx.create(Into<Person>()).name = "Ann"
    /// }, completion: { result in
    ///     if case .failure(let error) = result { print(error) }
    /// })
    /// ```
    public func perform<Result: Sendable>(
        asynchronous body: @escaping @Sendable (AsynchronousDataTransaction) throws -> Result,
        author: String? = nil,
        completion: @escaping @MainActor @Sendable (Swift.Result<Result, StrataError>) -> Void
    ) {
        let stores: [StoreRuntime]
        do throws(StrataError) {
            stores = try self.stores()
        } catch {
            afterMerge { completion(.failure(error)) }
            return
        }
        let author = self.author(author)
        transactionQueue.async {
            let (outcome, ranOn) = self.runQueued(body, stores: stores, author: author)
            self.deliver({ completion(outcome) }, after: ranOn)
        }
    }

    /// CoreStore's two-callback form of
    /// ``perform(asynchronous:author:completion:)``: `success` with the
    /// value `body` returned, or `failure` with the error, on the main actor
    /// right after the commit's merge, in commit order with every other
    /// completion. Nothing is saved when `failure` is called.
    ///
    /// ```swift
    /// stack.perform(
    ///     asynchronous: { tx -> ObjectID<Person> in
    ///         let ann = tx.create(Into<Person>())
    ///         ann.name = "Ann"
    ///         return ann.objectID
    ///     },
    ///     success: { id in print("saved", id) },
    ///     failure: { error in print("not saved:", error) })
    /// ```
    ///
    /// The errors are those of ``perform(synchronous:waitForAllObservers:author:isolation:)``:
    /// an error of your own `body` threw comes as ``StrataError/userError(_:)``,
    /// `cancel()` as ``StrataError/userCancelled``.
    public func perform<Result: Sendable>(
        asynchronous body: @escaping @Sendable (AsynchronousDataTransaction) throws -> Result,
        author: String? = nil,
        success: @escaping @MainActor @Sendable (Result) -> Void,
        failure: @escaping @MainActor @Sendable (StrataError) -> Void
    ) {
        perform(asynchronous: body, author: author) { outcome in
            switch outcome {
            case .success(let value): success(value)
            case .failure(let error): failure(error)
            }
        }
    }

    /// Runs `body` in a transaction on the transaction queue, commits, and
    /// returns its value once the commit is merged into the main context.
    ///
    /// ```swift
    /// let id = try await stack.perform { tx in
    ///     let ann = tx.create(Into<Person>())
    ///     ann.name = "Ann"
    ///     return ann.objectID
    /// }
    /// ```
    ///
    /// Called from the main actor, it returns right after the merge of its
    /// own commit, before any later commit is merged (on the caller's actor:
    /// no hop to another executor in between).
    ///
    /// Cancelling the calling task cancels the transaction if it has not
    /// begun yet (it waits behind earlier ones on the transaction queue):
    /// `body` does not run, nothing is saved, and the call throws
    /// ``StrataError/userCancelled``. A transaction already running runs to
    /// its end and commits, as one that `cancel()` was not called in does.
    ///
    /// - Throws: the same errors as ``perform(synchronous:waitForAllObservers:author:isolation:)``
    ///   (an error of your own `body` threw comes back as ``StrataError/userError(_:)``),
    ///   ``StrataError/storeNotAdded`` at once, before anything is queued;
    ///   ``StrataError/userCancelled`` when the task was cancelled before `body` began.
    public func perform<Result: Sendable>(
        author: String? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: @escaping @Sendable (AsynchronousDataTransaction) throws -> Result
    ) async throws(StrataError) -> Result {
        let stores = try self.stores()
        if Task.isCancelled { throw StrataError.userCancelled }
        let author = self.author(author)
        // From the main actor, merging waits until this has resumed, so that
        // the caller's next step sees its own commit and no later one.
        let holdsMerges = isolation === MainActor.shared
        let cancelled = Locked(false)
        // The transaction runs on the queue itself; the caller resumes from the
        // main actor once its commit (or failure) is merged, in commit order.
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: isolation) { continuation in
                transactionQueue.async {
                    let (outcome, ranOn) = cancelled.withLock { $0 }
                        ? (.failure(.userCancelled), stores)
                        : self.runQueued(body, stores: stores, author: author)
                    self.deliver(
                        { continuation.resume(returning: outcome) }, after: ranOn, holdingMerges: holdsMerges)
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
        if holdsMerges { resumeMergingOnMainActor() }
        return try outcome.get()
    }

    /// Runs `body` in a transaction on `stores`; called on the transaction
    /// queue. Returns the outcome and the stores the transaction ran on, where
    /// its completion goes: `stores`, or those opened in their place when
    /// their files were replaced or reset before it touched them.
    private func runQueued<Result>(
        _ body: (AsynchronousDataTransaction) throws -> Result, stores: [StoreRuntime], author: String?
    ) -> (Swift.Result<Result, StrataError>, ranOn: [StoreRuntime]) {
        let contexts = transactionContexts(stores)
        let outcome = Swift.Result {
            try runTransaction(contexts, author: author) { contexts in
                try body(AsynchronousDataTransaction(contexts: contexts, author: author))
            }
        }.mapError(StrataError.wrapping)
        return (outcome, contexts.all.map(\.store))
    }

    /// Lets merging go on after an awaiting caller resumed; called on the main actor.
    private func resumeMergingOnMainActor() {
        MainActor.assumeIsolated {
            for main in mainContexts { main.resumeMerging() }
        }
    }

    /// A transaction the caller drives and synchronises itself.
    ///
    /// With `supportsUndo: true` it keeps an undo history, for
    /// ``UnsafeDataTransaction/undo()`` and ``UnsafeDataTransaction/redo()``;
    /// without, it records nothing, and costs nothing for it.
    /// ``UnsafeDataTransaction/rollback()`` works either way.
    ///
    /// ```swift
    /// let editor = try stack.beginUnsafe(supportsUndo: true, author: "editor")
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added.
    public func beginUnsafe(
        supportsUndo: Bool = false, author: String? = nil
    ) throws(StrataError) -> UnsafeDataTransaction {
        return UnsafeDataTransaction(
            contexts: transactionContexts(try stores()), author: self.author(author),
            supportsUndo: supportsUndo, stack: self)
    }

    // MARK: Running and delivering

    static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    /// A transaction's contexts: one per store, each with the store's schema.
    private func transactionContexts(_ stores: [StoreRuntime]) -> StoreContexts {
        StoreContexts(stores.map { ObjectContext(kind: .transaction, schema: $0.schema, store: $0) }, schema: schema)
    }

    /// Runs `body` in `contexts` and commits. Unless `mergesOnReturn` (a
    /// synchronous transaction called from the main actor, which merges
    /// right after this returns), the commit asks the main actor to merge.
    private func runTransaction<Result>(
        _ contexts: StoreContexts, author: String?, mergesOnReturn: Bool = false,
        _ body: (StoreContexts) throws -> Result
    ) throws -> Result {
        defer {
            for context in contexts.all { context.isOpen = false }
            if contexts.all.allSatisfy({ $0.registeredCount <= ContextDisposal.inlineLimit }) {
                // A few objects are freed at once: a block queued for them would
                // wake a thread, and the next transaction would wait for it on the
                // queue, both costing more than the freeing.
                for context in contexts.all { context.removeAllObjects() }
            } else {
                // Freeing many objects waits on the queue, off the caller's path.
                let disposal = ContextDisposal(contexts.all)
                transactionQueue.async { disposal.dispose() }
            }
        }
        let result: Result
        do {
            result = try body(contexts)
        } catch {
            contexts.rollback()
            throw StrataError.wrapping(error)
        }
        // A merge task would find nothing left by the time the main actor ran it.
        try contexts.commit(author: author, didCommit: mergesOnReturn ? {} : scheduleMerge)
        return result
    }

    /// Asks the main actor to merge: a commit's change set waits in the store runtime.
    ///
    /// Holds the stack weakly: a commit must not keep the stack, and its
    /// connections, alive until the main actor comes to this, which on a busy
    /// main actor is long after its last owner let it go. A stack that is gone
    /// has nothing to merge into; monitors that outlive it catch up through
    /// their own watcher or listener.
    func scheduleMerge() {
        Task { @MainActor [weak self] in self?.mergePendingChangeSets(yielding: true) }
    }

    /// Queues `completion` behind the commit just made in `stores` (a
    /// transaction's), and asks the main actor to run it. It goes to the last
    /// store, whose main context merges last when the stack merges them in
    /// order; when a read of the last store merged its part first, the
    /// other stores are merged before the completion runs, so that it sees
    /// every store's part.
    func deliver(
        _ completion: @escaping @MainActor @Sendable () -> Void, after stores: [StoreRuntime],
        holdingMerges: Bool = false
    ) {
        let last = stores[stores.count - 1]
        if stores.count == 1 {
            last.deliver(holdingMerges: holdingMerges, completion: completion)
        } else {
            last.deliver(holdingMerges: holdingMerges) { [weak self] in
                for main in self?.mainContexts ?? [] where main.context.store !== last { main.catchUp() }
                completion()
            }
        }
        scheduleCompletions(of: last)
    }

    /// Asks the main actor to merge and run the completions delivered so far,
    /// holding the stack until it has: a completion runs even when its caller
    /// let the stack go. When `store`, the one they were delivered to, has
    /// left the stack meanwhile (removed, or its file replaced), no main
    /// context merges its commits any more, and its completions run here.
    private func scheduleCompletions(of store: StoreRuntime) {
        Task { @MainActor in
            self.mergePendingChangeSets(yielding: true)
            guard !self.mainContexts.contains(where: { $0.context.store === store }) else { return }
            for case .completion(_, _, let body) in store.takeDelivered() { body() }
        }
    }

    /// The author a transaction writes to the log: its own, or the stack's default.
    func author(_ given: String?) -> String? { given ?? defaultAuthor }

    /// Runs `body` on the main actor after every change set committed so far is merged.
    func afterMerge(_ body: @escaping @MainActor @Sendable () -> Void) {
        Task { @MainActor in
            self.mergePendingChangeSets()
            body()
        }
    }

    /// Merges every waiting change set into the main context, in generation
    /// order, with other writers' commits read from the log where they fall between.
    /// `yielding` passes (the ones the main actor is asked for) stop at an
    /// awaited `perform`'s hold (``MainContext/catchUp(yielding:)``).
    @MainActor
    package func mergePendingChangeSets(yielding: Bool = false) {
        // A commit made from inside an observer callback is not merged in the
        // middle of the pass that is notifying: the pass in progress takes it
        // after the change set it is on, so every observer sees commit order.
        for main in mainContexts { main.catchUp(yielding: yielding) }
    }
}

/// Carries a finished transaction's context to a later block on the same
/// transaction queue, which frees its objects after the caller has moved on.
///
/// `@unchecked Sendable`: the context is created, finished and disposed of on
/// the one serial transaction queue; nothing else touches it in between.
private final class ContextDisposal: @unchecked Sendable {
    /// Up to how many objects a context's are freed in place instead.
    static let inlineLimit = 256

    private var contexts: [ObjectContext]

    init(_ contexts: [ObjectContext]) {
        self.contexts = contexts
    }

    func dispose() {
        for context in contexts { context.removeAllObjects() }
        contexts = []
    }
}
