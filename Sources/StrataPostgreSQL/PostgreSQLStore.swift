import Foundation
import Strata

/// A store in a PostgreSQL database, shared by every process on every machine
/// that opens it: each one's commits reach every stack's monitors.
///
/// The store is one PostgreSQL schema (a namespace inside a database): its
/// tables, its commit log and the functions Strata's queries call. Several
/// stores, of several apps or configurations, can live in one database under
/// different schemas. Everything else is as with ``SQLiteStore``: the same
/// schema declarations, transactions, queries, monitors, migrations and import.
///
/// ```swift
/// import Strata
/// import StrataPostgreSQL
///
/// let stack = DataStack(schema)
/// try stack.addStorageAndWait(PostgreSQLStore(
///     connectionString: "host=db.internal dbname=zoo user=app sslmode=verify-full",
///     schema: "zoo"))
/// ```
///
/// The connection string is libpq's: `key=value` pairs or a `postgresql://`
/// URL, TLS settings (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`) and
/// every other libpq parameter included, and libpq's environment variables
/// (`PGHOST`, `PGPASSWORD`, …) fill in what it leaves out. Docs/PostgreSQL.md
/// says what differs from SQLite.
public struct PostgreSQLStore: StorageInterface {
    /// How the store is opened: options, read-only, history retention.
    public var settings: StoreSettings
    /// The libpq connection string the store connects with.
    public let connectionString: String
    /// The PostgreSQL schema that holds the store's tables.
    public let schema: String

    /// A store in `schema` of the database `connectionString` names, holding
    /// the entities of `configuration` (`nil`: every entity).
    ///
    /// Nothing connects until the store is added to a stack; a connection or
    /// schema failure is thrown from `addStorage` then, as
    /// ``StrataError/storage(path:reason:)``.
    public init(
        connectionString: String, schema: String = "public", configuration: String? = nil,
        options: LocalStorageOptions = .none, isReadOnly: Bool = false,
        historyRetention: HistoryRetention = .default
    ) {
        self.connectionString = connectionString
        self.schema = schema
        self.settings = StoreSettings(
            server: PostgreSQLEngine(connectionString: connectionString, schema: schema),
            configuration: configuration, options: options, isReadOnly: isReadOnly,
            historyRetention: historyRetention)
    }

    /// A store in `schema` of `database` on `host`, with any other libpq
    /// parameters (`sslmode`, `connect_timeout`, `application_name`, …) in
    /// `parameters`. `host` may be a Unix socket folder.
    public init(
        host: String, port: Int = 5432, database: String, user: String? = nil,
        password: String? = nil, parameters: [String: String] = [:], schema: String = "public",
        configuration: String? = nil, options: LocalStorageOptions = .none,
        isReadOnly: Bool = false, historyRetention: HistoryRetention = .default
    ) {
        var pairs = ["host": host, "port": String(port), "dbname": database]
        if let user { pairs["user"] = user }
        if let password { pairs["password"] = password }
        pairs.merge(parameters) { _, given in given }
        self.init(
            connectionString: PostgreSQLEngine.connectionString(pairs), schema: schema,
            configuration: configuration, options: options, isReadOnly: isReadOnly,
            historyRetention: historyRetention)
    }
}
