import Foundation

/// Which store a transaction that has not touched its store yet goes on
/// with, once that store's writer is closed: the store opened again in its
/// place when its stack replaced or reset its file, or none when the stack
/// removed it.
///
/// A transaction takes its store's writer when it first reads or writes;
/// until then it has seen nothing of the file, so it may as well work on the
/// new one, as a transaction queued a moment later would. A swap closes the
/// old store's writer (after its holder is done) and, until the new store is
/// open, makes those who come for it wait here.
///
/// `@unchecked Sendable`: `state` is only touched while `condition` is locked.
final class StoreSuccession: @unchecked Sendable {
    private enum State {
        /// Not swapped: a closed writer means the store was removed.
        case inPlace
        /// The stack is swapping the store's file, on the thread `swapper`.
        case swapping(by: pthread_t)
        case replaced(by: StoreRuntime)
    }

    private let condition = NSCondition()
    private var state = State.inPlace

    /// The stack begins to swap the store's file, on the calling thread,
    /// before it closes the writer: whoever finds it closed from now on waits.
    func beginSwap() {
        condition.lock()
        state = .swapping(by: pthread_self())
        condition.unlock()
    }

    /// The swap is over: `successor` took the store's place, or, when
    /// none could be opened, nothing did and the store is removed.
    func endSwap(replacedBy successor: StoreRuntime?) {
        condition.lock()
        state = successor.map { .replaced(by: $0) } ?? .inPlace
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the calling thread is swapping the store, so that waiting
    /// for the swap to end would wait for itself.
    var isSwappingOnCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard case .swapping(let swapper) = state else { return false }
        return pthread_equal(swapper, pthread_self()) != 0
    }

    /// The store that took this one's place, once a swap under way is over;
    /// `nil` when the store was removed, or for the swapping thread itself
    /// (to which the store is out of the stack until the swap ends).
    func successor() -> StoreRuntime? {
        condition.lock()
        defer { condition.unlock() }
        while case .swapping(let swapper) = state {
            if pthread_equal(swapper, pthread_self()) != 0 { return nil }
            condition.wait()
        }
        guard case .replaced(let successor) = state else { return nil }
        return successor
    }
}
