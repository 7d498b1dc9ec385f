import Foundation

/// A commit over several store files that happens whole or not at all, even
/// when the process dies half-way (SQLite makes a commit atomic in one WAL
/// file, never across several).
///
/// The stores that changed are locked and prepared (every change written,
/// short of COMMIT) in store order. The first file store is the
/// coordinator; every other file store is a participant, which writes a
/// marker row (`_strata_completed`) and whose changes — recorded since the
/// transaction began, marker included — the coordinator keeps as a
/// changeset in `_strata_pending`. Then:
///
/// 1. the coordinator COMMITs: this is the decision, the commit has happened;
/// 2. each participant COMMITs (then in-memory stores, which a crash loses anyway).
///
/// The next transaction over these stores (or adding them to a stack) finds
/// the pending rows under its write locks. A row whose participant has the
/// marker is done, and is deleted with that transaction's own commit (no
/// commit of its own: a commit over several stores costs the stores' commits
/// only). A row without its marker — a crash between 1 and 2 — has its
/// changeset applied to the participant first, under the participant's write
/// lock, so nothing writes the participant before. A crash before 1 leaves
/// nothing anywhere. Markers are deleted once their pending row is gone.
///
/// Across a power cut the stores need `synchronous` `.full`: under `.normal`
/// a participant's last commit may reach the disk while the coordinator's
/// does not.
enum CrossStoreCommit {
    /// One store taking part: its runtime, and its writer with a write transaction open.
    struct Member {
        let store: StoreRuntime
        let connection: Connection
    }

    /// The tables every writable store has, created when it is opened.
    static let createStatements = [
        "CREATE TABLE IF NOT EXISTS _strata_pending (token TEXT NOT NULL, store TEXT NOT NULL, "
            + "changes BLOB NOT NULL, PRIMARY KEY (token, store)) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS _strata_completed (token TEXT PRIMARY KEY, coordinator TEXT NOT NULL) "
            + "WITHOUT ROWID",
    ]

    /// Creates the tables in a store that lacks them.
    static func install(on connection: Connection) throws {
        for statement in createStatements { try connection.execute(statement) }
    }

    // MARK: Committing

    /// Writes `participant`'s marker for `token`, and keeps everything the
    /// participant's transaction changed (`recorder` recorded it from the
    /// start), marker included, in the coordinator's transaction.
    static func prepare(
        token: String, participant: Member, recorder: ChangeRecorder, coordinator: Member
    ) throws -> Data {
        try participant.connection.run(
            "INSERT INTO _strata_completed (token, coordinator) VALUES (?, ?)",
            [.text(token), .text(coordinator.store.order)])
        let changes = try recorder.changeset()
        try coordinator.connection.run(
            "INSERT INTO _strata_pending (token, store, changes) VALUES (?, ?, ?)",
            [.text(token), .text(participant.store.order), .blob(changes)])
        return changes
    }

    /// Completes a participant whose own COMMIT failed after the
    /// coordinator's: its transaction is rolled back, and `changes` applied
    /// and committed in a new one.
    static func complete(_ changes: Data, on participant: StoreRuntime) throws {
        // The changeset carries the part's own generation and log record.
        try participant.write { connection in try ChangeRecorder.apply(changes, on: connection) } commit: {
            try $0.commit()
        }
    }

    // MARK: Recovering

    /// Completes what crashed commits over several stores left half done
    /// among `members` (all locked, in store order): a participant whose
    /// marker is missing gets its changes applied and committed at once.
    /// Deletes pending rows whose participant is done, and markers whose
    /// pending row is gone, in the members' open transactions (they commit
    /// with the members' next commits). Returns the members whose open
    /// transaction holds such deletions.
    @discardableResult
    static func recover(_ members: [Member]) throws -> [Member] {
        // Only SQLite stores take part in commits over several stores.
        let members = members.filter { $0.store.dialect == .sqlite }
        guard members.count > 1 else { return [] }
        var cleaned: Set<String> = []
        let byOrder = Dictionary(members.map { ($0.store.order, $0) }) { first, _ in first }
        // Markers first, while every pending table still holds what is committed.
        for participant in members {
            let markers = try participant.connection.query(
                "SELECT token, coordinator FROM _strata_completed") { ($0.value(at: 0), $0.value(at: 1)) }
            for case let (.text(token), .text(order)) in markers {
                guard let coordinator = byOrder[order],
                      try coordinator.connection.scalar(
                        "SELECT 1 FROM _strata_pending WHERE token = ?", [.text(token)]) == nil
                else { continue }
                try participant.connection.run("DELETE FROM _strata_completed WHERE token = ?", [.text(token)])
                cleaned.insert(participant.store.order)
            }
        }
        for coordinator in members {
            // Without the changesets: usually every row found is done.
            let pending = try coordinator.connection.query("SELECT token, store FROM _strata_pending") {
                ($0.value(at: 0), $0.value(at: 1))
            }
            for case let (.text(token), .text(order)) in pending {
                guard let participant = byOrder[order] else { continue }  // not in this stack: not now
                let isDone = try participant.connection.scalar(
                    "SELECT 1 FROM _strata_completed WHERE token = ?", [.text(token)]) != nil
                if !isDone,
                   case .blob(let changes)? = try coordinator.connection.scalar(
                    "SELECT changes FROM _strata_pending WHERE token = ? AND store = ?", [.text(token), .text(order)]) {
                    try replay(changes, token: token, on: participant)
                }
                try coordinator.connection.run(
                    "DELETE FROM _strata_pending WHERE token = ? AND store = ?", [.text(token), .text(order)])
                cleaned.insert(coordinator.store.order)
            }
        }
        return members.filter { cleaned.contains($0.store.order) }
    }

    /// Applies a crashed commit's changes to `participant` and commits them
    /// on their own, then opens its write transaction again.
    private static func replay(_ changes: Data, token: String, on participant: Member) throws {
        let connection = participant.connection
        do {
            try ChangeRecorder.apply(changes, on: connection)
            try connection.commit()
            StrataLog.log(
                .warning, .transactions,
                "completed the part in \(participant.store.path) of a commit over several stores that "
                    + "a crash cut short (\(token))")
        } catch {
            // Something wrote the participant without completing the commit
            // first (a stack that lacks the coordinator's store): its part is lost.
            StrataLog.log(
                .error, .transactions,
                "could not complete the part in \(participant.store.path) of a commit over several stores "
                    + "that a crash cut short (\(token)); it is dropped: \(error)")
            if connection.isInTransaction { try connection.execute("ROLLBACK") }
        }
        try connection.execute("BEGIN IMMEDIATE")
    }

    /// Completes what crashed commits left half done among `stores`, in
    /// transactions of their own: run when a stack gains a store.
    static func recover(stores: [StoreRuntime]) throws {
        let stores = stores.filter { !$0.settings.isReadOnly && $0.dialect == .sqlite }
        guard stores.count > 1 else { return }
        var members: [Member] = []
        defer { for member in members { member.store.endWriting(member.connection, rollback: true) } }
        for store in stores { members.append(Member(store: store, connection: try store.beginWriting())) }
        // What was cleaned up commits as a logged commit; a store with nothing to clean stays as it was.
        for member in try recover(members) {
            _ = try member.store.commitLogged([:], author: nil, on: member.connection)
        }
    }

    // MARK: Testing

    /// The steps of a commit over several stores, where a test may stop the process.
    enum Step: Sendable {
        /// Every store prepared, nothing committed.
        case prepared
        /// The coordinator committed; the participants have not.
        case coordinatorCommitted
        /// Every store committed; the coordinator's pending rows are still there.
        case participantsCommitted
    }

    /// Called at each ``Step`` (by tests, which kill the process there).
    static let stepHook = Locked<(@Sendable (Step) -> Void)?>(nil)

    static func reach(_ step: Step) {
        if let hook = stepHook.withLock({ $0 }) { hook(step) }
    }
}
