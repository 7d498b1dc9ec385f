/// A store on a database server: what a server store (`PostgreSQLStore`, in
/// module `StrataPostgreSQL`) gives its ``StoreSettings`` so that Strata can
/// connect to it. Everything above the connection is the same as for SQLite.
package protocol ServerStoreEngine: Sendable {
    /// The store in messages and logs (server, database and schema; never a password).
    var displayName: String { get }
    /// How the server spells what it spells differently from SQLite.
    var dialect: SQLDialect { get }
    /// Opens a connection for `role`: the writer prepares the store (its
    /// schema, its functions) when it connects; the reader listens for commits.
    func connect(_ role: ConnectionRole) throws -> any ServerConnection
    /// Calls `onCommit` from a thread of its own whenever a commit to the
    /// store was announced, and once after every (re)connection (commits may
    /// have been missed meanwhile), until the listener is stopped. Connects in
    /// the background: a server that is down is retried, not thrown.
    func listen(onCommit: @escaping @Sendable () -> Void) -> any ServerCommitListener
}

/// Listens for a server store's commits (``ServerStoreEngine/listen(onCommit:)``).
package protocol ServerCommitListener: AnyObject, Sendable {
    /// Stops listening and closes the listener's connection; no call to
    /// `onCommit` begins after it returns. Also done on deinit.
    func stop()
}
