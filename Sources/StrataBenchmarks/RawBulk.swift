import CSQLite

/// A value the raw side binds.
enum RawArgument {
    case integer(Int)
    case real(Double)
    case text(String)
}

/// What the raw side of a bulk benchmark does: each call prepares one
/// statement, binds its values and steps it, as a C program would.
extension RawDatabase {
    /// Runs `sql` and returns how many rows it changed (`sqlite3_changes`).
    func change(_ sql: String, _ arguments: [RawArgument] = []) throws -> Int {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The first column of every row `sql` returns (`SELECT _pk …` or `… RETURNING _pk`).
    func rowIDs(_ sql: String, _ arguments: [RawArgument] = []) throws -> [Int64] {
        let statement = try prepare(sql)
        try statement.bind(arguments)
        var rowIDs: [Int64] = []
        while try statement.step() {
            rowIDs.append(sqlite3_column_int64(statement.handle, 0))
        }
        return rowIDs
    }

    /// Runs `body` between `BEGIN` and `COMMIT`.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try execute("BEGIN")
        let result = try body()
        try execute("COMMIT")
        return result
    }
}

extension RawStatement {
    /// Binds `arguments` to parameters 1, 2, …
    func bind(_ arguments: [RawArgument]) throws {
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument {
            case .integer(let value): code = sqlite3_bind_int64(handle, index, Int64(value))
            case .real(let value): code = sqlite3_bind_double(handle, index, value)
            case .text(let value): code = sqlite3_bind_text(handle, index, value, -1, strata_sqlite_transient())
            }
            guard code == SQLITE_OK else { throw BenchmarkError(description: "bind failed: \(code)") }
        }
    }
}
