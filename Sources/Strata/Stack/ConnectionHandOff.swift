/// Moves a freshly opened connection from the opening task to the main actor:
/// handed over once, under the lock, and never touched again by the sender.
final class ConnectionHandOff: Sendable {
    private let connection: Locked<Connection?>

    init(_ connection: Connection) {
        self.connection = Locked(connection)
    }

    func take() -> Connection {
        connection.withLock { connection in
            defer { connection = nil }
            return connection!
        }
    }
}
