import CSQLite

/// An error reported by the database: the result code, the database's message
/// and the statement that failed. Arguments are never included, so a logged
/// error cannot leak user data.
///
/// The code is SQLite's extended result code whatever the engine: a
/// PostgreSQL store reports its SQLSTATE too and maps it to the SQLite code
/// that means the same (`23505` unique violation → `SQLITE_CONSTRAINT_UNIQUE`),
/// so the layers above decide once.
package struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The extended result code.
    package var code: Int32
    package var message: String
    package var sql: String?
    /// PostgreSQL's five-character SQLSTATE, or `nil` for SQLite.
    package var sqlState: String?

    package init(code: Int32, message: String, sql: String?, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
    }

    /// Whether the server could not be reached or the connection broke
    /// (SQLSTATE class 08, or the server shutting down: 57P01–57P03).
    package var isConnectionFailure: Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// The primary result code (the low byte of the extended code).
    package var primaryCode: Int32 { code & 0xFF }

    package var description: String {
        var text = sqlState.map { "PostgreSQL error \($0): \(message)" }
            ?? "SQLite error \(code): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }

    package static func ~= (pattern: Int32, error: DatabaseError) -> Bool {
        pattern == error.code || pattern == error.primaryCode
    }
}
