import CSQLite

/// What a ``MigrationStage`` hook may do with the store being migrated: read
/// and write its objects' rows with SQL, values bound as parameters, inside
/// the migration's transaction — so a hook that fails, or any later step,
/// leaves the store at its old version with none of the hook's writes. It is
/// valid only while the hook runs.
///
/// ```swift
/// MigrationStage(from: "V1", to: "V2", didMigrate: { context in
///     try context.execute("UPDATE \"Person\" SET \"email\" = NULL WHERE \"email\" = ?", [.text("")])
/// })
/// ```
public final class MigrationContext {
    /// The version whose tables the store holds while the hook runs.
    public let schemaVersion: String
    /// The configuration of the store being migrated: `nil` for the default
    /// store. A stack of several configurations migrates each store on its
    /// own, with the same hooks, so a hook that writes an entity only some
    /// stores hold asks first:
    ///
    /// ```swift
    /// MigrationStage(from: "V1", to: "V2", didMigrate: { context in
    ///     guard context.entityNames.contains("Person") else { return }   // e.g. the "Cache" store
    ///     try context.execute("UPDATE \"Person\" SET \"email\" = NULL WHERE \"email\" = ?", [.text("")])
    /// })
    /// ```
    public let configuration: String?
    /// The entities of ``schemaVersion`` that this store holds (those of its
    /// configuration), by name.
    public var entityNames: [String] { schema.entityNames }
    private var connection: Connection?
    private let schema: Schema

    init(connection: Connection, schema: Schema, configuration: String?) {
        self.connection = connection
        self.schema = schema
        self.schemaVersion = schema.version
        self.configuration = configuration
    }

    func invalidate() { connection = nil }

    /// The number of objects of `entity`: `SELECT count(*) FROM "<entity>"`
    /// (in an inheritance tree, of the entity and its subentities, from the tree's table).
    ///
    /// - Throws: ``StrataError/invalidSchema(entity:field:reason:)`` when the
    ///   version has no such entity.
    public func count(_ entity: String) throws(StrataError) -> Int {
        guard let description = schema.entities.first(where: { $0.name == entity }) else {
            throw .invalidSchema(
                entity: entity, field: nil, reason: "version \(schemaVersion) has no such entity")
        }
        let ofEntity = description.discriminatorCondition(alias: nil)
        let rows = try query(
            "SELECT count(*) FROM \(description.quotedTable)" + (ofEntity.map { " WHERE " + $0.sql } ?? ""),
            ofEntity?.arguments ?? [])
        guard case .integer(let count)? = rows.first?.first else { return 0 }
        return Int(count)
    }

    /// The rows of one read-only statement, `arguments` bound to its `?`
    /// parameters. Every row is held in memory: keep results small.
    ///
    /// - Throws: ``StrataError/sqlite(code:message:sql:)``: code 8
    ///   (`SQLITE_READONLY`) for a statement that would write, 21 (`SQLITE_MISUSE`)
    ///   for a context used after its hook returned, SQLite's own code for SQL
    ///   that does not run.
    public func query(
        _ sql: String, _ arguments: [StoredValue] = []
    ) throws(StrataError) -> [[StoredValue]] {
        try run(sql, arguments, writing: false) { statement in
            var rows: [[StoredValue]] = []
            while try statement.step() {
                rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
            }
            return rows
        }
    }

    /// Runs one statement that writes rows of the version's tables —
    /// `INSERT`, `UPDATE`, `DELETE` (with `RETURNING`, its rows are dropped)
    /// — with `arguments` bound to its `?` parameters, and returns how many
    /// rows it changed.
    ///
    /// Only rows are written: a statement that would end or nest the
    /// migration's transaction, attach a database, change a table's shape,
    /// set a pragma, or write Strata's own `_strata_` tables is refused, so
    /// the migration stays one transaction that commits or rolls back whole.
    ///
    /// - Throws: ``StrataError/sqlite(code:message:sql:)``: code 23
    ///   (`SQLITE_AUTH`) for a refused statement, 21 (`SQLITE_MISUSE`) for a
    ///   context used after its hook returned, SQLite's own code (a
    ///   constraint, say) for a statement that fails.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [StoredValue] = []) throws(StrataError) -> Int {
        try run(sql, arguments, writing: true) { statement in
            while try statement.step() {}
            return statement.changes
        }
    }

    private func run<Result>(
        _ sql: String, _ arguments: [StoredValue], writing: Bool, _ body: (Statement) throws -> Result
    ) throws(StrataError) -> Result {
        guard let connection else {
            throw .sqlite(
                code: SQLITE_MISUSE, message: "the migration context is used after its hook returned",
                sql: sql)
        }
        do {
            if connection.server != nil { try RowStatement.check(sql, writing: writing) }
            let statement = try connection.preparingRowStatementsOnly { try Statement(connection: connection, sql: sql) }
            guard writing || connection.server != nil || sqlite3_stmt_readonly(statement.handle) != 0 else {
                throw StrataError.sqlite(
                    code: SQLITE_READONLY, message: "query only reads: write with execute", sql: sql)
            }
            try statement.bind(arguments)
            return try body(statement)
        } catch let error as DatabaseError where error.primaryCode == SQLITE_AUTH {
            throw .sqlite(
                code: SQLITE_AUTH,
                message: "a migration hook reads and writes rows only: no transaction control, ATTACH, "
                    + "schema change, pragma or write to Strata's own tables",
                sql: sql)
        } catch {
            throw StrataError.wrapping(error)
        }
    }
}

extension Connection {
    /// Prepares with an authorizer that allows reading and writing rows of
    /// the user's tables only, and removes it after.
    fileprivate func preparingRowStatementsOnly<Result>(_ prepare: () throws -> Result) rethrows -> Result {
        guard server == nil else { return try prepare() }  // checked by RowStatement before
        sqlite3_set_authorizer(handle, rowStatementsOnly, nil)
        defer { sqlite3_set_authorizer(handle, nil, nil) }
        return try prepare()
    }
}

private let rowStatementsOnly: @convention(c) (
    UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
    UnsafePointer<CChar>?
) -> Int32 = { _, action, table, _, _, _ in
    switch action {
    case SQLITE_SELECT, SQLITE_READ, SQLITE_FUNCTION, SQLITE_RECURSIVE:
        return SQLITE_OK
    case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
        let name = table.map { String(cString: $0) } ?? ""
        return name.lowercased().hasPrefix("_strata_") && !name.lowercased().hasPrefix("_strata_link_")
            ? SQLITE_DENY : SQLITE_OK
    default:
        return SQLITE_DENY
    }
}

/// What SQLite's authorizer allows a migration hook, told from the text of a
/// statement for a server, which has no authorizer: one statement (the
/// server prepares no more) that begins with `SELECT`, `VALUES`, `TABLE` or
/// `WITH` to read, or also `INSERT`, `UPDATE`, `DELETE` to write; none that
/// creates a table (`SELECT … INTO`), and none that writes a `_strata_` table
/// but a relationship's link table. The words are looked for outside quotes
/// and comments.
enum RowStatement {
    static func check(_ sql: String, writing: Bool) throws {
        let words = Self.words(of: sql)
        let writes: Set<String> = ["INSERT", "UPDATE", "DELETE", "MERGE"]
        let reads: Set<String> = ["SELECT", "VALUES", "TABLE", "WITH"]
        guard let first = words.first, reads.contains(first) || writes.contains(first) else {
            throw refusal(sql)
        }
        // `SELECT … INTO t` creates a table; only `INSERT INTO` may say INTO.
        let intos = words.filter { $0 == "INTO" }.count
        if intos > (words.contains("INSERT") ? 1 : 0) { throw refusal(sql) }
        let writesRows = words.contains { writes.contains($0) }
        for (word, next) in zip(words, words.dropFirst())
        where ["INTO", "UPDATE", "FROM"].contains(word) && writesRows {
            // As written: a name in full, or its stored name past 63 bytes
            // (SQLDialect.storedName), which keeps the first 46, prefix included.
            let table = next.trimmingPrefix("\"").lowercased()
            if table.hasPrefix("_strata_"), !table.hasPrefix("_strata_link_") { throw refusal(sql) }
        }
        guard writing || !writesRows else {
            throw StrataError.sqlite(code: SQLITE_READONLY, message: "query only reads: write with execute", sql: sql)
        }
    }

    private static func refusal(_ sql: String) -> StrataError {
        .sqlite(
            code: SQLITE_AUTH,
            message: "a migration hook reads and writes rows only: no transaction control, ATTACH, "
                + "schema change, pragma or write to Strata's own tables",
            sql: sql)
    }

    /// The statement's words, keywords and unquoted names in upper case,
    /// quoted names as written after a `"`; string literals and comments left out.
    static func words(of sql: String) -> [String] {
        var words: [String] = []
        var word = ""
        func flush() {
            if !word.isEmpty { words.append(word.uppercased()) }
            word = ""
        }
        var iterator = Array(sql.unicodeScalars).makeIterator()
        var pending: Unicode.Scalar?
        while let scalar = pending ?? iterator.next() {
            pending = nil
            switch scalar {
            case "'":  // a string literal
                flush()
                while let next = iterator.next(), next != "'" {}
            case "\"":  // a quoted name
                flush()
                var name = "\""
                while let next = iterator.next(), next != "\"" { name.unicodeScalars.append(next) }
                words.append(name)
            case "-", "/":
                flush()
                let next = iterator.next()
                if scalar == "-", next == "-" {
                    while let next = iterator.next(), next != "\n" {}
                } else if scalar == "/", next == "*" {
                    var last: Unicode.Scalar = " "
                    while let next = iterator.next(), !(last == "*" && next == "/") { last = next }
                } else {
                    pending = next
                }
            case _ where scalar.properties.isAlphabetic || scalar == "_" || ("0"..."9").contains(scalar):
                word.unicodeScalars.append(scalar)
            default:
                flush()
            }
        }
        flush()
        return words
    }
}
