/// The undo and redo stacks of an unsafe transaction begun with
/// `supportsUndo: true` (Docs/Transactions.md, Rule 12a).
///
/// A group is what the transaction changed between two boundaries (a
/// `flush()`, a commit, an `undo()`). It is kept as states, not as actions:
/// for every object, link row and to-many change note the group touched,
/// the state before its first touch. Applying a group puts those states
/// back and keeps, in their place, the states they replaced, so the same
/// group applied again redoes what it undid. Whatever path a change took
/// (a setter, an inverse kept in step, a delete rule's cascade or
/// nullification, a unique import) it went through the few hooks in
/// `ObjectContext` that record here, and comes back exactly.
final class UndoHistory {
    private var undoGroups: [UndoGroup] = []
    private var redoGroups: [UndoGroup] = []
    /// Where changes since the last boundary go; opened by the first one.
    private var openGroup: UndoGroup?
    /// Above 0 while nothing may be recorded: a group is being applied, a
    /// commit or a bulk write runs.
    private var suspension = 0
    /// How many commits the transaction has made: change notes are
    /// relative to the last one (see ``UndoRecord``).
    private(set) var commits = 0
    /// Per context and table, the last row ID given to an object created
    /// here. A redo may bring such an object back when its creation was
    /// never committed, and the store's sequence does not know its ID (a
    /// commit that saves nothing records nothing): no later object may get it.
    private var lastGivenRowIDs: [ContextTable: Int64] = [:]

    private struct ContextTable: Hashable {
        let context: ObjectIdentifier
        let table: Int
    }

    var canUndo: Bool { openGroup != nil || !undoGroups.isEmpty }
    var canRedo: Bool { !redoGroups.isEmpty }

    /// The open group's record for `context`, opening a group (which ends
    /// the redo stack, as a new change does in NSUndoManager) if none is
    /// open; `nil` while recording is suspended.
    func recording(in context: ObjectContext) -> UndoRecord? {
        guard suspension == 0 else { return nil }
        if openGroup == nil {
            openGroup = UndoGroup()
            redoGroups.removeAll()
        }
        return openGroup!.record(for: context)
    }

    /// Ends the open group, if any: the next change opens another.
    func endGroup() {
        guard let group = openGroup else { return }
        undoGroups.append(group)
        openGroup = nil
    }

    /// The `.deny` checks a bulk write found pending when it ended the
    /// history (of object deletions, whose groups it forgot, and of bulk
    /// deletions, which have none). An undo of a later group may still bring
    /// back an object such a deletion was allowed only because that object
    /// was deleted too; the check finds it at the next commit, as it does
    /// when the deletion's group is kept. A rollback or a failed commit
    /// forgets them: the committed state they return to links nothing to a
    /// deleted object.
    private var forgottenChecks: [ForgottenCheck] = []

    private struct ForgottenCheck {
        unowned let context: ObjectContext
        let check: DenyCheck
    }

    /// Forgets every group: after a rollback or a failed commit.
    func removeAll() {
        forgottenChecks.removeAll()
        openGroup = nil
        undoGroups.removeAll()
        redoGroups.removeAll()
    }

    /// Forgets every group after a bulk write, keeping the `.deny` checks
    /// pending in `contexts` (see `forgottenChecks`).
    func removeAll(keepingDenyChecksOf contexts: [ObjectContext]) {
        let pending = contexts.flatMap { context in
            context.denyChecks.map { ForgottenCheck(context: context, check: $0) }
        }
        removeAll()
        forgottenChecks = pending
    }

    func noteGivenRowID(_ rowID: Int64, in entity: EntityDescription, of context: ObjectContext) {
        let key = ContextTable(context: ObjectIdentifier(context), table: entity.tableIndex)
        lastGivenRowIDs[key] = max(lastGivenRowIDs[key] ?? 0, rowID)
    }

    /// The last row ID ``noteGivenRowID(_:in:of:)`` saw for the table, or 0.
    func lastGivenRowID(in entity: EntityDescription, of context: ObjectContext) -> Int64 {
        lastGivenRowIDs[ContextTable(context: ObjectIdentifier(context), table: entity.tableIndex)] ?? 0
    }

    /// Notes a successful commit: the committed state is the new baseline.
    func didCommit() {
        commits += 1
    }

    /// Runs `body` recording nothing.
    func withoutRecording<Result>(_ body: () throws -> Result) rethrows -> Result {
        suspension += 1
        defer { suspension -= 1 }
        return try body()
    }

    /// Ends the open group and puts back what the last group changed.
    func undo() {
        endGroup()
        guard let group = undoGroups.popLast() else { return }
        withoutRecording { group.apply(commits: commits) }
        redoGroups.append(group)
        reinstateDenials()
    }

    /// Puts back what the last undone group had changed.
    func redo() {
        guard let group = redoGroups.popLast() else { return }
        withoutRecording { group.apply(commits: commits) }
        undoGroups.append(group)
        reinstateDenials()
    }

    /// Keeps the `.deny` checks of every deletion the history holds exactly
    /// while the deletion is done (its group on the undo stack) and the
    /// deleted object deleted: an undone deletion is no longer judged at the
    /// commit, a redone one is again. So is one whose group stays done, or
    /// was forgotten by a bulk write (`forgottenChecks`): a commit cleared
    /// its check, and the object it denies may since have come back with
    /// another group (a deletion undone after the commit), holding the
    /// deleted object still. An undone creation reads as deleted too, but
    /// its deletion, undone before it, waits on the redo stack: not judged.
    private func reinstateDenials() {
        typealias ContextDenials = (
            context: ObjectContext, all: [UndoRecord.Denial], done: [UndoRecord.Denial]
        )
        var denials: [ObjectIdentifier: ContextDenials] = [:]
        for (groups, done) in [(undoGroups, true), (redoGroups, false)] {
            for group in groups {
                for record in group.records where !record.denials.isEmpty {
                    let key = ObjectIdentifier(record.context)
                    denials[key, default: (record.context, [], [])].all += record.denials
                    if done { denials[key]!.done += record.denials }
                }
            }
        }
        for (context, all, done) in denials.values {
            let owners = Set(all.map { ObjectKey($0.owner.entity!, $0.owner.rowID) })
            context.denyChecks.removeAll { check in check.owner.map(owners.contains) ?? false }
            context.denyChecks += done.filter(\.owner.isDeleted).map(\.check)
        }
        // Judged again at the next commit, each once.
        for forgotten in forgottenChecks
        where !forgotten.context.denyChecks.contains(where: { $0.isSame(as: forgotten.check) }) {
            forgotten.context.denyChecks.append(forgotten.check)
        }
    }
}
