import Foundation

/// State shared across threads behind a lock, for state that many threads
/// touch at once.
///
/// Like `Synchronization.Mutex`, which the rest of Strata uses, but built on
/// `NSLock` (a pthread mutex): on Linux `Mutex` waits on a futex, which the
/// thread sanitizer does not see, so every access under it from two threads
/// is reported as a race. State that ordinary field access reaches from any
/// thread lives here, so that `swift test --sanitize=thread` stays quiet.
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
