import Foundation
import Strata
import StrataPostgreSQL
import ThrowawayPostgreSQL

/// The PostgreSQL scenarios' shared work, as ``Fixtures`` is SQLite's: the
/// server, a new schema per store, and opening and filling a store either
/// way — through a ``PostgreSQLStore`` or through libpq.
@MainActor
enum PostgreSQLFixtures {
    /// The server's connection string: the one `STRATA_POSTGRESQL_URL` names,
    /// or a throwaway server's, started on first use (``PostgreSQLServer``).
    static func connectionString() throws -> String {
        try PostgreSQLServer.shared().connectionString
    }

    // MARK: Strata

    /// A stack on a ``PostgreSQLStore`` in the new schema `schema`.
    static func strataStack(schema: String, _ model: Schema = benchSchema) throws -> DataStack {
        let stack = DataStack(model)
        try stack.addStorageAndWait(PostgreSQLStore(connectionString: try connectionString(), schema: schema))
        return stack
    }

    // MARK: Raw libpq

    /// A connection whose search path is the new schema `schema`, created
    /// here with the ``Bench`` table as Strata declares it.
    static func rawConnection(schema: String) throws -> RawPostgreSQL {
        let connection = try RawPostgreSQL(try connectionString())
        let quoted = quotedIdentifier(schema)
        try connection.execute(
            "CREATE SCHEMA \(quoted); SET search_path TO \(quoted); \(RawPostgreSQLSchema.createTable)")
        return connection
    }

    /// Inserts every record in one transaction with one prepared statement,
    /// its parameters typed and sent in binary, the row IDs 1, 2, 3, … as
    /// Strata assigns them.
    static func rawInsert(_ records: [BenchRecord], into connection: RawPostgreSQL) throws {
        let insert = try connection.prepare(RawPostgreSQLSchema.insert, types: RawPostgreSQLSchema.columnTypes)
        let parameters = RawParameters(capacity: 5)
        try connection.execute("BEGIN")
        for (index, record) in records.enumerated() {
            parameters.removeAll()
            parameters.append(Int64(index + 1))
            try record.name.withCString { name in
                parameters.append(text: name, length: record.name.utf8.count)
                parameters.append(Int64(record.age))
                parameters.append(record.score)
                if let email = record.email {
                    try email.withCString { email in
                        parameters.append(text: email, length: record.email!.utf8.count)
                        _ = try insert.run(parameters)
                    }
                } else {
                    parameters.appendNull()
                    _ = try insert.run(parameters)
                }
            }
        }
        try connection.execute("COMMIT")
    }

    /// The rows of `table` in `schema`, counted on a connection of its own,
    /// so that no snapshot of the caller's can hide a commit.
    static func count(_ table: String, in schema: String) throws -> Int {
        try RawPostgreSQL(try connectionString()).integer(
            "SELECT count(*) FROM \(quotedIdentifier(schema)).\(quotedIdentifier(table))")
    }

    /// `information_schema`'s description of `table`'s columns in `schema`:
    /// names, types, collations; to check that the raw table is Strata's.
    static func columns(of table: String, in schema: String) throws -> String {
        let connection = try RawPostgreSQL(try connectionString())
        let sql = """
            SELECT string_agg(column_name || ' ' || data_type || ' ' || coalesce(collation_name, '-'), ', '
                ORDER BY ordinal_position)
            FROM information_schema.columns WHERE table_schema = '\(schema)' AND table_name = '\(table)'
            """
        return try connection.text(sql)
    }

    /// The server's version, as `SHOW server_version` gives it.
    static func serverVersion() throws -> String {
        try RawPostgreSQL(try connectionString()).text("SHOW server_version")
    }
}

/// The raw side's copy of the table Strata makes for ``Bench`` on
/// PostgreSQL (`SQLDialect.columnType`): checked against Strata's own by
/// the fetch scenario.
enum RawPostgreSQLSchema {
    static let createTable = """
        CREATE TABLE "Bench" ("_pk" BIGINT PRIMARY KEY, "name" TEXT COLLATE "C", "age" BIGINT, \
        "score" DOUBLE PRECISION, "email" TEXT COLLATE "C")
        """
    static let insert =
        #"INSERT INTO "Bench" ("_pk", "name", "age", "score", "email") VALUES ($1, $2, $3, $4, $5)"#
    /// The types of the columns, in order: the insert's parameters, the select's columns.
    static let columnTypes = [
        RawPostgreSQLType.int8, RawPostgreSQLType.text, RawPostgreSQLType.int8, RawPostgreSQLType.float8,
        RawPostgreSQLType.text,
    ]
    /// Every row in row-ID order, the order a Strata fetch without one
    /// guarantees. (SQLite's raw side needs no `ORDER BY`: its table is
    /// stored in row-ID order. A PostgreSQL table's order is not guaranteed
    /// without it, so the raw side pays for it as Strata does.)
    static let selectAll = #"SELECT "_pk", "name", "age", "score", "email" FROM "Bench" ORDER BY "_pk""#
}

extension Workspace {
    /// A name for a new schema on the PostgreSQL server (`strata_bench_<prefix>_…`),
    /// which ``remove()`` drops with everything in it.
    func newSchema(_ prefix: String) -> String {
        let schema = "strata_bench_\(prefix)_\(UUID().uuidString.prefix(8).lowercased())"
        onRemove {
            do {
                // Not forever: a stack still open in a transaction would hold a lock.
                try RawPostgreSQL(try PostgreSQLServer.shared().connectionString).execute(
                    "SET lock_timeout = '10s'; DROP SCHEMA IF EXISTS \(quotedIdentifier(schema)) CASCADE")
            } catch {
                let message = "StrataBenchmarks: schema \(schema) left: \(error)\n"
                FileHandle.standardError.write(Data(message.utf8))
            }
        }
        return schema
    }
}
