import Foundation

/// Opens a store for a schema history: validates the file, creates the
/// tables, checks them or migrates them to the current version, and opens the
/// writer and reader connections.
struct StoreOpener {
    let settings: StoreSettings
    /// The history of the store's configuration: every version restricted to
    /// the entities the store holds.
    let history: SchemaHistory
    /// Told as a migration advances and when the store is open.
    var progress: MigrationProgressHandler?
    /// For a store opened again under a main context that followed it (its
    /// file replaced or reset), the last generation that context saw: the
    /// store's history restarts after it, whatever generation the file holds.
    var continuingAfter: UInt64?
    /// Whether an existing store is emptied, its tables dropped and created
    /// again (a reset of a store on a server, whose files the stack cannot delete).
    var recreating = false

    init(settings: StoreSettings, history: SchemaHistory) {
        self.settings = settings
        self.history = history.restricted(to: settings.configuration)
    }

    var schema: Schema { history.currentSchema }
    var path: String { settings.displayPath }

    /// The opened store and the reader connection for the main context.
    func open() throws -> (store: StoreRuntime, reader: Connection, migrationsRun: [MigrationStep]) {
        try history.validate()
        try checkConfiguration()
        try schema.validateNames(for: settings.dialect)
        do {
            // An in-memory store's files live while its connections hold the lease.
            var lease: MemoryStoreFiles.Lease?
            switch settings.location {
            case .file(let url): try prepareFile(at: url)
            case .memory(let name): lease = try MemoryStoreFiles.Lease(name: name)
            case .server: break
            }
            let writer = try settings.openConnection(.writer)
            writer.lease = lease
            // Check the schema before switching to WAL: the switch rewrites the
            // header, and a database that is not this store must stay untouched.
            let (generation, migrationsRun) = try alone(on: writer) {
                let (generation, steps) = try prepareSchema(on: writer)
                guard let continuingAfter, !settings.isReadOnly else { return (generation, steps) }
                return (try restartHistory(on: writer, after: max(generation, continuingAfter)), steps)
            }
            let hasLog = try CommitLog.exists(on: writer)
            if !settings.isReadOnly && writer.dialect == .sqlite {
                try CrossStoreCommit.install(on: writer)
            }
            try configure(writer)
            let reader = try settings.openConnection(.reader)
            reader.lease = lease
            let store = StoreRuntime(
                settings: settings, schema: schema, writer: writer, generation: generation, hasLog: hasLog)
            progress?(.finished(migrationRan: !migrationsRun.isEmpty))
            for step in migrationsRun { StrataLog.log(.info, .storage, "\(path): migrated \(step)") }
            StrataLog.log(.info, .storage, "opened \(path) at generation \(generation)")
            return (store, reader, migrationsRun)
        } catch {
            let error = StoreErrors.translate(error, path: path)
            StrataLog.log(.error, .storage, "could not open \(path): \(error)")
            throw error
        }
    }

    /// A store of a named configuration needs the schema to declare it.
    private func checkConfiguration() throws {
        guard let configuration = settings.configuration, schema.entities.isEmpty else { return }
        throw StrataError.invalidSchema(
            entity: nil, field: nil,
            reason: "schema \(schema.version) declares no entity in configuration \(configuration); "
                + "declare some with Entity(..., configurations: [\"\(configuration)\"])")
    }

    /// Creates the folder, and checks an existing file's header before SQLite
    /// sees it: `sqlite3_open` accepts any file, and a truncated one fails only later.
    /// A URL that is not a file's is refused before anything is created.
    func prepareFile(at url: URL) throws {
        try SQLiteStore.checkFileURL(url)
        let manager = FileManager.default
        let folder = url.deletingLastPathComponent()
        if !manager.fileExists(atPath: folder.path) {
            if settings.isReadOnly {
                throw StrataError.storage(path: url.path, reason: "the store does not exist")
            }
            do {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw StrataError.storage(path: folder.path, reason: "cannot create the folder: \(error.localizedDescription)")
            }
        }
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            if manager.fileExists(atPath: url.path) {
                throw StrataError.storage(path: url.path, reason: "the file cannot be read")
            }
            if settings.isReadOnly {
                throw StrataError.storage(path: url.path, reason: "the store does not exist")
            }
            return
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        let size = (try? handle.seekToEnd()) ?? 0
        guard !header.isEmpty else { return }
        // A rollback journal or a WAL beside the file can hold pages the file
        // does not have yet (a transaction or a checkpoint cut short); SQLite
        // recovers from them on open, so only the header's magic is checked then.
        let walSize = (try? manager.attributesOfItem(atPath: url.path + "-wal")[.size] as? NSNumber)??.uint64Value ?? 0
        let recoverable = manager.fileExists(atPath: url.path + "-journal") || walSize > 0
        try StoreFileHeader.validate(
            header, fileSize: recoverable ? UInt64.max : size, path: url.path)
    }

    private func configure(_ connection: Connection) throws {
        guard connection.dialect == .sqlite else { return }
        if !settings.isReadOnly {
            let mode = try connection.scalar("PRAGMA journal_mode = WAL")
            if mode != .text("wal") {
                throw StrataError.storage(path: path, reason: "cannot switch the journal to WAL mode")
            }
        }
        // An in-memory store's data goes with the process anyway: never sync it.
        let synchronous = settings.isInMemory ? "OFF" : settings.synchronous.rawValue
        try connection.execute("PRAGMA synchronous = \(synchronous)")
    }

    /// Creates the tables of a new store, or checks an existing store's schema.
    /// Returns the store's commit generation and the migration steps run.
    private func prepareSchema(on connection: Connection) throws -> (UInt64, [MigrationStep]) {
        let tables = try connection.tableNames()
        if tables.isEmpty {
            guard !settings.isReadOnly else {
                throw StrataError.storage(path: path, reason: "the store is empty and opened read-only")
            }
            try createTables(on: connection)
            return (0, [])
        }
        guard tables.contains("_strata_meta") else {
            throw StrataError.storage(path: path, reason: "the database is not a Strata store")
        }
        let meta = try connection.storeMeta()
        let generation = UInt64(meta["generation"] ?? "0") ?? 0
        if recreating, !settings.isReadOnly {
            try recreate(on: connection, keepingGeneration: generation)
            return (generation + 1, [])
        }
        if let steps = history.steps(fromVersion: meta["version"], fingerprint: meta["fingerprint"]),
           !steps.isEmpty {
            try migrate(along: steps, on: connection)
            return (generation + 1, steps)
        } else if meta["fingerprint"] != schema.fingerprint {
            guard settings.options.contains(.recreateStoreOnModelMismatch),
                  !settings.isReadOnly
            else {
                throw StrataError.schemaMismatch(
                    path: path, storeVersion: meta["version"] ?? "unknown",
                    schemaVersion: schema.version)
            }
            try recreate(on: connection, keepingGeneration: generation)
            return (generation + 1, [])
        }
        try checkTables(on: connection, version: meta["version"] ?? schema.version)
        if !settings.isReadOnly, try !CommitLog.exists(on: connection) {
            // A store made before the commit log gains it: its history starts now.
            try inTransaction(connection) { try CommitLog.install(on: connection) }
        }
        return (generation, [])
    }

    /// Checks that the store's tables have every column and index the schema
    /// gives them: a store whose tables were changed behind its back (a
    /// dropped column, a dropped unique index) is refused before anything is
    /// written, instead of reading defaults or admitting duplicates.
    private func checkTables(on connection: Connection, version: String) throws {
        for table in schema.tables {
            if let mismatch = try table.mismatch(on: connection) {
                throw StrataError.storage(
                    path: path,
                    reason: "the store says it holds version \(version), but \(mismatch)")
            }
        }
    }

    /// Runs `steps` in one transaction, then records the current version. On
    /// any failure the transaction rolls back and the store keeps its version.
    private func migrate(along steps: [MigrationStep], on connection: Connection) throws {
        try checkProgressiveMigration(steps)
        guard !settings.isReadOnly else { throw StrataError.readOnlyStore(path: path) }
        let plan = try steps.map { step in
            let (source, destination) = try schemas(of: step)
            return (step, source, destination)
        }
        // Progress counts one unit per destination entity, plus one per step
        // for its link tables and clean-up.
        let totalUnits = Double(plan.reduce(0) { $0 + $1.2.entities.count + 1 })
        var doneUnits = 0.0
        try inTransaction(connection) {
            for (step, source, destination) in plan {
                let report: @Sendable (Double) -> Void = { [progress] fraction in
                    progress?(.migrating(step: step, fractionCompleted: min(fraction, 1)))
                }
                report(doneUnits / totalUnits)
                let stage = history.stage(for: step)
                do {
                    try MigrationStage.run(
                        stage?.willMigrate, step: step, schema: source,
                        configuration: settings.configuration, on: connection)
                    let migration = try self.migration(for: step, from: source, to: destination)
                    try migration.run(on: connection) { unitsDone in
                        report((doneUnits + Double(unitsDone)) / totalUnits)
                    }
                    doneUnits += Double(destination.entities.count + 1)
                    report(doneUnits / totalUnits)
                    try MigrationStage.run(
                        stage?.didMigrate, step: step, schema: destination,
                        configuration: settings.configuration, on: connection)
                } catch let error as DatabaseError {
                    throw StrataError.migrationFailed(
                        sourceVersion: source.version, destinationVersion: destination.version,
                        entity: nil, field: nil, reason: error.description)
                }
            }
            for (key, value) in [("version", schema.version), ("fingerprint", schema.fingerprint)] {
                try connection.run(
                    "UPDATE _strata_meta SET value = ? WHERE key = ?", [.text(value), .text(key)])
            }
            try restartHistory(on: connection)
        }
    }

    /// Ends the log's history at a change it cannot describe (a migration, a
    /// recreated store, a file swapped under a stack): the generation moves
    /// on by one with no record (past `generation` when given), so a stack
    /// that followed the store before refreshes everything. Returns the new
    /// generation.
    @discardableResult
    private func restartHistory(on connection: Connection, after generation: UInt64? = nil) throws -> UInt64 {
        try CommitLog.install(on: connection)
        let value = connection.dialect.metaInteger("value")
        let next = generation.map { "\(Int64(clamping: $0) + 1)" } ?? "\(value) + 1"
        try connection.run(
            "UPDATE _strata_meta SET value = \(connection.dialect.metaValue(next)) WHERE key = 'generation'")
        try CommitLog.purge(through: .max, on: connection)
        return try CommitLog.generation(on: connection)
    }

    /// Creates the schema's tables and the store's own; the first commit will
    /// be `generation + 1`.
    private func createTables(on connection: Connection, generation: UInt64 = 0) throws {
        try inTransaction(connection) {
            for table in schema.tables {
                for statement in table.createStatements(in: connection.dialect) { try connection.execute(statement) }
            }
            let dialect = connection.dialect
            try connection.execute(
                "CREATE TABLE _strata_meta (key \(dialect.columnType("TEXT")) PRIMARY KEY, "
                    + "value \(dialect.columnType(""))) \(dialect.withoutRowID)")
            try connection.execute(
                "CREATE TABLE _strata_sequence (entity \(dialect.columnType("TEXT")) PRIMARY KEY, "
                    + "last \(dialect.columnType("INTEGER"))) \(dialect.withoutRowID)")
            try connection.execute(CommitLog.createStatement(in: dialect))
            for (key, value) in [
                ("version", StoredValue.text(schema.version)),
                ("fingerprint", .text(schema.fingerprint)),
                ("generation", .integer(Int64(clamping: generation))),
                ("log_horizon", .integer(Int64(clamping: generation))),
            ] {
                try connection.run("INSERT INTO _strata_meta (key, value) VALUES (?, ?)", [.text(key), value])
            }
        }
    }

    /// Drops every table and creates the schema's, in one transaction. The
    /// generation goes on from the old store's, plus one for the change.
    private func recreate(on connection: Connection, keepingGeneration generation: UInt64) throws {
        try inTransaction(connection) {
            for name in try connection.tableNames() {
                try connection.execute("DROP TABLE \(SQL.quote(name))")
            }
        }
        try createTables(on: connection, generation: generation + 1)
    }

    /// Runs `body` — reading the store's version, then creating or migrating
    /// it — holding the store's write lock, so that another process or stack
    /// opening the store at the same time waits, then finds it created or
    /// migrated instead of migrating it again: on a server the lock is held
    /// for the session; on SQLite `body` is one write transaction, which the
    /// transactions inside join. A read-only store is only read.
    private func alone<Result>(on connection: Connection, _ body: () throws -> Result) throws -> Result {
        if let (lock, unlock) = connection.dialect.sessionWriteLock {
            try connection.execute(lock)
            defer { try? connection.execute(unlock) }
            return try body()
        }
        guard !settings.isReadOnly else { return try body() }
        try connection.execute(connection.dialect.beginWrite)
        do {
            let result = try body()
            try connection.commit()
            return result
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in a write transaction, or in the one already open (``alone(on:_:)``'s).
    private func inTransaction(_ connection: Connection, _ body: () throws -> Void) throws {
        guard !connection.isInTransaction else { return try body() }
        try connection.execute(connection.dialect.beginWrite)
        do {
            try body()
            try connection.commit()
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}

/// The 100-byte header of an SQLite file.
enum StoreFileHeader {
    static func validate(_ header: Data, fileSize: UInt64, path: String) throws {
        let magic = Data("SQLite format 3\0".utf8)
        guard header.count == 100, header.prefix(16) == magic else {
            throw StrataError.notADatabase(path: path, reason: "the file does not start with an SQLite header")
        }
        let bytes = [UInt8](header)
        var pageSize = UInt64(bytes[16]) << 8 | UInt64(bytes[17])
        if pageSize == 1 { pageSize = 65_536 }
        let pageCount = bytes[28..<32].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // The page count in the header is valid when the change counters agree.
        let counterValid = bytes[24..<28] == bytes[92..<96]
        if counterValid, pageCount > 0, fileSize < pageSize * pageCount {
            throw StrataError.notADatabase(
                path: path,
                reason: "the file is truncated: \(fileSize) bytes, the header says \(pageSize * pageCount)")
        }
    }
}
