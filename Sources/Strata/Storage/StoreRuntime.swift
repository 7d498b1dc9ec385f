import Synchronization

/// An open store: its writer (behind a gate) and the generation of its last commit.
final class StoreRuntime: Sendable {
    let configuration: StoreConfiguration
    let gate: WriterGate
    /// The generation of the last commit, changed only together with the COMMIT itself.
    private let committed: Mutex<UInt64>

    /// The migration steps run when the store was opened, for tests and diagnostics.
    let migrationsRun: [MigrationStep]

    init(
        configuration: StoreConfiguration, writer: Connection, generation: UInt64,
        migrationsRun: [MigrationStep] = []
    ) {
        self.configuration = configuration
        self.migrationsRun = migrationsRun
        self.gate = WriterGate(connection: writer)
        self.committed = Mutex(generation)
    }

    var path: String { configuration.displayPath }

    /// Takes the writer and begins an immediate (write-locking) SQLite transaction.
    func beginWriting() throws -> Connection {
        if configuration.isReadOnly { throw StrataError.readOnlyStore(path: path) }
        // A second transaction on the thread that holds the writer would wait for itself.
        if gate.isHeldByCurrentThread { throw StrataError.nestedTransaction }
        let connection = gate.acquire()
        do {
            try connection.execute("BEGIN IMMEDIATE")
        } catch {
            gate.release()
            throw StoreErrors.translate(error, path: path)
        }
        return connection
    }

    /// Rolls back the open write transaction, if any, and gives the writer back.
    func endWriting(_ connection: Connection, rollback: Bool) {
        if rollback, connection.isInTransaction { try? connection.execute("ROLLBACK") }
        gate.release()
    }

    /// Runs `body` (which commits) and records `generation` as committed at the same instant.
    func commit(generation: UInt64, _ body: () throws -> Void) throws {
        try committed.withLock { value in
            try body()
            value = generation
        }
    }

    /// Runs `body` with the committed generation held steady.
    func withCommitLock<T>(_ body: (UInt64) throws -> T) throws -> T {
        try committed.withLock { value in try body(value) }
    }

    var committedGeneration: UInt64 { committed.withLock { $0 } }
}

/// Maps SQLite failures met while opening or writing a store to typed errors.
enum StoreErrors {
    static func translate(_ error: any Error, path: String) -> StrataError {
        guard let error = error as? DatabaseError else { return .wrapping(error) }
        switch error.primaryCode {
        case 26, 11:  // SQLITE_NOTADB, SQLITE_CORRUPT
            return .notADatabase(path: path, reason: error.message)
        case 8:  // SQLITE_READONLY
            return .readOnlyStore(path: path)
        case 13:  // SQLITE_FULL
            return .storage(path: path, reason: "the disk is full")
        case 14:  // SQLITE_CANTOPEN
            return .storage(path: path, reason: "cannot open the file: \(error.message)")
        default:
            return .wrapping(error)
        }
    }
}
