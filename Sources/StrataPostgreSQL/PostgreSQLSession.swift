import CLibPQ
import CSQLite
import Foundation
import Strata

/// One libpq connection: the ``ServerConnection`` a PostgreSQL store's
/// `Connection` runs on (which caches the statements prepared here).
///
/// Like SQLite's connection, a session is not thread-safe: its owner (the
/// writer gate or the main context) lets one thread use it at a time.
final class PostgreSQLSession: ServerConnection {
    private(set) var handle: OpaquePointer?
    /// The libpq connection string, kept to reconnect after the server went away.
    let connectionString: String
    /// Set on every new connection (`search_path`, time zone, …).
    let setUp: String
    private var nextStatementNumber = 0
    /// Counts connections made: statements prepared on an earlier one are gone.
    private(set) var connectionNumber = 0

    /// Connects with `connectionString` (`"host=/run/pg dbname=app"` or a
    /// `postgresql://` URL) and runs `setUp`.
    init(connectionString: String, setUp: String = "") throws {
        self.connectionString = connectionString
        self.setUp = setUp
        try connect()
    }

    deinit { close() }

    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    private func connect() throws {
        close()
        let connection = PQconnectdb(connectionString)
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.trimmed(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            throw DatabaseError(code: SQLITE_CANTOPEN, message: message, sql: nil, sqlState: "08001")
        }
        handle = connection
        connectionNumber += 1
        // Notices (a table that already exists, …) are not errors; libpq would
        // print them to standard error.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        if !setUp.isEmpty { try execute(setUp) }
    }

    /// Whether the connection to the server is up.
    var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs one or more statements that take no arguments (DDL, `BEGIN`, `LISTEN`).
    func execute(_ sql: String) throws {
        try reconnectIfNeededOutsideTransaction()
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    /// Prepares `sql`, written in SQLite's syntax (`?` placeholders), on the server.
    func statement(_ sql: String) throws -> any ServerStatement {
        try prepare(sql)
    }

    /// Prepares `sql`, written in SQLite's syntax (`?` placeholders), on the server.
    func prepare(_ sql: String) throws -> PostgreSQLStatement {
        try reconnectIfNeededOutsideTransaction()
        nextStatementNumber += 1
        return try PostgreSQLStatement(session: self, name: "strata_\(nextStatementNumber)", sql: sql)
    }

    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Whether the open transaction failed: every statement but `ROLLBACK` fails until it ends.
    var isInFailedTransaction: Bool {
        handle.map { PQtransactionStatus($0) == PQTRANS_INERROR } ?? false
    }

    /// The notifications received since the last call, reading what the
    /// socket holds without waiting. Throws when the connection is lost.
    func takeNotifications() throws -> [(channel: String, payload: String)] {
        guard let handle, PQconsumeInput(handle) == 1 else {
            throw connectionError(sql: nil)
        }
        var received: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            received.append((String(cString: notification.pointee.relname),
                             String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return received
    }

    /// The socket libpq reads, to wait on for notifications; -1 when closed.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    // MARK: Errors

    /// Reconnects when the server closed the connection (a restart, a
    /// failover). A transaction open on the old connection is lost: the
    /// statement that finds it gone fails, and so does its commit.
    func reconnectIfNeededOutsideTransaction() throws {
        guard !isConnected else { return }
        try connect()
    }

    /// Throws the error `result` reports, if any.
    func check(_ result: OpaquePointer?, sql: String?) throws {
        guard let result else { throw connectionError(sql: sql) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            guard let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) else {
                throw connectionError(sql: sql)
            }
            let sqlState = String(cString: state)
            var message = PQresultErrorField(result, Int32(UInt8(ascii: "M")))
                .map { String(cString: $0) } ?? Self.trimmed(PQresultErrorMessage(result))
            if sqlState == "23505", let unique = Self.uniqueViolation(result) { message = unique }
            throw DatabaseError(
                code: Self.sqliteCode(forSQLState: sqlState), message: message, sql: sql,
                sqlState: sqlState)
        }
    }

    /// The error for a connection that failed or was closed by the server.
    func connectionError(sql: String?) -> DatabaseError {
        let message = handle.map { Self.trimmed(PQerrorMessage($0)) } ?? "connection closed"
        return DatabaseError(
            code: SQLITE_IOERR, message: message.isEmpty ? "connection lost" : message, sql: sql,
            sqlState: "08006")
    }

    /// The SQLite result code that means what `sqlState` means, so that one
    /// mapping to ``StrataError`` serves both engines.
    static func sqliteCode(forSQLState sqlState: String) -> Int32 {
        switch sqlState {
        case "23505": return 2067  // SQLITE_CONSTRAINT_UNIQUE
        case "23503": return 787  // SQLITE_CONSTRAINT_FOREIGNKEY
        case "23502": return 1299  // SQLITE_CONSTRAINT_NOTNULL
        case "23514": return 275  // SQLITE_CONSTRAINT_CHECK
        case "40001", "40P01", "55P03": return SQLITE_BUSY
        case "57014": return SQLITE_INTERRUPT
        case "25006": return SQLITE_READONLY
        default:
            switch sqlState.prefix(2) {
            case "23": return SQLITE_CONSTRAINT
            case "08", "57": return SQLITE_IOERR
            case "53": return SQLITE_FULL
            case "22": return SQLITE_MISMATCH
            default: return SQLITE_ERROR
            }
        }
    }

    /// A unique violation told as SQLite tells it, `UNIQUE constraint failed:
    /// Table.column, …`, which ``StrataError`` reads the entity and fields
    /// from. The columns come from the detail, `Key (a, b)=(…) already
    /// exists.`; the values in it (user data) are left out.
    private static func uniqueViolation(_ result: OpaquePointer) -> String? {
        guard let table = PQresultErrorField(result, Int32(UInt8(ascii: "t"))).map({ String(cString: $0) }),
              let detail = PQresultErrorField(result, Int32(UInt8(ascii: "D"))).map({ String(cString: $0) }),
              let open = detail.range(of: "Key ("), let close = detail.range(of: ")=(")
        else { return nil }
        let columns = detail[open.upperBound..<close.lowerBound].components(separatedBy: ", ")
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return "UNIQUE constraint failed: " + columns.map { "\(table).\($0)" }.joined(separator: ", ")
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
