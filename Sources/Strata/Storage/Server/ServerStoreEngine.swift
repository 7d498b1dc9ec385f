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
}
