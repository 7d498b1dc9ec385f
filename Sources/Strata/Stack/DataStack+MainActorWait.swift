import Dispatch

/// A synchronous commit waiting for the main actor to merge it
/// (`waitForAllObservers`, `commitAndWait()`), without the deadlock CoreStore
/// warns of when the main thread is itself blocked waiting for the caller.
extension DataStack {
    /// How long a commit made off the main actor waits for the main actor to
    /// begin its merge before it decides the main actor is blocked and
    /// returns. Far beyond a busy main actor's delay, though a main queue
    /// with seconds of work queued ahead (a test suite's hundreds of
    /// main-actor tests at once) can reach it too.
    static let mainActorPatience = DispatchTimeInterval.seconds(10)
    /// The same, in words for the log.
    private static let patienceInWords = "10 s"

    /// Merge requests queued by waits that gave up and not yet run: while
    /// one is outstanding, the main actor is still blocked, and a commit does
    /// not wait again (a blocked main actor costs one patience, not one per
    /// commit).
    private static let unansweredWaits = Locked(0)

    /// Marks the main queue, which runs the main actor's jobs: on Linux,
    /// once the main thread has handed it to `dispatchMain()`, on whichever
    /// thread Dispatch chooses, so `Thread.isMainThread` cannot tell.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// Whether a caller of `isolation` runs on the main actor: isolated to it,
    /// or on the main queue in a function that is not isolated to it.
    static func isOnMainActor(_ isolation: (any Actor)?) -> Bool {
        isolation === MainActor.shared || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// Merges what was committed into the main contexts before returning, so
    /// that observers have been told: right here on the main actor, else by
    /// waiting for the main actor to run the merge. Called after a
    /// synchronous commit, outside the transaction queue, which the main
    /// actor's own synchronous transactions wait for. The merge from another
    /// thread does not pass an awaited `perform`'s hold (see
    /// ``mergeOnMainQueue(then:)``); the one on the main actor is the
    /// caller's own next step, as a read's is.
    ///
    /// A main actor that does not begin the merge within
    /// ``mainActorPatience`` is taken to be blocked, perhaps waiting for this
    /// very thread: the wait ends there, and the merge runs once the main
    /// actor is free (any main-context read merges first).
    func mergeCommitted(_ isolation: isolated (any Actor)?) {
        if Self.isOnMainActor(isolation) {
            MainActor.assumeIsolated { mergePendingChangeSets() }
            return
        }
        if Self.unansweredWaits.withLock({ $0 > 0 }) {
            waitsCutShort.withLock { $0 += 1 }
            return
        }
        let request = Locked((ran: false, gaveUp: false))
        let merged = DispatchSemaphore(value: 0)
        mergeOnMainQueue {
            let answersAGiveUp = request.withLock { request in
                request.ran = true
                return request.gaveUp
            }
            if answersAGiveUp { Self.unansweredWaits.withLock { $0 -= 1 } }
            merged.signal()
        }
        guard merged.wait(timeout: .now() + Self.mainActorPatience) == .timedOut else { return }
        let givesUp = request.withLock { request in
            request.gaveUp = !request.ran
            return request.gaveUp
        }
        guard givesUp else { return }
        Self.unansweredWaits.withLock { $0 += 1 }
        waitsCutShort.withLock { $0 += 1 }
        StrataLog.warning(
            .transactions,
            "a synchronous commit stopped waiting for the main actor to merge it after \(Self.patienceInWords): "
                + "the main thread is blocked or has that much work queued; observers are told once it merges. "
                + "Pass waitForAllObservers: false where the main thread may wait for the committing one.")
    }

    /// Runs a yielding merge pass on the main queue, then `done`. While an
    /// awaited `perform`'s caller has yet to resume (merges held, so that its
    /// next line sees its own commit and no later one), it asks again behind
    /// that resumption, already queued, instead of merging past the hold.
    private func mergeOnMainQueue(then done: @escaping @Sendable () -> Void) {
        DispatchQueue.main.async {
            let isHeld = MainActor.assumeIsolated {
                self.mergePendingChangeSets(yielding: true)
                return self.mainContexts.contains { $0.isHeldForResumption }
            }
            if isHeld { self.mergeOnMainQueue(then: done) } else { done() }
        }
    }
}
