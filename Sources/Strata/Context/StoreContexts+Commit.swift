import Foundation

/// Ending a transaction over several stores.
extension StoreContexts {
    /// Commits what the transaction changed in every store, all or nothing,
    /// or throws and saves nothing.
    ///
    /// A transaction that changed one store commits there. One that changed
    /// several commits in each, in store order, as one commit over several
    /// files (`CrossStoreCommit`): every store is prepared first, so that
    /// any failure (a uniqueness violation, a deny rule, a full disk) saves
    /// nothing anywhere; once the first file store has committed, every
    /// other store's part is saved even if the process dies.
    ///
    /// Returns the change set of the first store that changed, if any (each
    /// store's is merged, and streamed by ``DataStack/changeSets``).
    ///
    /// - Throws: what preparing or committing the first store throws; or
    ///   ``StrataError/crossStoreTransaction(configurations:)`` when two file
    ///   stores changed and this process's SQLite lacks the session extension,
    ///   or a server store and another store that is not in memory changed.
    @discardableResult
    func commit(author: String?, didCommit: () -> Void) throws -> ChangeSet? {
        if all.count == 1 { return try all[0].commit(author: author, didCommit: didCommit) }
        do {
            return try commitSeveral(author: author, didCommit: didCommit)
        } catch {
            rollback()
            throw error
        }
    }

    private func commitSeveral(author: String?, didCommit: () -> Void) throws -> ChangeSet? {
        if let error = all.lazy.compactMap(\.deferredError).first { throw error }
        // Prepared in store order; a store with nothing to commit ends its transaction here.
        var prepared: [(context: ObjectContext, commit: ObjectContext.PreparedCommit)] = []
        for context in all {
            if let commit = try context.exclusively({ try context.prepareCommit(author: author) }) {
                prepared.append((context, commit))
            }
        }
        // File stores first: the first is the coordinator. In-memory stores
        // commit last, with no record: a crash loses them anyway.
        let ordered = prepared.filter { !$0.context.store.isInMemory } + prepared.filter(\.context.store.isInMemory)
        guard let coordinator = ordered.first else { return nil }
        let participants = ordered.dropFirst().filter { !$0.context.store.isInMemory }
        // A server store keeps no record of another store's part (no session
        // extension there): it commits alone or with in-memory stores only.
        if !participants.isEmpty, let server = ordered.first(where: { $0.context.store.dialect != .sqlite }) {
            throw StrataError.crossStoreTransaction(
                configurations: [server.context.schema.configuration]
                    + participants.filter { $0.context !== server.context }.map(\.context.schema.configuration))
        }
        let token = participants.isEmpty ? "" : UUID().uuidString
        var kept: [ObjectIdentifier: Data] = [:]
        for participant in participants {
            guard let recorder = participant.context.recorder else {
                throw StrataError.crossStoreTransaction(
                    configurations: [coordinator, participant].map(\.context.schema.configuration))
            }
            kept[ObjectIdentifier(participant.context)] = try CrossStoreCommit.prepare(
                token: token, participant: member(participant.commit, participant.context),
                recorder: recorder, coordinator: member(coordinator.commit, coordinator.context))
        }
        CrossStoreCommit.reach(.prepared)
        try coordinator.context.exclusively { try coordinator.context.finishCommit(coordinator.commit, didCommit: didCommit) }
        // Decided: from here on every store's part is saved, and nothing throws.
        CrossStoreCommit.reach(.coordinatorCommitted)
        for (context, commit) in ordered.dropFirst() {
            do {
                try context.exclusively { try context.finishCommit(commit, didCommit: didCommit) }
            } catch {
                guard let changes = kept[ObjectIdentifier(context)] else { continue }
                do {
                    try CrossStoreCommit.complete(changes, on: context.store)
                } catch {
                    StrataLog.log(
                        .error, .transactions,
                        "the part in \(context.store.path) of a commit over several stores failed twice; "
                            + "it is completed when the stores are next written or added: \(error)")
                }
            }
        }
        // The coordinator's pending rows stay until the next transaction over
        // these stores finds them done and deletes them with its own commit.
        CrossStoreCommit.reach(.participantsCommitted)
        return prepared[0].commit.changeSet
    }

    private func member(_ commit: ObjectContext.PreparedCommit, _ context: ObjectContext) -> CrossStoreCommit.Member {
        CrossStoreCommit.Member(store: context.store, connection: commit.connection)
    }

    /// Discards every store's changes.
    func rollback() {
        for context in all { context.rollback() }
    }
}
