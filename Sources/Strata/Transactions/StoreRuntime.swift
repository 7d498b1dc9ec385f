import Foundation

/// An open store: its writer (behind a gate), the generation of its last
/// commit, and the change sets this stack committed that the main context
/// has not taken yet.
final class StoreRuntime: Sendable {
    let settings: StoreSettings
    /// The schema the store holds: the stack's, restricted to the store's configuration.
    let schema: Schema
    let gate: WriterGate
    /// The store a transaction goes on with when this one's file is swapped
    /// before it touched it (see ``StoreSuccession``).
    let succession = StoreSuccession()
    /// What begins each write transaction, its wait for the lock bounded by
    /// the store's busy timeout: made once, as the settings never change.
    private let beginWrite: String
    /// How the store's engine spells what the engines spell differently:
    /// read once, as every query asks (the settings' is found from the
    /// store's location, copied per call).
    let dialect: SQLDialect
    /// What names the store's rows (``StoreSettings/rowsKey``), resolved once:
    /// whether an object of another stack's store is a row of this one.
    let rowsKey: String
    /// Whether the store has a commit log: every store opened writable does;
    /// a read-only store made before the log does not.
    let hasLog: Bool
    /// What a commit hands the main context, in commit order: its change
    /// set, or a completion to run once everything committed before it is merged.
    enum Delivery {
        case changeSet(ChangeSet)
        /// Runs on the main actor right after the merge of `after`, this
        /// stack's last commit when the completion was delivered; merging
        /// then stops until resumed when `holdsMerges`.
        case completion(after: UInt64, holdsMerges: Bool, @MainActor @Sendable () -> Void)
    }

    /// The generation of this stack's last commit and what waits for the
    /// main actor, changed only together with the COMMIT itself.
    private let committed: Locked<(generation: UInt64, delivered: [Delivery])>
    /// Per table (by its name), the last row ID an undo history may bring
    /// back that no commit recorded in `_strata_sequence` (a commit that
    /// saved nothing, Transactions.md, Rule 12a): the stack's transactions
    /// give out none up to it.
    private let reservedRowIDs = Locked<[String: Int64]>([:])

    init(
        settings: StoreSettings, schema: Schema, writer: Connection, generation: UInt64, hasLog: Bool) {
        self.settings = settings
        self.schema = schema
        self.hasLog = hasLog
        self.gate = WriterGate(connection: writer)
        self.dialect = settings.dialect
        self.rowsKey = settings.rowsKey
        self.beginWrite = dialect.beginWrite(waitingAtMost: settings.busyTimeoutMilliseconds)
        self.committed = Locked((generation, []))
    }

    var path: String { settings.displayPath }

    /// Where the store comes among a stack's: the default configuration's
    /// first, then by configuration name.
    var order: String { settings.configuration.map { "1" + $0 } ?? "0" }

    /// Whether the store lives in memory (an ``InMemoryStore``), so that a
    /// crash loses it anyway.
    var isInMemory: Bool { settings.isInMemory }

    /// Takes the writer and begins an immediate (write-locking) SQLite transaction.
    func beginWriting() throws -> Connection {
        if settings.isReadOnly { throw StrataError.readOnlyStore(path: path) }
        // A second transaction on the thread that holds the writer would wait for itself.
        if gate.isHeldByCurrentThread { throw StrataError.nestedTransaction }
        let connection = gate.acquire()
        if connection.isClosed {
            gate.release()
            throw StrataError.storeNotAdded
        }
        do {
            try connection.executePrepared(beginWrite)
        } catch {
            // On PostgreSQL a lock wait that timed out leaves the transaction open, and failed.
            endWriting(connection, rollback: true)
            throw StoreErrors.translate(error, path: path)
        }
        // A commit into a file deleted or replaced behind the stack's back
        // would succeed, and be lost with the file once it is closed.
        if !isInMemory, connection.fileHasMoved {
            endWriting(connection, rollback: true)
            throw StrataError.storage(
                path: path,
                reason: "the store's file was deleted or replaced while the stack had it open, "
                    + "and nothing is written to it; remove the storage and add it again")
        }
        return connection
    }

    /// Rolls back the open write transaction, if any, and gives the writer back.
    func endWriting(_ connection: Connection, rollback: Bool) {
        if rollback, connection.isInTransaction { try? connection.execute("ROLLBACK") }
        gate.release()
    }

    /// Runs `commit` (which COMMITs) and, at the same instant for anyone who
    /// takes the lock, records the change set as committed and delivered.
    func commit(_ changeSet: ChangeSet, _ commit: () throws -> Void) throws {
        reach(.written)
        try committed.withLock { state in
            try commit()
            state.generation = changeSet.generation
            state.delivered.append(.changeSet(changeSet))
        }
        reach(.committed)
    }

    /// Queues `completion` to run on the main actor right after the merge of
    /// this stack's last commit so far (a transaction's own, when called
    /// right after it committed on the transaction queue), and before any
    /// later one is merged.
    func deliver(holdingMerges: Bool = false, completion: @escaping @MainActor @Sendable () -> Void) {
        committed.withLock { state in
            state.delivered.append(.completion(after: state.generation, holdsMerges: holdingMerges, completion))
        }
    }

    /// Keeps the stack's transactions from giving out row IDs up to
    /// `rowID` in `table`; called by the transaction that gave them out,
    /// while it still holds the writer.
    func reserveRowIDs(through rowID: Int64, in table: String) {
        reservedRowIDs.withLock { $0[table] = max($0[table] ?? 0, rowID) }
    }

    /// The last row ID reserved in `table`, or 0.
    func lastReservedRowID(in table: String) -> Int64 {
        reservedRowIDs.withLock { $0[table] ?? 0 }
    }

    /// What this stack delivered since the last call, in commit order. Every
    /// local commit a read snapshot taken before the call shows is among
    /// them (or was taken before).
    func takeDelivered() -> [Delivery] {
        committed.withLock { state in
            defer { state.delivered.removeAll() }
            return state.delivered
        }
    }
}

// MARK: Testing

extension StoreRuntime {
    /// The steps of a store's commit where a test may stop the process or the server.
    enum CommitStep: String, Sendable {
        /// The changes and the log record are written; the COMMIT is not sent.
        case written
        /// The COMMIT returned; the caller has not heard yet.
        case committed
    }

    /// Called at each ``CommitStep`` of every store's commit, with the store
    /// (by the fault tests, which kill the process or restart the server there).
    static let commitStepHook = Locked<(@Sendable (CommitStep, StoreRuntime) -> Void)?>(nil)

    private func reach(_ step: CommitStep) {
        if let hook = Self.commitStepHook.withLock({ $0 }) { hook(step, self) }
    }
}

/// Maps SQLite failures met while opening or writing a store to typed errors.
enum StoreErrors {
    /// The typed error for `error`, met on the store at `path`. With the
    /// store's `schema`, a unique violation names the entity that declares
    /// the constraint's fields, where the engine names only the table (an
    /// inheritance tree's root's).
    static func translate(_ error: any Error, path: String, schema: Schema? = nil) -> StrataError {
        guard let error = error as? DatabaseError else { return .wrapping(error) }
        if error.isConnectionFailure {
            return .serverUnavailable(path: path, reason: error.message)
        }
        switch error.primaryCode {
        case 26, 11:  // SQLITE_NOTADB, SQLITE_CORRUPT
            return .notADatabase(path: path, reason: error.message)
        case 8:  // SQLITE_READONLY
            return .readOnlyStore(path: path)
        case 13:  // SQLITE_FULL
            return .storage(path: path, reason: "the disk is full")
        case 14:  // SQLITE_CANTOPEN
            return .storage(path: path, reason: "cannot open the file: \(error.message)")
        case 19 where error.code == 2067:  // SQLITE_CONSTRAINT_UNIQUE
            // SQLite names the columns as "UNIQUE constraint failed: Table.column, ...".
            let detail = error.message.components(separatedBy: ": ").last ?? ""
            let parts = detail.components(separatedBy: ", ").map { $0.components(separatedBy: ".") }
            let table = parts.first?.first ?? "?"
            let fields = parts.compactMap { $0.last }
            return .uniqueConstraintViolation(
                entity: schema?.entity(declaring: fields, inTable: table) ?? table, fields: fields)
        default:
            return .wrapping(error)
        }
    }
}
