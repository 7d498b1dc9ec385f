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
    /// Whether a transaction was open when the server last answered. It
    /// outlives a broken connection: a transaction lost with its connection
    /// stays open here until its owner ends it, so that no statement meant
    /// for it runs on a new connection, outside any transaction, where each
    /// would commit on its own (half a transaction saved).
    private var transactionWasOpen = false
    /// Whether the server said it is ending the connection (a shutdown, a
    /// restart, `pg_terminate_backend`): it sends SQLSTATE 57P01–57P03 as a
    /// notice or an error, before the end of the stream.
    private let saidGoodbye = Flag()

    /// A flag the notice receiver, a C function, sets through a pointer.
    private final class Flag {
        var isSet = false
    }

    /// Connects with `connectionString` (`"host=/run/pg dbname=app"` or a
    /// `postgresql://` URL) and runs `setUp`.
    init(connectionString: String, setUp: String = "") throws {
        self.connectionString = connectionString
        self.setUp = setUp
        try connect()
    }

    deinit { close() }

    func close() {
        abandonConnection()
        transactionWasOpen = false
    }

    /// Closes a connection found broken. A transaction open on it stays open
    /// here (``isInTransaction``) until its owner ends it.
    private func abandonConnection() {
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
        transactionWasOpen = false
        saidGoodbye.isSet = false
        // Notices (a table that already exists, …) are not errors, and libpq
        // would print them to standard error; only the server's goodbye counts.
        PQsetNoticeReceiver(connection, { flag, notice in
            guard let flag, let notice,
                  let state = PQresultErrorField(notice, Int32(UInt8(ascii: "C"))),
                  String(cString: state).hasPrefix("57P0")
            else { return }
            Unmanaged<Flag>.fromOpaque(flag).takeUnretainedValue().isSet = true
        }, Unmanaged.passUnretained(saidGoodbye).toOpaque())
        if !setUp.isEmpty { try execute(setUp) }
    }

    /// Whether the connection to the server is up.
    var isConnected: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Runs one or more statements that take no arguments (DDL, `BEGIN`,
    /// `LISTEN`), long names shortened as in a prepared statement (``ServerSQL``).
    ///
    /// `COMMIT` or `ROLLBACK` of a transaction lost with its connection ends
    /// it: the server rolled it back, so `ROLLBACK` succeeds and `COMMIT` throws.
    func execute(_ sql: String) throws {
        let endsTransaction = sql == "COMMIT" || sql == "ROLLBACK"
        if endsTransaction, transactionWasOpen, !isConnected {
            transactionWasOpen = false
            if sql == "ROLLBACK" { return }
            throw lostTransactionError(sql: sql)
        }
        try reconnectIfNeededOutsideTransaction()
        let result = PQexec(handle, ServerSQL.translated(sql, numberingPlaceholders: false))
        defer { PQclear(result) }
        do {
            try check(result, sql: sql)
        } catch {
            // Cut off, it still ended the transaction, one way or the other.
            if endsTransaction, !isConnected { transactionWasOpen = false }
            throw error
        }
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

    /// Whether a transaction is open (or failed and not yet rolled back), or
    /// was lost with the connection and not yet ended.
    var isInTransaction: Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return transactionWasOpen }
        return Self.isOpen(PQtransactionStatus(handle))
    }

    /// Whether libpq's transaction status says a transaction is open.
    private static func isOpen(_ status: PGTransactionStatusType) -> Bool {
        status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
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

    /// Waits at most `milliseconds` (0: not at all) for the server to send
    /// something — a notification, a goodbye, the end of the stream — and
    /// says whether it did. `false` for a closed connection.
    func hasInput(waitingAtMost milliseconds: Int32) -> Bool {
        guard let handle else { return false }
        var watched = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&watched, 1, milliseconds) > 0
    }

    // MARK: Errors

    /// Reconnects when the server closed the connection (a restart, a
    /// failover), unless a transaction was open on it: that transaction is
    /// lost, and every statement but its `ROLLBACK` fails until it ends.
    ///
    /// Outside a transaction, a connection the server closed is noticed
    /// before it is used: libpq finds out only when it next reads the
    /// socket, and the first statement after a restart would fail.
    func reconnectIfNeededOutsideTransaction() throws {
        if isConnected, !isInTransaction { noticeClosedByServer() }
        guard !isConnected else { return }
        if transactionWasOpen { throw lostTransactionError(sql: nil) }
        try connect()
    }

    /// The error for a statement of a transaction lost with its connection.
    private func lostTransactionError(sql: String?) -> DatabaseError {
        DatabaseError(
            code: SQLITE_IOERR,
            message: "the connection to the server was lost in a transaction, which the server "
                + "rolled back; nothing more runs in it until it is rolled back",
            sql: sql, sqlState: "08003")
    }

    /// Reads what waits on the socket of an idle connection, without
    /// blocking, and closes the connection when the server said goodbye
    /// there (or libpq met the end of the stream): a server that goes away
    /// says so before it closes the socket.
    private func noticeClosedByServer() {
        guard let handle, hasInput(waitingAtMost: 0) else { return }
        // Reads, then parses what came: an idle connection's goodbye goes to
        // the notice receiver, error or not.
        if PQconsumeInput(handle) == 1 { _ = PQisBusy(handle) }
        if saidGoodbye.isSet { abandonConnection() }
    }

    /// Throws the error `result` reports, if any.
    ///
    /// A connection failure closes the connection, whose transaction (if the
    /// server's last answer said one was open) is then lost: libpq may still
    /// call the connection good (a write to a closed socket), and its
    /// transaction status is no longer the server's.
    func check(_ result: OpaquePointer?, sql: String?) throws {
        let error: DatabaseError?
        switch result.map(PQresultStatus) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            error = nil
        default:
            let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }
            guard let result, let state else {
                error = connectionError(sql: sql)  // libpq's own: the connection failed
                break
            }
            let sqlState = String(cString: state)
            var message = PQresultErrorField(result, Int32(UInt8(ascii: "M")))
                .map { String(cString: $0) } ?? Self.trimmed(PQresultErrorMessage(result))
            if sqlState == "23505", let unique = Self.uniqueViolation(result) { message = unique }
            error = DatabaseError(
                code: Self.sqliteCode(forSQLState: sqlState), message: message, sql: sql,
                sqlState: sqlState)
        }
        if let error, error.isConnectionFailure {
            abandonConnection()
            throw error
        }
        if let handle { transactionWasOpen = Self.isOpen(PQtransactionStatus(handle)) }
        if let error { throw error }
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
