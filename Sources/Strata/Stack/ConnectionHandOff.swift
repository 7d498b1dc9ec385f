import Foundation

/// Moves a freshly opened connection from the opening task to the main actor.
///
/// `@unchecked Sendable`: the connection is handed over once, under the lock,
/// and the sender never touches it again.
final class ConnectionHandOff: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: Connection?

    init(_ connection: Connection) {
        self.connection = connection
    }

    func take() -> Connection {
        lock.lock()
        defer { lock.unlock() }
        let taken = connection!
        connection = nil
        return taken
    }
}
