/// The writers of a transaction over several stores, taken together.
///
/// The first time such a transaction reads or writes any store, it takes
/// every writable store's writer (its write lock), in store order — the same
/// order in every stack and process — so that two transactions never wait
/// for each other's stores in opposite orders. Under those locks it first
/// completes whatever a crashed commit over several stores left half done
/// (`CrossStoreCommit.recover`), then starts recording the changes of every
/// store that may be a participant of its own commit: every file store but
/// the first (which can only coordinate).
final class WriterSet {
    private struct Member {
        weak var context: ObjectContext?
    }

    /// The transaction's contexts, in store order.
    private let members: [Member]

    init(_ contexts: [ObjectContext]) {
        members = contexts.map { Member(context: $0) }
    }

    /// Takes every writable store's writer not held yet, in store order.
    func beginWriting() throws {
        let contexts = members.compactMap(\.context).filter { !$0.store.settings.isReadOnly }
        var taken: [ObjectContext] = []
        do {
            for context in contexts where context.writer == nil {
                try context.takeWriter()
                taken.append(context)
            }
            guard !taken.isEmpty else { return }
            // Only with every lock just taken: no transaction of this one is open to commit by mistake.
            if taken.count == contexts.count {
                try CrossStoreCommit.recover(contexts.map { .init(store: $0.store, connection: $0.writer!) })
            }
            for context in taken { try context.catchUpIfKeepingObjects() }
            if ChangeRecorder.isAvailable {
                let participants = contexts.filter { !$0.store.isInMemory && $0.store.dialect == .sqlite }
                    .dropFirst()
                for context in participants where context.recorder == nil {
                    context.recorder = try ChangeRecorder(on: context.writer!)
                }
            }
        } catch {
            for context in taken { context.abandonWriter() }
            throw error
        }
    }
}
