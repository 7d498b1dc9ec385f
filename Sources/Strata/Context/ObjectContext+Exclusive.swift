import Foundation
import Synchronization

/// Catches an unsafe transaction used from two threads at once.
///
/// `@unchecked Sendable`: the one stored property is an atomic.
final class ExclusiveUse: @unchecked Sendable {
    /// The thread inside the context now, or 0.
    private let owner = Atomic<UInt>(0)

    /// Runs `body` as the context's only user; traps when another thread is
    /// inside. Re-entry from the same thread is fine.
    @inline(__always)
    func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        let me = UInt(bitPattern: pthread_self())
        #else
        let me = UInt(pthread_self())
        #endif
        let (entered, current) = owner.compareExchange(expected: 0, desired: me, ordering: .acquiring)
        guard entered || current == me else {
            misuse(
                "Strata: an UnsafeDataTransaction was used from two threads at once. Use it from one "
                    + "thread at a time (a serial queue, an actor, a lock), or use stack.perform, which "
                    + "runs each transaction on the stack's transaction queue.")
        }
        defer { if entered { owner.store(0, ordering: .releasing) } }
        return try body()
    }
}

extension ObjectContext {
    /// Runs `body` as the context's only user when it is an unsafe
    /// transaction's; a transaction run by `perform` is on the serial queue
    /// anyway and pays nothing.
    @inline(__always)
    func exclusively<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let exclusiveUse else { return try body() }
        return try exclusiveUse.run(body)
    }
}
