/// The engines Strata's SQL runs on, and how each spells what they spell
/// differently. Everything else is written once, in the SQL both accept.
package enum SQLDialect: Sendable {
    case sqlite
    case postgreSQL

    /// How a column of storage class `storageClass` (`INTEGER`, `REAL`,
    /// `TEXT`, `BLOB`, or empty for any) is declared.
    func columnType(_ storageClass: String) -> String {
        switch (self, storageClass) {
        // No declared type for doubles: a REAL column would store -0.0 as the integer 0.
        case (.sqlite, "REAL"): return ""
        case (.sqlite, _): return storageClass
        case (.postgreSQL, "INTEGER"): return "BIGINT"
        case (.postgreSQL, "REAL"): return "DOUBLE PRECISION"
        // Byte order, as SQLite's BINARY collation compares, whatever the database's locale.
        case (.postgreSQL, "TEXT"): return "TEXT COLLATE \"C\""
        case (.postgreSQL, "BLOB"): return "BYTEA"
        case (.postgreSQL, _): return "TEXT COLLATE \"C\""
        }
    }

    /// The type a `CAST` to storage class `storageClass` (`INTEGER`, `REAL`,
    /// `TEXT`, `BLOB`) names. (PostgreSQL's `REAL` is a 4-byte float.)
    func castType(_ storageClass: String) -> String {
        switch self {
        case .sqlite: return storageClass
        case .postgreSQL:
            switch storageClass {
            case "INTEGER": return "BIGINT"
            case "REAL": return "DOUBLE PRECISION"
            case "BLOB": return "BYTEA"
            default: return "TEXT"
            }
        }
    }

    /// `expression`, a text, as the bytes of its UTF-8. (PostgreSQL's `CAST`
    /// to `BYTEA` would read backslashes in the text as escapes.)
    func utf8Bytes(of expression: String) -> String {
        switch self {
        case .sqlite: return "CAST(\(expression) AS BLOB)"
        case .postgreSQL: return "convert_to(\(expression), 'UTF8')"
        }
    }

    /// The longest identifier the engine keeps whole, in UTF-8 bytes: 63 for
    /// PostgreSQL, which cuts longer ones (`NAMEDATALEN` - 1); SQLite has no
    /// limit (`Int.max`).
    package var identifierLimit: Int {
        switch self {
        case .sqlite: return .max
        case .postgreSQL: return 63
        }
    }

    /// The name a table, column or index named `name` has in the store.
    ///
    /// Strata's SQL always names things by their schema names; only the
    /// catalogue holds stored names. On SQLite the two are the same. PostgreSQL
    /// cuts identifiers past ``identifierLimit``, so that two long names
    /// (`_strata_link_<Entity>_<field>`, say) could become one and a cut
    /// name would not be found again: there a longer name keeps its first 46
    /// bytes (so its `_strata_link_` or `_strata_migrating_` prefix too) and
    /// ends in `_` and 16 hex digits of a hash of the whole name, 63 bytes in
    /// all. The PostgreSQL session applies this to every quoted identifier of
    /// a statement it sends; what reads the catalogue compares stored names.
    package func storedName(_ name: String) -> String {
        let limit = identifierLimit
        guard name.utf8.count > limit else { return name }
        var hash: UInt64 = 14_695_981_039_346_656_037  // FNV-1a, the same in every process
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let digits = String(hash, radix: 16)
        var kept = ""  // whole characters only: a name may be UTF-8 in a hook's SQL
        var keptLength = 0
        for scalar in name.unicodeScalars {
            keptLength += UTF8.width(scalar)
            if keptLength > limit - 17 { break }
            kept.unicodeScalars.append(scalar)
        }
        return kept + "_" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Whether text can hold U+0000 (NUL): SQLite's can; PostgreSQL's cannot,
    /// and its server fails the statement (error 22021), which ends the
    /// transaction. So there Strata refuses such a value before it is sent,
    /// naming the field: ``StrataError/textHoldingNUL(entity:field:)``.
    var textHoldsNUL: Bool { self == .sqlite }

    /// Ends a `CREATE TABLE` whose table needs no row ID of its own.
    var withoutRowID: String {
        switch self {
        case .sqlite: return "WITHOUT ROWID"
        case .postgreSQL: return ""
        }
    }

    /// `_strata_meta`'s value column as an integer: SQLite's column takes
    /// either kind, PostgreSQL's holds text.
    func metaInteger(_ expression: String) -> String {
        switch self {
        case .sqlite: return expression
        case .postgreSQL: return "CAST(\(expression) AS BIGINT)"
        }
    }

    /// An expression stored into `_strata_meta`'s value column.
    func metaValue(_ expression: String) -> String {
        switch self {
        case .sqlite: return expression
        case .postgreSQL: return "CAST(\(expression) AS TEXT)"
        }
    }

    /// The larger of two values.
    func greatest(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: return "max(\(first), \(second))"
        case .postgreSQL: return "GREATEST(\(first), \(second))"
        }
    }

    /// The average of a number column as a `Double`, computed as SQLite
    /// computes it: the values summed as doubles, then divided by their count.
    /// PostgreSQL's `avg` of integers is an exact `numeric`, whose decimal
    /// text can round to a neighbouring `Double`.
    func average(_ expression: String) -> String {
        switch self {
        case .sqlite: return "avg(\(expression))"
        case .postgreSQL: return "avg(CAST(\(expression) AS DOUBLE PRECISION))"
        }
    }

    /// The smallest or largest (`function`: `min`, `max`) of a blob column,
    /// byte by byte, as SQLite compares blobs. PostgreSQL has no `min` or
    /// `max` of `bytea`; its hex text, compared in the "C" collation, sorts alike.
    func blobExtreme(_ function: String, _ expression: String) -> String {
        switch self {
        case .sqlite: return "\(function)(\(expression))"
        case .postgreSQL:
            return "decode(\(function)(encode(\(expression), 'hex') COLLATE \"C\"), 'hex')"
        }
    }

    /// A text or blob column read as a number, as SQLite's `sum` and `avg`
    /// read one: its leading number, or 0 when it does not start with one;
    /// NULL stays NULL. PostgreSQL has no `sum` or `avg` of text and refuses
    /// the query; there a blob, read as its `\x` hex text, is 0.
    func leadingNumber(_ expression: String) -> String {
        switch self {
        case .sqlite: return expression
        case .postgreSQL:
            return "CASE WHEN \(expression) IS NULL THEN NULL ELSE coalesce(CAST(substring("
                + "CAST(\(expression) AS TEXT) from '^\\s*([-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)"
                + "([eE][-+]?[0-9]+)?)') AS DOUBLE PRECISION), 0.0) END"
        }
    }

    /// The sum of an integer column as an integer that fails past `Int64`'s
    /// range, as SQLite's `sum` does ("integer overflow"). PostgreSQL's `sum`
    /// of a `bigint` is an exact `numeric`, which would come back past that
    /// range as the nearest `Double`; as a `bigint` it fails (SQLSTATE 22003).
    func integerSum(_ expression: String) -> String {
        switch self {
        case .sqlite: return "sum(\(expression))"
        case .postgreSQL: return "CAST(sum(\(expression)) AS BIGINT)"
        }
    }

    /// Begins a write transaction that holds the store's write lock from its
    /// first statement, so that what it reads stays true until it commits:
    /// SQLite's `BEGIN IMMEDIATE`; on PostgreSQL, an advisory lock named
    /// after the store's schema, released with the transaction.
    package var beginWrite: String {
        switch self {
        case .sqlite: return "BEGIN IMMEDIATE"
        case .postgreSQL: return "BEGIN; " + Self.writeLock(schema: "current_schema()")
        }
    }

    /// ``beginWrite`` for a transaction that waits at most `milliseconds`
    /// for the write lock, as SQLite's busy timeout bounds `BEGIN IMMEDIATE`
    /// (the SQLite connection has it already): on PostgreSQL the wait is
    /// bounded by `SET LOCAL lock_timeout`, whose error (55P03) reads as
    /// SQLite's busy one. Without it a writer waited for as long as another
    /// stack held the lock: for ever, behind an unsafe transaction left open.
    func beginWrite(waitingAtMost milliseconds: Int32) -> String {
        switch self {
        case .sqlite: return beginWrite
        case .postgreSQL:
            // 0 would mean no limit on PostgreSQL, where SQLite's 0 means no wait.
            return "BEGIN; SET LOCAL lock_timeout = \(max(1, milliseconds)); "
                + Self.writeLock(schema: "current_schema()")
        }
    }

    /// On PostgreSQL, the statements that take the store's write lock for the
    /// rest of the session and release it: held while a store is opened, so
    /// that a server reading the store's version and creating or migrating
    /// it is alone (the transactions inside take the same lock again, which
    /// a session that holds it always gets). `nil` on SQLite.
    var sessionWriteLock: (lock: String, unlock: String)? {
        switch self {
        case .sqlite: return nil
        case .postgreSQL:
            let key = "\(Self.advisoryLockClass), hashtext(current_schema())"
            return ("SELECT pg_advisory_lock(\(key))", "SELECT pg_advisory_unlock(\(key))")
        }
    }

    /// The PostgreSQL statement that takes the write lock of the store in the
    /// schema `schema` (an SQL expression) until the transaction ends.
    package static func writeLock(schema: String) -> String {
        "SELECT pg_advisory_xact_lock(\(advisoryLockClass), hashtext(\(schema)))"
    }

    /// The statement that writes a commit's log record, given the `INSERT`
    /// that writes it. On PostgreSQL it also wakes the stacks that follow
    /// the store, in the same round trip, with the generation as payload:
    /// the server delivers the notification when the transaction commits, to
    /// every connection listening on the store's channel
    /// (``commitChannel(_:)``, which each session of the store sets as
    /// ``commitChannelSetting``). SQLite's followers poll the file's data
    /// version instead.
    func announcingCommit(_ insert: String) -> String {
        switch self {
        case .sqlite:
            return insert
        case .postgreSQL:
            let channel = "coalesce(current_setting('\(Self.commitChannelSetting)', TRUE), "
                + "'strata:' || current_schema())"
            return "WITH logged AS (\(insert) RETURNING generation) "
                + "SELECT pg_notify(\(channel), CAST(generation AS TEXT)) FROM logged"
        }
    }

    /// The channel a PostgreSQL store's commits are announced on, for the
    /// store in schema `schema`: `strata:<schema>`, a name like any other,
    /// so that past 63 bytes (a schema name of 57 or more) it is its
    /// ``storedName(_:)``, where the server would refuse to notify it.
    package static func commitChannel(_ schema: String) -> String {
        SQLDialect.postgreSQL.storedName("strata:" + schema)
    }

    /// The session setting that holds the store's ``commitChannel(_:)``, set
    /// by every session of the store as it connects: the statement that
    /// announces a commit is the same for every store, and the channel's
    /// hash is computed once, in Swift.
    package static let commitChannelSetting = "strata.commit_channel"

    /// The first key of Strata's advisory locks, so that they do not meet an
    /// application's own (which use one key, or other classes).
    static let advisoryLockClass = 0x5354_5241  // "STRA"

    /// `IN (…)`: membership in a list of row IDs bound as one
    /// ``SQL/rowIDList(_:)`` parameter (a JSON array), however long.
    var inRowIDList: String {
        switch self {
        case .sqlite: return "IN (SELECT value FROM json_each(?))"
        case .postgreSQL:
            return "IN (SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(? AS JSON)))"
        }
    }

    /// Whether a statement that fails ends the transaction it runs in:
    /// PostgreSQL then refuses every statement until the rollback (SQLSTATE
    /// 25P02), where SQLite undoes only the failed statement.
    var failedStatementEndsTransaction: Bool { self == .postgreSQL }

    /// Begins a read transaction whose statements all read one snapshot.
    /// (PostgreSQL's default, READ COMMITTED, takes a new one per statement.)
    var beginRead: String {
        switch self {
        case .sqlite: return "BEGIN"
        case .postgreSQL: return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        }
    }
}
