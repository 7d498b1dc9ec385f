import Synchronization

/// What a transaction's read sees of its own changes; the main context has
/// none, and reads its reader whatever the scope.
enum ReadScope {
    /// Everything: its pending changes are written into its open SQLite
    /// transaction first (autoflush). Every query reads so by default.
    case pending
    /// Its open SQLite transaction as it stands: a read of rows by ID, since
    /// unflushed changes live only on the objects it holds, which such a
    /// read never replaces.
    case unflushed
    /// None: the store as last committed, read on a connection of the
    /// transaction's own (``Tweak/includesPendingChanges`` `false`).
    case committed

    /// The scope of a query with `options`.
    init(_ options: Tweak) {
        self = options.includesPendingChanges ? .pending : .committed
    }
}

/// Every read of a context goes through `read`, so that a main-context read
/// knows the generation of the snapshot it read and merges the commit log up
/// to it before it returns (Docs/Architecture.md, "Threads"; Docs/History.md).
extension ObjectContext {
    /// Prepares `sql`, binds `arguments`, steps once and hands `body` the
    /// statement, whether it has a row, and the commit generation the read's
    /// snapshot reflects (`.max` in a transaction, which reads its own writes).
    ///
    /// On the main context, reads share one snapshot until the main actor has
    /// run the jobs waiting when it opened (the current job's end, in
    /// practice), a merge, or any commit made in this process: the first read
    /// begins a read transaction that the others keep, so they skip the file
    /// locks that a transaction per read takes and releases. The first read
    /// checks the snapshot: when the reader's data version, read after its
    /// first step, is the one already known, nothing was committed since.
    /// When it moved, the snapshot's generation is read in it and the
    /// follower reads what other writers committed up to it, in the same
    /// snapshot; the merge follows once the statement is done, before `read`
    /// returns, and ends the kept snapshot.
    ///
    /// Every failure comes out as a ``StrataError``: a corrupt page, a
    /// missing table or raw SQL that does not parse is a typed error here,
    /// whichever public read met it.
    func read<Result>(
        _ sql: String, _ arguments: [StoredValue], scope: ReadScope = .pending,
        _ body: (_ statement: Statement, _ hasRow: Bool, _ generation: UInt64) throws -> Result
    ) throws -> Result {
        do {
            return try exclusively { try readSnapshot(sql, arguments, scope: scope, body) }
        } catch {
            throw translated(error)
        }
    }

    private func readSnapshot<Result>(
        _ sql: String, _ arguments: [StoredValue], scope: ReadScope,
        _ body: (_ statement: Statement, _ hasRow: Bool, _ generation: UInt64) throws -> Result
    ) throws -> Result {
        let connection = try readConnection(scope)
        guard kind == .main else {
            let statement = try connection.statement(sql)
            try statement.bind(arguments)
            defer { statement.reset() }
            return try body(statement, try statement.step(), .max)
        }
        let maximumAge = UInt64(max(0, Self.keptSnapshotMaximumAge.load(ordering: .relaxed)))
        guard connection.keptReadIsCurrent(maximumAge: maximumAge) else {
            return try readInNewSnapshot(sql, arguments, on: connection, body)
        }
        // The kept snapshot was checked against the log when it opened, and
        // what it showed was merged (a merge ends it).
        do {
            let statement = try connection.statement(sql)
            try statement.bind(arguments)
            defer { statement.reset() }
            return try body(statement, try statement.step(), knownSnapshot.generation)
        } catch {
            // On PostgreSQL the failed statement aborted the snapshot's
            // transaction, and every read in it would fail (SQLSTATE 25P02)
            // until it ends: the next read opens another.
            if connection.dialect.failedStatementEndsTransaction { connection.endKeptRead() }
            throw error
        }
    }

    /// A main-context read that opens the snapshot the reads after it keep
    /// until the end of the main-actor job (see `keptSnapshotMaximumAge`).
    private func readInNewSnapshot<Result>(
        _ sql: String, _ arguments: [StoredValue], on connection: Connection,
        _ body: (_ statement: Statement, _ hasRow: Bool, _ generation: UInt64) throws -> Result
    ) throws -> Result {
        try connection.beginKeptRead()
        follower?.keptSnapshotDidBegin()
        do {
            let statement = try connection.statement(sql)
            try statement.bind(arguments)
            defer { statement.reset() }
            let hasRow = try statement.step()
            let changed = connection.dataVersion != knownSnapshot.dataVersion
            // Unchanged, the snapshot may still show commits known and not
            // merged yet: those a pass left when an awaiting caller held merges.
            guard changed || follower?.isBehind == true else {
                return try body(statement, hasRow, knownSnapshot.generation)
            }
            // Reset before the merge, which ends the kept snapshot.
            defer {
                statement.reset()
                // The merge may read too: the read's generation stays its own.
                let generation = lastReadGeneration
                follower?.readDidEnd()
                lastReadGeneration = generation
            }
            let generation = changed ? try follower?.snapshotDidChange() : nil
            return try body(statement, hasRow, generation ?? knownSnapshot.generation)
        } catch {
            // Whether the snapshot was checked is unknown: the next read opens another.
            connection.endKeptRead()
            throw error
        }
    }

    /// How long the main context keeps one read snapshot at most. It ends
    /// sooner, when the main actor has run the jobs waiting when it opened;
    /// this bounds it for a main thread that never returns to its run loop
    /// (a command-line tool), so that other processes' commits still show and
    /// WAL checkpoints are not held back. In nanoseconds: 100 ms (tests change it).
    static let keptSnapshotMaximumAge = Atomic<Int64>(100_000_000)

    /// The rows of a read, each mapped by `row`.
    func readRows<Row>(
        _ sql: String, _ arguments: [StoredValue], scope: ReadScope = .pending,
        _ row: (Statement) throws -> Row
    ) throws -> [Row] {
        try read(sql, arguments, scope: scope) { statement, hasRow, _ in
            var rows: [Row] = []
            guard hasRow else { return rows }
            repeat { rows.append(try row(statement)) } while try statement.step()
            return rows
        }
    }

    /// The first column of a read's first row, or `nil` when it has none.
    func readScalar(
        _ sql: String, _ arguments: [StoredValue] = [], scope: ReadScope = .pending
    ) throws -> StoredValue? {
        try read(sql, arguments, scope: scope) { statement, hasRow, _ in hasRow ? statement.value(at: 0) : nil }
    }

    /// On the main context, a look at the store before an answer taken from
    /// the objects it holds (`fetchExisting` of a held object reads no row):
    /// like every main-context read, it merges what other writers committed
    /// first, so that an object another stack or process deleted or changed
    /// is not handed out as it was. A point read of the generation; within a
    /// kept snapshot, which a merge or a commit here ends, it finds nothing new.
    func lookForOtherWriters() throws {
        guard kind == .main else { return }
        _ = try readScalar(CommitLog.generationQuery(in: store.dialect))
    }
}

/// What a main-context read tells the log follower about its snapshot.
protocol SnapshotFollower: AnyObject {
    /// The snapshot open on the context's reader shows a data version not
    /// seen before: returns its generation, having read (in the same
    /// snapshot) what the main context needs to catch up to it.
    func snapshotDidChange() throws -> UInt64
    /// Whether commits the follower knows of are not merged yet.
    var isBehind: Bool { get }
    /// The read that saw a change, or found the follower behind, is done:
    /// merge what it found.
    func readDidEnd()
    /// A read began a snapshot that later reads keep: end it once the main
    /// actor has run what is waiting for it.
    func keptSnapshotDidBegin()
}

extension ObjectContext {
    /// The values of the rows of `entity` with `rowIDs` that exist, by row ID,
    /// read in one query (the IDs bound as one JSON array).
    func readValues(
        of entity: EntityDescription, rowIDs: some Collection<Int64>, on connection: Connection
    ) throws -> [Int64: ContiguousArray<StoredValue>] {
        let count = Int32(entity.attributes.count)
        var values: [Int64: ContiguousArray<StoredValue>] = [:]
        let rows = try connection.query(
            "SELECT \(entity.selectList) FROM \(entity.quotedTable) WHERE _pk \(connection.dialect.inRowIDList)",
            [SQL.rowIDList(rowIDs)]
        ) { statement in
            (statement.int64(at: 0), ContiguousArray((0..<count).map { statement.value(at: $0 + 1) }))
        }
        for (rowID, row) in rows { values[rowID] = row }
        return values
    }

    /// At the start of an unsafe transaction's next SQLite transaction: when
    /// another writer committed since its objects were read, they take the
    /// store's values (or are deleted), keeping the fields changed here since,
    /// so that a read-modify-write that reads after this loses no other
    /// writer's update.
    func catchUpKeptObjects(on connection: Connection) throws {
        let generation = try CommitLog.generation(on: connection)
        defer { keptGeneration = generation }
        guard let kept = keptGeneration, kept != generation else { return }
        var byEntity: [Int: [ManagedObject]] = [:]
        forEachRegistered { object in
            if !object.isInserted, !object.isDeleted { byEntity[object.entity!.index, default: []].append(object) }
        }
        // Fields changed here since the last commit keep their new values.
        func merge(_ row: ContiguousArray<StoredValue>, into object: ManagedObject) {
            guard let baseline = object.baseline else {
                object.values = row
                return
            }
            var merged = row
            for slot in merged.indices where !baseline[slot].isIdentical(to: object.value(at: slot)) {
                merged[slot] = object.value(at: slot)
            }
            object.baseline = row
            object.values = merged
        }
        for (index, objects) in byEntity {
            let values = try readValues(of: schema.entities[index], rowIDs: objects.map(\.rowID), on: connection)
            for object in objects {
                if let row = values[object.rowID] {
                    merge(row, into: object)
                } else {
                    object.isDeleted = true
                    unregister(object)
                }
            }
        }
    }
}
