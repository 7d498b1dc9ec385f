import Foundation

/// State shared across threads behind a lock, for state that many threads
/// touch at once.
///
/// Strata's lock, in place of `Synchronization.Mutex`: built on `NSLock` (a
/// pthread mutex), where on Linux `Mutex` waits on a futex, which the thread
/// sanitizer does not see, so that accesses under it from two threads are
/// reported as races. State Strata shares between threads lives here, so
/// that `swift test --sanitize=thread` stays quiet; only counters and values
/// published once (an `in` test's hashed keys) are `Atomic` instead.
///
/// `@unchecked Sendable`: `state` is only touched while `lock` is held.
final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with the state, holding the lock.
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
