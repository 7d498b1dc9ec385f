import CSQLite

/// What a ``MigrationStage`` hook may do with the store being migrated: read,
/// with values bound as parameters. It cannot write, and it is valid only while
/// the hook runs.
public final class MigrationContext {
    /// The version whose tables the store holds while the hook runs.
    public let schemaVersion: String
    private var connection: Connection?
    private let schema: Schema

    init(connection: Connection, schema: Schema) {
        self.connection = connection
        self.schema = schema
        self.schemaVersion = schema.version
    }

    func invalidate() { connection = nil }

    /// The number of objects of `entity`: `SELECT count(*) FROM "<entity>"`.
    ///
    /// - Throws: ``StrataError/invalidSchema(entity:field:reason:)`` when the
    ///   version has no such entity.
    public func count(_ entity: String) throws -> Int {
        guard let description = schema.entities.first(where: { $0.name == entity }) else {
            throw StrataError.invalidSchema(
                entity: entity, field: nil, reason: "version \(schemaVersion) has no such entity")
        }
        let rows = try query("SELECT count(*) FROM \(description.quotedTable)")
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
    public func query(_ sql: String, _ arguments: [StoredValue] = []) throws -> [[StoredValue]] {
        guard let connection else {
            throw StrataError.sqlite(
                code: SQLITE_MISUSE, message: "the migration context is used after its hook returned",
                sql: sql)
        }
        do {
            let statement = try Statement(connection: connection, sql: sql)
            guard sqlite3_stmt_readonly(statement.handle) != 0 else {
                throw StrataError.sqlite(
                    code: SQLITE_READONLY, message: "a migration hook may only read", sql: sql)
            }
            try statement.bind(arguments)
            let count = sqlite3_column_count(statement.handle)
            var rows: [[StoredValue]] = []
            while try statement.step() {
                rows.append((0..<count).map { statement.value(at: $0) })
            }
            return rows
        } catch {
            throw StrataError.wrapping(error)
        }
    }
}
