import CSQLite
import Foundation
import Synchronization

/// One database connection with a cache of prepared statements: an SQLite
/// handle, or a ``ServerConnection`` (PostgreSQL) that the same calls reach.
///
/// A connection is not thread-safe: its owner — the writer gate or the main
/// context — makes sure only one thread uses it at a time.
final class Connection {
    /// The SQLite handle; `nil` once closed, and for a server connection.
    private(set) var handle: OpaquePointer?
    /// The server connection this runs on instead of SQLite, if any.
    private(set) var server: (any ServerConnection)?
    /// How this connection's engine spells what the engines spell differently.
    let dialect: SQLDialect
    let path: String
    let isReadOnly: Bool
    private var statements: [String: Statement] = [:]
    /// The statement used last: a read repeated with new values finds it
    /// without hashing its SQL (equal strings compare their bytes, or only
    /// their storage when they share it).
    private var lastStatement: Statement?
    /// For an in-memory store: keeps its files until this connection is closed.
    var lease: MemoryStoreFiles.Lease?

    /// Opens (or, when `create` is true, creates) the database at `path`.
    init(path: String, readOnly: Bool, create: Bool = true, busyTimeout: Int32 = 5_000) throws {
        self.path = path
        self.isReadOnly = readOnly
        self.dialect = .sqlite
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard code == SQLITE_OK, db != nil else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            handle = nil
            throw DatabaseError(code: code, message: message, sql: nil)
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeout)
        // "name" is always an identifier: a missing column is an error, never a string.
        strata_disable_double_quoted_strings(db)
        try registerFunctions()
        try registerDecimalAggregates()
        try registerArithmetic()
        if !readOnly {
            // Counts this process's commits: a kept read ends at the next one.
            sqlite3_commit_hook(db, { _ in
                Connection.commitCount.add(1, ordering: .relaxed)
                return 0
            }, nil)
        }
    }

    /// A connection that runs on `server`; `path` names the store in messages.
    init(server: any ServerConnection, dialect: SQLDialect, path: String, readOnly: Bool) {
        self.server = server
        self.dialect = dialect
        self.path = path
        self.isReadOnly = readOnly
    }

    deinit { close() }

    /// Whether the connection is closed (or was never opened).
    var isClosed: Bool { handle == nil && server == nil }

    /// Finalizes every statement, closes the connection and drops its lease.
    func close() {
        lastStatement = nil
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
        server?.close()
        server = nil
        lease = nil  // after the close: the last lease deletes the files
    }

    /// The cached prepared statement for `sql`, reset and with no bindings.
    func statement(_ sql: String) throws -> Statement {
        if let lastStatement, lastStatement.sql == sql {
            lastStatement.reset()
            return lastStatement
        }
        if let cached = statements[sql] {
            cached.reset()
            lastStatement = cached
            return cached
        }
        let statement = try Statement(connection: self, sql: sql)
        // Bounded: queries with IN lists of every length would otherwise grow it forever.
        if statements.count >= 512 { statements.removeAll() }
        statements[sql] = statement
        lastStatement = statement
        return statement
    }

    /// Runs one or more statements that take no arguments (DDL, pragmas).
    func execute(_ sql: String) throws {
        if let server { return try server.execute(sql) }
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            throw DatabaseError(code: code, message: message, sql: sql)
        }
    }

    /// Runs one statement that takes no arguments and returns no rows, kept
    /// prepared: for `BEGIN` and `COMMIT`, which every read and write
    /// transaction runs and ``execute(_:)`` would parse each time (parsing
    /// the `COMMIT` that ends the main context's kept read was 6.5% of a
    /// one-change merge into a list monitor).
    func executePrepared(_ sql: String) throws {
        if let server { return try server.execute(sql) }
        #if DEBUG || STRATA_CHECKED
        // A prepared statement is one statement: SQLite would ignore the rest.
        checkInvariant(!sql.contains(";"), "executePrepared runs one statement, not \(sql)")
        #endif
        try run(sql)
    }

    /// Commits the open write transaction. A commit ends every kept read of
    /// this process (``commitCount``): SQLite's commit hook counts it on its
    /// writers; a server connection, which has no such hook, counts it here.
    func commit() throws {
        if server != nil { Connection.commitCount.add(1, ordering: .relaxed) }
        try executePrepared("COMMIT")
    }

    /// Runs `body` inside a savepoint of the open transaction: when it
    /// throws, the database is as before the call, and the transaction goes
    /// on (on PostgreSQL too, where a failed statement otherwise ends it).
    func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
        try executePrepared("SAVEPOINT strata")
        do {
            let result = try body()
            try executePrepared("RELEASE strata")
            return result
        } catch {
            try? executePrepared("ROLLBACK TO strata")
            try? executePrepared("RELEASE strata")
            throw error
        }
    }

    /// Runs `sql` with `arguments` bound and steps it to completion.
    func run(_ sql: String, _ arguments: [StoredValue] = []) throws {
        let statement = try statement(sql)
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// Runs a query and maps each row.
    func query<T>(
        _ sql: String, _ arguments: [StoredValue] = [], _ row: (Statement) throws -> T
    ) throws -> [T] {
        let statement = try statement(sql)
        try statement.bind(arguments)
        // Reset however it ends: a statement left stepping keeps its read open.
        defer { statement.reset() }
        var rows: [T] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The first column of the first row, or `nil` when there is no row.
    func scalar(_ sql: String, _ arguments: [StoredValue] = []) throws -> StoredValue? {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? statement.value(at: 0) : nil
    }

    // MARK: Kept reads

    /// How many write transactions connections of this process have begun to
    /// commit (counted in SQLite's commit hook, just before the commit).
    static let commitCount = Atomic<UInt64>(0)

    /// A read transaction kept open across statements, so that they read one
    /// snapshot and skip the file locks a transaction of their own would take
    /// and release (the main context keeps one for a main-actor job).
    struct KeptRead {
        /// When it began (``monotonicNanoseconds``), to bound how long it is kept.
        let began: UInt64
        /// ``commitCount`` when it began: a commit made since ends it.
        let commits: UInt64
    }

    /// The read transaction this connection keeps open, if any.
    private(set) var keptRead: KeptRead?

    /// Whether the kept read may serve one more statement: it is younger than
    /// `maximumAge` nanoseconds and no connection of this process committed
    /// since it began.
    func keptReadIsCurrent(maximumAge: UInt64) -> Bool {
        guard let keptRead else { return false }
        return keptRead.commits == Connection.commitCount.load(ordering: .relaxed)
            && Connection.monotonicNanoseconds() &- keptRead.began < maximumAge
    }

    /// A monotonic clock, read on every main-context read: the coarse one
    /// where there is one (no `ContinuousClock`, whose instants go through
    /// value witnesses here; a few milliseconds of resolution are plenty).
    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        #else
        clock_gettime(CLOCK_MONOTONIC, &time)
        #endif
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Begins a read transaction to keep (its snapshot opens with the next
    /// statement's first step), ending the one kept before.
    func beginKeptRead() throws {
        endKeptRead()
        let commits = Connection.commitCount.load(ordering: .relaxed)
        try executePrepared(dialect.beginRead)
        keptRead = KeptRead(began: Connection.monotonicNanoseconds(), commits: commits)
    }

    /// Ends the kept read transaction, if any: the next statement reads the
    /// latest commit.
    func endKeptRead() {
        guard keptRead != nil else { return }
        keptRead = nil
        // A read transaction's COMMIT only releases its locks; if it fails
        // (no transaction left after an error), there is nothing to end.
        try? executePrepared("COMMIT")
    }

    var lastErrorMessage: String {
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
    }

    var lastErrorCode: Int32 {
        handle.map { sqlite3_extended_errcode($0) } ?? SQLITE_MISUSE
    }

    var isInTransaction: Bool {
        if let server { return server.isInTransaction }
        return handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// The pager's data version as of this connection's latest read
    /// transaction: it moves whenever another connection (of this process or
    /// another) committed since the one before. A file control, not a
    /// statement: it costs a function call, where `PRAGMA data_version` costs
    /// as much as a point lookup.
    ///
    /// A server has no such number: there it is made of the store's commit
    /// generation, read in the snapshot now open (a point read), and the
    /// connection's number, so that it moves with every commit logged and
    /// after a reconnection. A write that bypassed the log does not move it.
    var dataVersion: UInt32 {
        if server != nil {
            guard let generation = try? CommitLog.generation(on: self) else {
                return .max  // unreadable: the caller's look at the log says why
            }
            return dataVersion(knowing: generation)
        }
        var version: UInt32 = 0
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        return version
    }

    /// Whether the database file was deleted, or replaced by another file,
    /// since the connection opened it: SQLite goes on writing to the file it
    /// has open, which nobody can open again. A file control (one `stat` of
    /// the path); always `false` on a server.
    var fileHasMoved: Bool {
        guard let handle else { return false }
        var moved: Int32 = 0
        let code = sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved)
        return code == SQLITE_OK && moved != 0
    }

    /// The data version of the snapshot open, whose commit `generation` the
    /// caller has just read in it: on a server it is made of that generation
    /// (see ``dataVersion``) without reading it again; SQLite's is read as ever.
    func dataVersion(knowing generation: UInt64) -> UInt32 {
        guard let server else { return dataVersion }
        return UInt32(truncatingIfNeeded: generation)
            &+ UInt32(truncatingIfNeeded: server.connectionNumber) &* 0x9E37_79B9
    }

    /// How many rows the last statement inserted, updated or deleted.
    var changes: Int {
        if server != nil { return lastStatement?.server?.changes ?? 0 }
        return handle.map { Int(sqlite3_changes($0)) } ?? 0
    }

    func error(sql: String?) -> DatabaseError {
        DatabaseError(code: lastErrorCode, message: lastErrorMessage, sql: sql)
    }
}
