import Foundation
import Strata

/// How Strata reaches a ``PostgreSQLStore``: a session per connection, in the
/// store's schema; a listener per observed stack on the store's commit channel.
struct PostgreSQLEngine: ServerStoreEngine {
    let connectionString: String
    let schema: String

    var dialect: SQLDialect { .postgreSQL }

    /// The schema and the connection string without its password.
    var displayName: String {
        "postgresql:\(Self.redacted(connectionString))#\(schema)"
    }

    func connect(_ role: ConnectionRole) throws -> any ServerConnection {
        // The server would cut a longer name, and the store would live in a
        // schema named otherwise than it says; refused, as entity names are.
        let limit = dialect.identifierLimit
        guard schema.utf8.count <= limit else {
            throw StrataError.storage(
                path: displayName,
                reason: "the schema name is \(schema.utf8.count) bytes long, and PostgreSQL "
                    + "identifiers are at most \(limit) bytes")
        }
        let session = try PostgreSQLSession(connectionString: connectionString, setUp: setUp)
        if role == .writer { try prepareSchema(on: session) }
        return session
    }

    func listen(onCommit: @escaping @Sendable () -> Void) -> any ServerCommitListener {
        PostgreSQLCommitListener(
            connectionString: connectionString,
            setUp: setUp + "; LISTEN " + PostgreSQLFunctions.quotedIdentifier(SQLDialect.commitChannel(schema)),
            onCommit: onCommit)
    }

    /// What every session runs when it connects: the store's schema, UTC, no
    /// notices, the channel its commits are announced on.
    private var setUp: String {
        "SET search_path TO \(PostgreSQLFunctions.quotedIdentifier(schema)); SET TIME ZONE 'UTC'; "
            + "SET client_min_messages TO WARNING; SET \(SQLDialect.commitChannelSetting) TO "
            + PostgreSQLFunctions.literal(SQLDialect.commitChannel(schema))
    }

    /// Creates the store's schema and the functions Strata's SQL calls
    /// (PostgreSQLFunctions) when they are missing, under the store's write
    /// lock, so that two processes opening a new store do not race. The
    /// tables come with the store's first open, as for SQLite.
    private func prepareSchema(on session: PostgreSQLSession) throws {
        guard try !hasFunctions(session) else { return }
        try session.execute("BEGIN; " + SQLDialect.writeLock(schema: PostgreSQLFunctions.literal(schema)))
        do {
            try session.execute("CREATE SCHEMA IF NOT EXISTS \(PostgreSQLFunctions.quotedIdentifier(schema))")
            if try !hasFunctions(session) { try session.createFunctions(in: schema) }
            try session.execute("COMMIT")
        } catch {
            try? session.execute("ROLLBACK")
            throw error
        }
    }

    /// Whether the schema exists and holds Strata's functions (made together,
    /// in one transaction): it looks for the newest, so that a schema made
    /// before it was added gets every function made (or replaced) again.
    private func hasFunctions(_ session: PostgreSQLSession) throws -> Bool {
        let statement = try session.prepare(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                + "WHERE n.nspname = ? AND p.proname = 'strata_decimal'")
        try statement.bind([.text(schema)])
        return try statement.step() && statement.int64(at: 0) > 0
    }

    /// A libpq connection string of `pairs`, each value quoted.
    static func connectionString(_ pairs: [String: String]) -> String {
        pairs.sorted { $0.key < $1.key }.map { key, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'")
            return "\(key)='\(escaped)'"
        }.joined(separator: " ")
    }

    /// `connectionString` without a password, for messages and logs.
    static func redacted(_ connectionString: String) -> String {
        if connectionString.hasPrefix("postgres"), var url = URLComponents(string: connectionString) {
            if url.password != nil { url.password = "***" }
            url.queryItems = url.queryItems?.map {
                $0.name == "password" ? URLQueryItem(name: $0.name, value: "***") : $0
            }
            return url.string ?? "postgresql://"
        }
        return connectionString.replacingOccurrences(
            of: #"password\s*=\s*('(\\.|[^'])*'|\S+)"#, with: "password=***",
            options: .regularExpression)
    }
}
