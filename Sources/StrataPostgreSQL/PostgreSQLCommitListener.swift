import Foundation
import Strata
import Synchronization

/// Wakes a stack that follows a PostgreSQL store when a commit is announced
/// on the store's channel (every logged commit runs `pg_notify`, delivered
/// when it commits): a connection of its own, `LISTEN`ing, and a thread that
/// waits on its socket.
///
/// The follower then reads what is new from the commit log, so a
/// notification lost with a connection loses nothing: after every
/// (re)connection the listener wakes the follower once, to catch up.
final class PostgreSQLCommitListener: ServerCommitListener {
    private let state = State()

    /// How long the thread waits on the socket before looking whether it was stopped.
    static let stopCheckMilliseconds: Int32 = 100
    /// How long it waits before connecting again when the server cannot be reached.
    static let reconnectDelay: TimeInterval = 0.25

    init(connectionString: String, setUp: String, onCommit: @escaping @Sendable () -> Void) {
        let state = self.state
        Thread.detachNewThread {
            Self.listen(connectionString: connectionString, setUp: setUp, state: state, onCommit: onCommit)
        }
    }

    deinit { stop() }

    func stop() {
        state.isStopped.withLock { $0 = true }
    }

    /// Shared by the listener and its thread: whether it was stopped. The
    /// thread calls `onCommit` holding the lock, so that no call begins after `stop()`.
    private final class State: Sendable {
        let isStopped = Mutex(false)

        /// Calls `body` unless stopped; returns whether it was stopped.
        func unlessStopped(_ body: () -> Void) -> Bool {
            isStopped.withLock { stopped in
                if !stopped { body() }
                return stopped
            }
        }
    }

    /// The thread's loop: connect (again), wake the follower, wait for
    /// notifications and wake it for each batch, until stopped.
    private static func listen(
        connectionString: String, setUp: String, state: State, onCommit: @Sendable () -> Void
    ) {
        var session: PostgreSQLSession?
        defer { session?.close() }
        while true {
            guard let listening = session, listening.isConnected else {
                session = try? PostgreSQLSession(connectionString: connectionString, setUp: setUp)
                if session == nil {
                    Thread.sleep(forTimeInterval: reconnectDelay)
                    if state.unlessStopped({}) { return }
                    continue
                }
                // Connected (again): what was committed meanwhile is in the log.
                if state.unlessStopped(onCommit) { return }
                continue
            }
            var announced = false
            if listening.hasInput(waitingAtMost: stopCheckMilliseconds) {
                do {
                    announced = try !listening.takeNotifications().isEmpty
                } catch {
                    listening.close()  // connects again on the next turn
                }
            }
            if state.unlessStopped({ if announced { onCommit() } }) { return }
        }
    }
}
