import CSQLite

/// An error reported by SQLite: the result code, SQLite's message and the
/// statement that failed. Arguments are never included, so a logged error
/// cannot leak user data.
struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The extended result code.
    var code: Int32
    var message: String
    var sql: String?

    /// The primary result code (the low byte of the extended code).
    var primaryCode: Int32 { code & 0xFF }

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " — while running: \(sql)" }
        return text
    }

    static func ~= (pattern: Int32, error: DatabaseError) -> Bool {
        pattern == error.code || pattern == error.primaryCode
    }
}
