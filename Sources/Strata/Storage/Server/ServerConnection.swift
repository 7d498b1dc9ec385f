/// A connection to a database server: what the PostgreSQL store (module
/// `StrataPostgreSQL`) gives a ``Connection`` to run on instead of an SQLite
/// handle.
///
/// The SQL is the same on both engines where they agree, written with
/// SQLite's `?` placeholders; where they differ, the ``SQLDialect`` of the
/// connection says how. Errors are ``DatabaseError``s with SQLite's codes.
package protocol ServerConnection: AnyObject {
    /// Runs one or more statements that take no arguments.
    func execute(_ sql: String) throws
    /// The prepared statement for `sql`, cached by the connection, reset.
    func statement(_ sql: String) throws -> any ServerStatement
    /// Whether a transaction is open.
    var isInTransaction: Bool { get }
    /// Counts the connections made: it moves when the connection was lost
    /// and made again, after which commits may have been missed.
    var connectionNumber: Int { get }
    /// Closes the connection.
    func close()
}

/// Reads the columns of a statement's current row by storage class.
package protocol ColumnReader {
    /// The storage class of column `index`, in SQLite's codes (`SQLITE_INTEGER`, …).
    func columnType(at index: Int32) -> Int32
    func int64(at index: Int32) -> Int64
    func double(at index: Int32) -> Double
    func textBytes(at index: Int32) -> UnsafeRawBufferPointer
    func blobBytes(at index: Int32) -> UnsafeRawBufferPointer
}

/// A statement prepared on a server, read row by row like an SQLite statement.
package protocol ServerStatement: AnyObject, ColumnReader {
    func reset()
    func bind(_ values: [StoredValue]) throws
    /// Binds one value to the 1-based parameter `index`; parameters are bound
    /// in order after a reset (1, 2, 3, …), as Strata's own statements do.
    func bind(_ value: StoredValue, at index: Int32) throws
    func step() throws -> Bool
    /// How many rows the current run returned in all, known from its first
    /// step on (a server's result arrives whole); 0 before the first step.
    /// A fetch sizes its result and its first row batch by it.
    var resultRowCount: Int { get }
    /// How many rows the last run inserted, updated or deleted.
    var changes: Int { get }
    var columnCount: Int32 { get }
    func value(at index: Int32) -> StoredValue
    /// Reads `count` columns of the current row, from column `first` on, into
    /// `values` (initializing each), as ``ColumnReader/columnType(at:)`` and
    /// the typed reads would value by value: what a fetch's row batch calls,
    /// one call a row rather than two or three a value.
    func readColumns(
        from first: Int32, count: Int, into values: UnsafeMutablePointer<ServerColumnValue>)
}
