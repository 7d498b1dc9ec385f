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
            if !object.values.isIdentical(to: state.values) || object.hasInvalidValues
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
