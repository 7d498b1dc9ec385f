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
}
