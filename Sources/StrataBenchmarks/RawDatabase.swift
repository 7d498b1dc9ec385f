import CSQLite
import Foundation

/// A thin wrapper over an `sqlite3*` connection for the raw side: no
/// abstraction beyond turning result codes into errors.
final class RawDatabase {
    let handle: OpaquePointer

    /// Opens (creating if needed) the database at `url`, without SQLite's
    /// per-connection mutex, as Strata opens its connections: one thread uses
    /// it at a time, and in the default serialized mode every call would take
    /// a lock (a fifth of the raw fetch's time here), which the baseline
    /// must not pay when Strata does not.
    init(_ url: URL) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(url.path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw BenchmarkError(description: "cannot open \(url.path): code \(code)")
        }
        self.handle = handle
    }

    deinit { sqlite3_close(handle) }

    /// Runs one or more statements that return no rows.
    func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil))
    }

    /// A prepared statement for `sql`.
    func prepare(_ sql: String) throws -> RawStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil))
        guard let statement else { throw BenchmarkError(description: "empty statement: \(sql)") }
        return RawStatement(statement, database: self)
    }

    /// Throws when `code` is not `SQLITE_OK`.
    func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw BenchmarkError(description: "SQLite error \(code): \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
}

/// A prepared statement; finalized when released.
final class RawStatement {
    let handle: OpaquePointer
    private let database: RawDatabase

    fileprivate init(_ handle: OpaquePointer, database: RawDatabase) {
        self.handle = handle
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Steps once: `true` while a row is available, `false` when done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: try database.check(code); return false
        }
    }

    /// Resets the statement so it can be bound and stepped again.
    func reset() throws {
        try database.check(sqlite3_reset(handle))
    }

    /// The text in column `index` of the current row, or `nil` for NULL.
    /// One call into SQLite a text: asking `sqlite3_column_bytes` for the
    /// length as well cost more (a second column look-up and its checks on
    /// the way in and out) than the `strlen` it saves (Docs/Performance.md).
    @inline(__always)
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        return String(cString: bytes)
    }
}
