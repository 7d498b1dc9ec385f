import Foundation

/// The end of every write to a store: one generation more, one log record,
/// and the COMMIT, all in the writer's open SQLite transaction.
extension StoreRuntime {
    /// Bumps the generation, writes the commit's log record, applies the
    /// history retention, and COMMITs the transaction open on `connection`,
    /// delivering the change set at the same instant. The record and the
    /// data commit together or not at all.
    func commitLogged(
        _ changes: [String: ChangeSet.EntityChanges], author: String?, on connection: Connection
    ) throws -> ChangeSet {
        let changeSet = try prepareLogged(changes, author: author, on: connection)
        try commit(changeSet) { try connection.commit() }
        return changeSet
    }

    /// Everything ``commitLogged(_:author:on:)`` does short of the COMMIT:
    /// the generation bumped and the log record written into the transaction
    /// open on `connection`. Returns the change set the COMMIT will deliver.
    func prepareLogged(
        _ changes: [String: ChangeSet.EntityChanges], author: String?, on connection: Connection
    ) throws -> ChangeSet {
        guard let generation = try CommitLog.advanceGeneration(on: connection, fingerprint: schema.fingerprint)
        else {
            // Written by this stack's schema into a store that now holds another
            // (migrated or recreated by another stack): refuse, rather than
            // commit rows the store's version reads differently.
            let version = try connection.scalar("SELECT value FROM _strata_meta WHERE key = 'version'")
            throw StrataError.schemaMismatch(
                path: path, storeVersion: version.flatMap { if case .text(let text) = $0 { text } else { nil } }
                    ?? "unknown",
                schemaVersion: schema.version)
        }
        var changeSet = ChangeSet(
            generation: generation, author: author, date: Date(), isLocal: true, changes: changes,
            configuration: settings.configuration)
        // Rows of bulk writes are listed by ID: the main context reads what it needs.
        changeSet.needsValues = changes.values.contains(where: \.hasUnreadRows)
        try CommitLog.append(
            generation: generation, author: author, date: changeSet.date,
            entities: changeSet.loggedChanges, on: connection)
        try CommitLog.apply(
            settings.historyRetention, afterCommitting: generation, at: changeSet.date, on: connection)
        return changeSet
    }

    /// Runs `body` on the writer in a write transaction of its own, then
    /// commits it as a logged commit that changed no object (history purges
    /// go this way, so that other stacks see a commit, not an unexplained
    /// change of the file).
    func writeLogged<Result>(author: String?, _ body: (Connection) throws -> Result) throws -> Result {
        try write(body) { connection in _ = try commitLogged([:], author: author, on: connection) }
    }

    /// Runs `body` on the writer in a write transaction of its own, then
    /// `commit` (which COMMITs); on any failure everything is rolled back.
    /// The writer is given back either way.
    func write<Result>(
        _ body: (Connection) throws -> Result, commit: (Connection) throws -> Void
    ) throws -> Result {
        let connection = try beginWriting()
        do {
            let result = try body(connection)
            try commit(connection)
            endWriting(connection, rollback: false)
            return result
        } catch {
            endWriting(connection, rollback: true)
            throw StoreErrors.translate(error, path: path)
        }
    }
}
