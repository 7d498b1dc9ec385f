import CSQLite

/// Test support: hands the SQL of every statement a connection runs to a
/// closure, as it was prepared (with `?` placeholders, never the bound
/// values), so tests can assert what reached the database.
extension Connection {
    /// Calls `record` with the unexpanded SQL of each statement as it starts
    /// running (`sqlite3_trace_v2` with `SQLITE_TRACE_STMT`); `nil` stops
    /// and releases the closure, which is otherwise kept until then.
    ///
    /// The closure runs on whichever thread steps the statement.
    func recordStatements(_ record: (@Sendable (String) -> Void)?) {
        guard let handle else { return }
        let key = ObjectIdentifier(self)
        guard let record else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            statementRecorders.withLock { $0[key] = nil }
            return
        }
        let recorder = StatementRecorder(record)
        // Install before replacing the previous recorder, so a callback never
        // sees a recorder that is already released.
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_STMT), traceStatement,
            Unmanaged.passUnretained(recorder).toOpaque())
        statementRecorders.withLock { $0[key] = recorder }
    }
}

/// Keeps each connection's recorder alive while SQLite holds a pointer to it.
private let statementRecorders = Locked<[ObjectIdentifier: StatementRecorder]>([:])

private final class StatementRecorder: Sendable {
    let record: @Sendable (String) -> Void

    init(_ record: @escaping @Sendable (String) -> Void) {
        self.record = record
    }
}

private let traceStatement:
    @convention(c) (
        UInt32, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
    ) -> Int32 = { event, context, _, sql in
        // For SQLITE_TRACE_STMT, the last argument is the statement's unexpanded SQL.
        guard event == UInt32(SQLITE_TRACE_STMT), let context, let sql else { return 0 }
        let recorder = Unmanaged<StatementRecorder>.fromOpaque(context).takeUnretainedValue()
        recorder.record(String(cString: sql.assumingMemoryBound(to: CChar.self)))
        return 0
    }
