import Foundation

/// Hands the store's single writer connection to one transaction at a time.
///
/// `@unchecked Sendable`: the connection is only reached through `acquire()`,
/// which the condition lock makes exclusive to one holder.
final class WriterGate: @unchecked Sendable {
    private let condition = NSCondition()
    private let connection: Connection
    private var owner: pthread_t?
    private var isHeld = false
    /// Set by ``close()``: nobody takes the writer any more, they only wait for it to be closed.
    private var isClosing = false

    init(connection: Connection) {
        self.connection = connection
    }

    /// Whether the calling thread holds the writer, so waiting for it would deadlock.
    var isHeldByCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        guard isHeld, let owner else { return false }
        return pthread_equal(owner, pthread_self()) != 0
    }

    /// Waits for the writer connection and takes it. Once ``close()`` is
    /// called, the holder's successor in the queue does not slip in before
    /// the close: it waits for it, and gets the closed connection.
    func acquire() -> Connection {
        condition.lock()
        while isHeld || (isClosing && !connection.isClosed) { condition.wait() }
        isHeld = true
        owner = pthread_self()
        condition.unlock()
        return connection
    }

    /// Whether ``close()`` closed the writer: the store was removed from its stack.
    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return connection.isClosed
    }

    /// Waits for the holder to give the writer back, then closes it for good.
    func close() {
        condition.lock()
        isClosing = true
        condition.broadcast()
        while isHeld { condition.wait() }
        connection.close()
        condition.broadcast()
        condition.unlock()
    }

    /// Gives the writer connection back.
    func release() {
        condition.lock()
        isHeld = false
        owner = nil
        // Both takers and a close may wait: a signal could wake a taker that waits on.
        condition.broadcast()
        condition.unlock()
    }

    // MARK: Testing

    /// Waits until ``close()`` is called: for a test whose transaction holds
    /// the writer while the store is being removed or swapped.
    func waitUntilClosing() {
        condition.lock()
        while !isClosing { condition.wait() }
        condition.unlock()
    }
}
