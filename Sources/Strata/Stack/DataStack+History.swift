import Foundation

/// The store's history: the commit log every writer appends to (see
/// ``CommitRecord`` and `Docs/History.md`). With several stores, these read
/// and purge the first store's log (the default configuration's, when added).
extension DataStack {
    /// The commit records after `generation`, oldest first; only those of
    /// `author` when one is given. Records purged by the store's
    /// ``HistoryRetention`` or by ``purgeHistory(through:)`` are gone:
    /// ``historyHorizon()`` says up to where.
    ///
    /// A program that was not running catches up on launch by reading what
    /// happened after the generation it saved when it last ran:
    ///
    /// ```swift
    /// let last = UInt64(UserDefaults.standard.integer(forKey: "seenGeneration"))
    /// if try stack.historyHorizon() > last {
    ///     reindexEverything()                       // history was purged past it
    /// } else {
    ///     for record in try stack.history(after: last) where record.author != "me" {
    ///         reindex(record.updatedIDs(entity: "Person"))
    ///     }
    /// }
    /// UserDefaults.standard.set(Int(try stack.currentGeneration()), forKey: "seenGeneration")
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a storage error when the
    ///   store cannot be read.
    public func history(after generation: UInt64 = 0, author: String? = nil) throws(StrataError)
        -> [CommitRecord]
    {
        let configuration = try store().settings.configuration
        return try readStore { connection in
            guard try CommitLog.exists(on: connection) else { return [] }
            return try CommitLog.records(after: generation, author: author, on: connection).map { record in
                var record = record
                record.configuration = configuration
                return record
            }
        }
    }

    /// The last generation purged from the history: records after it are all
    /// there, one per generation up to ``currentGeneration()``.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a storage error.
    public func historyHorizon() throws(StrataError) -> UInt64 {
        try readStore { connection in
            guard try CommitLog.exists(on: connection) else { return try CommitLog.generation(on: connection) }
            return try CommitLog.horizon(on: connection)
        }
    }

    /// The generation of the store's last commit, by any writer.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or a storage error.
    public func currentGeneration() throws(StrataError) -> UInt64 {
        try readStore { try CommitLog.generation(on: $0) }
    }

    /// Deletes the history records up to and including `generation`, and
    /// returns how many went. The purge is itself a commit (with no changes),
    /// so other stacks see it in order.
    ///
    /// ```swift
    /// // Every process has seen up to `seen`: keep only what comes after.
    /// try stack.purgeHistory(through: seen)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, ``StrataError/readOnlyStore(path:)``,
    ///   ``StrataError/nestedTransaction`` inside a transaction of this stack.
    @discardableResult
    public func purgeHistory(through generation: UInt64) throws(StrataError) -> Int {
        try writeLogged { try CommitLog.purge(through: generation, on: $0) }
    }

    /// Deletes the history records older than `date`, and returns how many went.
    ///
    /// ```swift
    /// try stack.purgeHistory(olderThan: Date().addingTimeInterval(-24 * 3_600))
    /// ```
    ///
    /// - Throws: the errors of ``purgeHistory(through:)``;
    ///   ``StrataError/invalidValue(entity:field:reason:)`` (`_strata_log.time`),
    ///   purging nothing, when `date` is not a number (`Date(timeIntervalSince1970: .nan)`).
    @discardableResult
    public func purgeHistory(olderThan date: Date) throws(StrataError) -> Int {
        try writeLogged { try CommitLog.purge(through: 0, olderThan: date, on: $0) }
    }

    /// The change set being merged into the main context right now: set
    /// while monitors, publishers and observations are told of it, `nil`
    /// otherwise. During a refresh it lists what changed among the objects
    /// held, and is not local.
    ///
    /// ```swift
    /// func listMonitorDidChange(_ monitor: ListMonitor<Person>) {
    ///     if stack.mergingChangeSet?.isLocal == false { showBadge("updated elsewhere") }
    /// }
    /// ```
    @MainActor
    public var mergingChangeSet: ChangeSet? { mainContexts.lazy.compactMap(\.mergingChangeSet).first }

    /// Runs `body` in a logged write of its own, then has it merged.
    private func writeLogged<Result>(
        _ body: (Connection) throws -> Result
    ) throws(StrataError) -> Result {
        let store = try store()
        let result = try StrataError.catching { try store.writeLogged(author: author(nil), body) }
        scheduleMerge()
        return result
    }

    /// Runs `body` on a read-only connection of its own to the store, in one snapshot.
    private func readStore<Result>(
        _ body: (Connection) throws -> Result
    ) throws(StrataError) -> Result {
        let store = try store()
        do {
            let connection = try store.settings.openConnection(.inspector, create: false)
            defer { connection.close() }
            try connection.execute(connection.dialect.beginRead)
            defer { try? connection.execute("COMMIT") }
            return try body(connection)
        } catch {
            throw StoreErrors.translate(error, path: store.path)
        }
    }
}
