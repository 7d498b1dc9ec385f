import Foundation

/// The store's commit log: the table every commit writes its record to, in
/// the same SQLite transaction as its data (Docs/Architecture.md, "Threads"; Docs/History.md).
///
/// ```sql
/// CREATE TABLE _strata_log (
///     generation INTEGER PRIMARY KEY,  -- the commit's generation
///     author TEXT,                     -- NULL when none was given
///     time REAL NOT NULL,              -- seconds since 1970
///     changes BLOB NOT NULL)           -- CommitRecordCoding
/// ```
///
/// `_strata_meta` keeps the generation of the last commit (`generation`) and
/// the last generation purged from the log (`log_horizon`): records after the
/// horizon are all there, one per generation.
enum CommitLog {
    static let table = "_strata_log"

    static func createStatement(in dialect: SQLDialect) -> String {
        "CREATE TABLE IF NOT EXISTS _strata_log (generation \(dialect.columnType("INTEGER")) "
            + "PRIMARY KEY, author \(dialect.columnType("TEXT")), time \(dialect.columnType("REAL")) "
            + "NOT NULL, changes \(dialect.columnType("BLOB")) NOT NULL)"
    }

    static func generationQuery(in dialect: SQLDialect) -> String {
        "SELECT \(dialect.metaInteger("value")) FROM _strata_meta WHERE key = 'generation'"
    }

    /// Creates the log in a store that has none (a store made before the log
    /// existed): its history starts at the store's current generation.
    static func install(on connection: Connection) throws {
        try connection.execute(createStatement(in: connection.dialect))
        try connection.run(
            "INSERT INTO _strata_meta (key, value) SELECT 'log_horizon', value FROM _strata_meta "
                + "WHERE key = 'generation' AND NOT EXISTS "
                + "(SELECT 1 FROM _strata_meta WHERE key = 'log_horizon')")
    }

    /// Whether the store the connection is open on has a log.
    static func exists(on connection: Connection) throws -> Bool {
        try connection.hasTable(table)
    }

    /// The generation of the last commit, as the connection's snapshot sees it.
    static func generation(on connection: Connection) throws -> UInt64 {
        guard case .integer(let value) = try connection.scalar(generationQuery(in: connection.dialect)) ?? .integer(0) else {
            throw StrataError.storage(path: connection.path, reason: "the commit generation is unreadable")
        }
        return UInt64(max(0, value))
    }

    /// Adds one to the store's generation, in the write transaction open on
    /// `connection`, and returns the new one: one statement, one round trip
    /// to a server. Returns `nil`, changing nothing, when the store no longer
    /// holds the schema of `fingerprint` (another stack migrated or recreated
    /// it since this one opened it).
    static func advanceGeneration(on connection: Connection, fingerprint: String) throws -> UInt64? {
        let dialect = connection.dialect
        let value = dialect.metaInteger("value")
        let result = try connection.scalar(
            "UPDATE _strata_meta SET value = \(dialect.metaValue("\(value) + 1")) WHERE key = 'generation' "
                + "AND EXISTS (SELECT 1 FROM _strata_meta WHERE key = 'fingerprint' AND value = ?) "
                + "RETURNING \(value)", [.text(fingerprint)])
        guard let result else { return nil }
        guard case .integer(let generation) = result, generation > 0 else {
            throw StrataError.storage(path: connection.path, reason: "the commit generation is unreadable")
        }
        return UInt64(generation)
    }

    /// The last generation purged from the log: history is complete after it.
    static func horizon(on connection: Connection) throws -> UInt64 {
        guard case .integer(let value) = try connection.scalar(
            "SELECT \(connection.dialect.metaInteger("value")) FROM _strata_meta WHERE key = 'log_horizon'"
        ) ?? .integer(0)
        else { return 0 }
        return UInt64(max(0, value))
    }

    /// Writes the record of a commit, inside its open transaction, and on a
    /// server announces the commit (``SQLDialect/announcingCommit(_:)``).
    static func append(
        generation: UInt64, author: String?, date: Date, entities: [String: LoggedChanges],
        on connection: Connection
    ) throws {
        let author = author.map(StoredValue.text) ?? .null
        if !connection.dialect.textHoldsNUL, author.isTextHoldingNUL {
            throw StrataError.textHoldingNUL(entity: table, field: "author")
        }
        let bytes = CommitRecordCoding.encode(entities)
        try connection.run(
            connection.dialect.announcingCommit(
                "INSERT INTO _strata_log (generation, author, time, changes) VALUES (?, ?, ?, ?)"),
            [.integer(Int64(generation)), author, .real(date.timeIntervalSince1970), .blob(Data(bytes))])
    }

    /// The records after `generation` up to `last` (all when `nil`), oldest
    /// first; only `author`'s when one is given. A record that cannot be read
    /// is left out, so a reader sees a hole in the generations.
    static func records(
        after generation: UInt64, through last: UInt64? = nil, author: String? = nil,
        on connection: Connection
    ) throws -> [CommitRecord] {
        var sql = "SELECT generation, author, time, changes FROM _strata_log WHERE generation > ?"
        var arguments: [StoredValue] = [.integer(Int64(clamping: generation))]
        if let last {
            sql += " AND generation <= ?"
            arguments.append(.integer(Int64(clamping: last)))
        }
        if let author {
            // No record holds NUL where text cannot (`append` refuses it).
            if !connection.dialect.textHoldsNUL, StoredValue.text(author).isTextHoldingNUL { return [] }
            sql += " AND author = ?"
            arguments.append(.text(author))
        }
        sql += " ORDER BY generation"
        return try connection.query(sql, arguments) { row -> CommitRecord? in
            guard let entities = CommitRecordCoding.decode(row.blobBytes(at: 3)) else { return nil }
            let author: String? = if case .text(let text) = row.value(at: 1) { text } else { nil }
            return CommitRecord(
                generation: UInt64(row.int64(at: 0)), author: author,
                date: Date(timeIntervalSince1970: row.double(at: 2)), entities: entities)
        }.compactMap { $0 }
    }

    /// Purges what `retention` lets go, inside the commit of `generation`
    /// (every ``HistoryRetention/purgeInterval`` commits).
    static func apply(
        _ retention: HistoryRetention, afterCommitting generation: UInt64, at date: Date, on connection: Connection
    ) throws {
        // Through the limits as the initializer clamps them: the properties
        // may be set to anything (a negative count trapped here).
        let (countLimit, ageLimit) = (retention.countLimit, retention.ageLimit)
        guard countLimit != nil || ageLimit != nil,
              generation % HistoryRetention.purgeInterval == 0
        else { return }
        let byCount = countLimit.map { generation > $0 ? generation - $0 : 0 } ?? 0
        let cut = ageLimit.map { date.addingTimeInterval(-$0) }
        try purge(through: byCount, olderThan: cut, on: connection)
    }

    /// Deletes the records up to `generation` (and, when `date` is given, the
    /// oldest records up to the first one made at or after it), inside the
    /// caller's write transaction, and moves the horizon. What stays is
    /// always every record after the horizon, even when the clocks of
    /// several processes disagree. Returns how many records went.
    /// A NaN `date` is refused: no record is older than it, and SQLite,
    /// comparing with the NULL it binds, would take every record for older.
    @discardableResult
    static func purge(through generation: UInt64, olderThan date: Date? = nil, on connection: Connection) throws -> Int {
        var last = generation
        if let date {
            guard !date.timeIntervalSince1970.isNaN else {
                throw StrataError.invalidValue(
                    entity: table, field: "time", reason: "the date to purge before is NaN")
            }
            // Walks the log from its oldest record and stops at the first recent one.
            let firstKept = try connection.scalar(
                "SELECT generation FROM _strata_log WHERE time >= ? ORDER BY generation LIMIT 1",
                [.real(date.timeIntervalSince1970)])
            if case .integer(let kept)? = firstKept {
                last = max(last, UInt64(max(0, kept - 1)))
            } else {
                last = .max  // every record is older
            }
        }
        last = min(last, try self.generation(on: connection))
        guard last > 0 else { return 0 }
        try connection.run("DELETE FROM _strata_log WHERE generation <= ?", [.integer(Int64(clamping: last))])
        let removed = connection.changes
        let dialect = connection.dialect
        let larger = dialect.greatest(
            dialect.metaInteger("_strata_meta.value"), dialect.metaInteger("excluded.value"))
        try connection.run(
            "INSERT INTO _strata_meta (key, value) VALUES ('log_horizon', ?) "
                + "ON CONFLICT (key) DO UPDATE SET value = \(dialect.metaValue(larger))",
            [.integer(Int64(clamping: last))])
        return removed
    }
}
