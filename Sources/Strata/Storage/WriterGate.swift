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

    /// Waits for the writer connection and takes it.
    func acquire() -> Connection {
        condition.lock()
        while isHeld { condition.wait() }
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
        condition.signal()
        condition.unlock()
    }
}
