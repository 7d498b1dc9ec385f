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

/// One undo group: a record per context (store) it changed.
final class UndoGroup {
    private(set) var records: [UndoRecord] = []

    func record(for context: ObjectContext) -> UndoRecord {
        if let record = records.first(where: { $0.context === context }) { return record }
        let record = UndoRecord(context: context)
        records.append(record)
        return record
    }

    func apply(commits: Int) {
        for record in records.reversed() { record.apply(commits: commits) }
    }
}

/// What one undo group changed in one context: the state to put back of
/// each object, link row and to-many change note it touched.
final class UndoRecord {
    unowned let context: ObjectContext

    /// An object as the transaction shows it: whether it exists (is
    /// neither deleted nor an undone creation), its values, and the values
    /// assigned that cannot be stored.
    struct ObjectState {
        var exists: Bool
        var values: ContiguousArray<StoredValue>
        var invalidValues: [Int: (value: Any, error: StrataError)]?
    }

    /// A row of a link table (a many-to-many relationship), by its two ends.
    struct LinkKey: Hashable {
        let table: String
        let source: Int64
        let target: Int64
    }

    private var objects: [(object: ManagedObject, state: ObjectState)] = []
    private var objectIndex: [ObjectIdentifier: Int] = [:]
    /// Each link row's columns, in the table's order, or `nil` for no row.
    private var links: [LinkKey: ContiguousArray<StoredValue>?] = [:]
    /// The to-many change notes of each object whose relationships the
    /// group changed, as they were at `notesCommit` commits, and the names
    /// the group noted.
    private var notes: [ObjectKey: Set<String>?] = [:]
    private var notedNames: [ObjectKey: Set<String>] = [:]
    private var notesCommit: Int
    /// A `.deny` check a deletion added, with the deleted object.
    typealias Denial = (owner: ManagedObject, check: DenyCheck)
    /// The `.deny` checks the group's deletions added.
    private(set) var denials: [Denial] = []

    init(context: ObjectContext) {
        self.context = context
        self.notesCommit = context.undoHistory?.commits ?? 0
    }

    // MARK: Recording

    /// Keeps `object`'s state before the group's first change to it.
    func noteObject(_ object: ManagedObject) {
        let id = ObjectIdentifier(object)
        guard objectIndex[id] == nil else { return }
        objectIndex[id] = objects.count
        objects.append((object, Self.state(of: object)))
    }

    /// Keeps that `object`, just created, did not exist before the group.
    func noteCreated(_ object: ManagedObject) {
        noteObject(object)
        objects[objectIndex[ObjectIdentifier(object)]!].state.exists = false
    }

    /// Keeps the rows of link `table` whose `column` holds `rowID` (and,
    /// when `other` is given, whose other column holds it: then a missing
    /// row is kept as no row) before a statement changes them.
    func noteLinks(in table: String, where column: String, is rowID: Int64, and other: Int64? = nil) throws {
        var conditions = [(column, rowID)]
        if let other { conditions.append((column == "source" ? "target" : "source", other)) }
        let rows = try linkRows(in: table, conditions)
        for row in rows {
            guard case .integer(let source) = row[0], case .integer(let target) = row[1] else { continue }
            let key = LinkKey(table: table, source: source, target: target)
            if links.index(forKey: key) == nil { links[key] = row }
        }
        if let other, rows.isEmpty {
            let key = column == "source"
                ? LinkKey(table: table, source: rowID, target: other)
                : LinkKey(table: table, source: other, target: rowID)
            if links.index(forKey: key) == nil { links[key] = .some(nil) }
        }
    }

    /// Keeps the change notes of the object with `key` before the group
    /// notes `name` there.
    func noteRelationshipChange(_ key: ObjectKey, _ name: String, current: Set<String>?) {
        if notes.index(forKey: key) == nil { notes[key] = .some(current) }
        notedNames[key, default: []].insert(name)
    }

    /// Keeps a `.deny` check `owner`'s deletion added.
    func noteDenial(of owner: ManagedObject, _ check: DenyCheck) {
        denials.append((owner, check))
    }

    // MARK: Applying

    static func state(of object: ManagedObject) -> ObjectState {
        ObjectState(exists: !object.isDeleted, values: object.values, invalidValues: object.invalidValues)
    }

    /// Puts back every kept state, keeping in its place the state it
    /// replaced. A failure to restore a link row fails the transaction's
    /// next read or its commit, as a setter's does.
    func apply(commits: Int) {
        context.exclusively {
            var revived: [ManagedObject] = []
            for index in objects.indices {
                let (object, state) = objects[index]
                objects[index].state = Self.state(of: object)
                if context.restore(object, to: state) { revived.append(object) }
            }
            context.makePending(revived)
            do {
                try applyLinks()
            } catch {
                context.deferredError = context.deferredError ?? context.translated(error)
            }
            applyNotes(commits: commits)
        }
    }

    private func applyLinks() throws {
        guard !links.isEmpty else { return }
        let connection = try context.writeConnection()
        for (key, wanted) in links {
            let columns = context.linkColumns(of: key.table)
            let table = SQL.quote(key.table)
            let current = try linkRows(in: key.table, [("source", key.source), ("target", key.target)]).first
            links[key] = .some(current)
            if let current, let wanted, current.isIdentical(to: wanted) { continue }
            if current == nil, wanted == nil { continue }
            try connection.run(
                "DELETE FROM \(table) WHERE \"source\" = ? AND \"target\" = ?",
                [.integer(key.source), .integer(key.target)])
            if let wanted {
                try connection.run(
                    "INSERT INTO \(table) (\(columns.map(SQL.quote).joined(separator: ", "))) VALUES ("
                        + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")",
                    Array(wanted))
            }
        }
    }

    /// The rows of link `table` whose columns hold the row IDs `conditions`
    /// name, each with every column, in the table's order.
    private func linkRows(
        in table: String, _ conditions: [(column: String, rowID: Int64)]
    ) throws -> [ContiguousArray<StoredValue>] {
        let columns = context.linkColumns(of: table)
        let sql = "SELECT \(columns.map(SQL.quote).joined(separator: ", ")) FROM \(SQL.quote(table)) WHERE "
            + conditions.map { "\(SQL.quote($0.column)) = ?" }.joined(separator: " AND ")
        return try context.writeConnection().query(sql, conditions.map { .integer($0.rowID) }) { statement in
            ContiguousArray((0..<Int32(columns.count)).map { statement.value(at: $0) })
        }
    }

    /// Change notes say which to-many relationships differ from the last
    /// commit. Applied in the same commit interval as they were kept, they
    /// are put back as kept; after a commit, what the group changed differs
    /// from the new baseline, and is noted. Either way the notes replaced
    /// are kept for the next application, now relative to this interval.
    private func applyNotes(commits: Int) {
        for (key, kept) in notes {
            let current = context.relationshipChanges[key]
            if notesCommit == commits {
                context.relationshipChanges[key] = kept
            } else {
                context.relationshipChanges[key, default: []].formUnion(notedNames[key] ?? [])
            }
            notes[key] = .some(current)
        }
        notesCommit = commits
    }
}

/// What applying an undo group asks of the context.
extension ObjectContext {
    /// The columns of link `table`, in its order: its two ends first.
    func linkColumns(of table: String) -> [String] {
        schema.linkTables.first { $0.name == table }!.columns.map(\.name)
    }

    /// Puts `object` in `state` through the same change tracking a setter
    /// or a delete uses, so the flush and the commit see an ordinary
    /// change. A deletion put back runs no delete rule: what the rules
    /// changed comes back from the group's other states. Returns whether
    /// the object came back into existence without a row, for the next
    /// flush to insert.
    func restore(_ object: ManagedObject, to state: UndoRecord.ObjectState) -> Bool {
        if state.exists {
            var needsRow = false
            if object.isDeleted {
                if object.identitySlot < 0 {
                    // Its deletion was committed: it comes back as an insert with its own ID.
                    object.isInserted = true
                    object.isWritten = false
                    object.baseline = nil
                    object.flushed = nil
                    register(object)
                }
                object.isDeleted = false
                needsRow = !object.isWritten
            }
            if !object.values.isIdentical(to: state.values) || object.invalidValues != nil
                || state.invalidValues != nil
            {
                willChange(object)
                object.values = state.values
                object.invalidValues = state.invalidValues
            }
            return needsRow
        }
        if !object.isDeleted {
            if object.isWritten { willChange(object) }
            object.isDeleted = true
        }
        return false
    }

    /// Adds the objects to those the next flush writes, each once.
    func makePending(_ objects: [ManagedObject]) {
        guard !objects.isEmpty else { return }
        let pending = Set(pendingObjects.map(ObjectIdentifier.init))
        for object in objects where !pending.contains(ObjectIdentifier(object)) {
            pendingObjects.append(object)
        }
    }
}
