extension DataStack {
    /// Test support: records the SQL of every statement the main context's
    /// reader and the store's writer run from now on; `nil` stops.
    ///
    /// Waits for a running transaction to give the writer back.
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added.
    @MainActor
    func recordStatements(_ record: (@Sendable (String) -> Void)?) throws {
        try main().context.readConnection().recordStatements(record)
        let gate = try store().gate
        let writer = gate.acquire()
        defer { gate.release() }
        writer.recordStatements(record)
    }

    /// Logs the SQL of every statement the stack runs from now on (its main
    /// context's reader and its store's writer) to ``StrataLog`` at level
    /// `.trace`, category `.sql`, as prepared: values are bound parameters,
    /// never part of the text. `false` stops. Lower ``StrataLog/minimumLevel``
    /// to `.trace` to see them.
    ///
    /// ```swift
    /// StrataLog.minimumLevel = .trace
    /// try stack.setSQLTrace(true)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added.
    @MainActor
    public func setSQLTrace(_ enabled: Bool) throws(StrataError) {
        let trace: @Sendable (String) -> Void = { sql in StrataLog.log(.trace, .sql, sql) }
        try StrataError.catching { try recordStatements(enabled ? trace : nil) }
    }
}
