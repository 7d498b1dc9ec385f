extension DataStack {
    /// Test support: records the SQL of every statement the main contexts'
    /// readers and the stores' writers run from now on, every store's; `nil`
    /// stops.
    ///
    /// Waits for a running transaction to give each writer back.
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added.
    @MainActor
    func recordStatements(_ record: (@Sendable (String) -> Void)?) throws {
        _ = try main()
        for main in mainContexts { try main.context.readConnection().recordStatements(record) }
        for store in try stores() {
            let writer = store.gate.acquire()
            defer { store.gate.release() }
            writer.recordStatements(record)
        }
    }

    /// Logs the SQL of every statement the stack runs from now on (each
    /// store's main-context reader and writer) to ``StrataLog`` at level
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
