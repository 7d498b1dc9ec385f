import CSQLite
import Foundation

/// A prepared statement owned by a ``Connection``'s cache: SQLite's, or a
/// server's (``ServerStatement``) that the same calls reach.
final class Statement: ColumnReader {
    /// The SQLite statement; `nil` for a server's.
    private(set) var handle: OpaquePointer?
    /// The server's statement this runs on instead, if any.
    let server: (any ServerStatement)?
    let sql: String
    unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        if let server = connection.server {
            self.server = try server.statement(sql)
            return
        }
        self.server = nil
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(
            connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw connection.error(sql: sql)
        }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    func reset() {
        if let server { return server.reset() }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1...n: exactly as many values as the
    /// statement has parameters, or `SQLITE_RANGE` (a raw-SQL `Where` with
    /// fewer arguments than `?`s would otherwise bind NULL to the rest).
    func bind(_ values: [StoredValue]) throws {
        if let server { return try server.bind(values) }
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw DatabaseError(
                code: SQLITE_RANGE,
                message: "the statement has \(expected) parameter(s), \(values.count) argument(s) were given",
                sql: sql)
        }
        for (index, value) in values.enumerated() {
            try bind(value, at: Int32(index + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    func bind(_ value: StoredValue, at index: Int32) throws {
        if let server { return try server.bind(value, at: index) }
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let int):
            code = sqlite3_bind_int64(handle, index, int)
        case .real(let double):
            code = sqlite3_bind_double(handle, index, double)
        case .text(let string):
            var string = string
            code = string.withUTF8 { bytes in
                guard let base = bytes.baseAddress else {
                    return sqlite3_bind_text(handle, index, "", 0, strata_sqlite_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                    sqlite3_bind_text64(
                        handle, index, text, sqlite3_uint64(bytes.count), strata_sqlite_transient(),
                        UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sqlite3_bind_blob64(
                    handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    sqlite3_uint64(bytes.count), strata_sqlite_transient())
            }
        }
        try bound(code)
    }

    /// Runs a statement that returns no rows, binding `values` to its first
    /// parameters and `rowID` to the last (an insert lists `_pk` last, an
    /// update ends `WHERE _pk = ?`), and leaves it reset with no bindings.
    /// Texts and blobs are bound in place (`SQLITE_STATIC`) rather than
    /// copied by SQLite: each is bound inside the scope of its bytes, and the
    /// statement steps inside all of them, the only time SQLite reads a bound
    /// value. What a commit's writes run per row. The values are taken
    /// (`consuming`): the iterator takes over the caller's reference to a row
    /// array instead of retaining and releasing the array once more per row.
    func execute(_ values: consuming some Sequence<StoredValue>, rowID: Int64) throws {
        try execute(parameters: RowParameters(values.makeIterator(), rowID: rowID))
    }

    /// Binds every value `parameters` yields, from parameter 1 on, in place
    /// as ``execute(_:rowID:)`` does, and steps to the end: an insert of
    /// several rows (`VALUES (…), (…)`) takes each row's values and then its
    /// row ID, row after row.
    func execute(parameters: consuming some IteratorProtocol<StoredValue>) throws {
        var remaining = parameters
        if let server {
            server.reset()
            var parameter: Int32 = 1
            while let value = remaining.next() {
                try server.bind(value, at: parameter)
                parameter += 1
            }
            while try server.step() {}
            return
        }
        // A cached statement comes reset with no bindings, and leaves so:
        // resetting and clearing neither read nor free what was bound in place.
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        try bindInPlace(&remaining, from: 1, nesting: Self.inPlaceNesting)
    }

    /// How many texts and blobs one run binds in place, each a call deeper
    /// in the stack; later ones SQLite copies (an insert of many wide rows
    /// would otherwise nest a call per text).
    private static let inPlaceNesting = 128

    /// Binds what `remaining` holds from parameter `first` on, as
    /// ``execute(_:rowID:)`` describes; then steps to the end. `nesting` is
    /// how many more texts and blobs may be bound in place.
    private func bindInPlace(
        _ remaining: inout some IteratorProtocol<StoredValue>, from first: Int32, nesting: Int
    ) throws {
        var parameter = first
        while let value = remaining.next() {
            switch value {
            case .text(var string) where !string.isEmpty && nesting > 0:
                return try string.withUTF8 { bytes in
                    try bound(bytes.withMemoryRebound(to: CChar.self) { text in
                        sqlite3_bind_text64(
                            handle, parameter, text.baseAddress, sqlite3_uint64(text.count), nil,
                            UInt8(SQLITE_UTF8))
                    })
                    try bindInPlace(&remaining, from: parameter + 1, nesting: nesting - 1)
                }
            case .blob(let data) where !data.isEmpty && nesting > 0:
                return try data.withUnsafeBytes { bytes in
                    try bound(sqlite3_bind_blob64(
                        handle, parameter, bytes.baseAddress, sqlite3_uint64(bytes.count), nil))
                    try bindInPlace(&remaining, from: parameter + 1, nesting: nesting - 1)
                }
            default:
                try bind(value, at: parameter)
            }
            parameter += 1
        }
        while try step() {}
    }

    /// Throws the connection's error unless `code` is `SQLITE_OK`.
    private func bound(_ code: Int32) throws {
        if code != SQLITE_OK { throw connection.error(sql: sql) }
    }

    /// Steps once: `true` when a row is available, `false` when done.
    func step() throws -> Bool {
        if let server { return try server.step() }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// How many rows this statement's last run inserted, updated or deleted.
    var changes: Int {
        if let server { return server.changes }
        return connection.changes
    }

    /// How many columns the statement's rows have.
    var columnCount: Int32 {
        if let server { return server.columnCount }
        return sqlite3_column_count(handle)
    }

    /// The current row, read straight from SQLite (for an SQLite statement only).
    var sqliteRow: SQLiteRow { SQLiteRow(handle: handle) }

    func int64(at index: Int32) -> Int64 {
        if let server { return server.int64(at: index) }
        return sqliteRow.int64(at: index)
    }

    /// The storage class of column `index` of the current row
    /// (`SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB`, `SQLITE_NULL`).
    func columnType(at index: Int32) -> Int32 {
        if let server { return server.columnType(at: index) }
        return sqliteRow.columnType(at: index)
    }

    func double(at index: Int32) -> Double {
        if let server { return server.double(at: index) }
        return sqliteRow.double(at: index)
    }

    /// The UTF-8 bytes of column `index`, valid until the statement steps or
    /// resets; empty for NULL.
    func textBytes(at index: Int32) -> UnsafeRawBufferPointer {
        if let server { return server.textBytes(at: index) }
        return sqliteRow.textBytes(at: index)
    }

    /// The bytes of blob column `index`, valid until the statement steps or
    /// resets; empty for NULL or an empty blob.
    func blobBytes(at index: Int32) -> UnsafeRawBufferPointer {
        if let server { return server.blobBytes(at: index) }
        return sqliteRow.blobBytes(at: index)
    }

    /// The value of column `index` of the current row, in its storage class.
    func value(at index: Int32) -> StoredValue {
        if let server { return server.value(at: index) }
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count),
                                as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else {
                return .blob(Data())
            }
            return .blob(Data(bytes: bytes, count: count))
        default:
            return .null
        }
    }
}

/// The current row of an SQLite statement, read from its handle with no
/// other look: what a loop over many values uses (`RowBatch`).
struct SQLiteRow: ColumnReader {
    let handle: OpaquePointer?

    func columnType(at index: Int32) -> Int32 { sqlite3_column_type(handle, index) }
    func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
    func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    func textBytes(at index: Int32) -> UnsafeRawBufferPointer {
        bytes(sqlite3_column_text(handle, index).map(UnsafeRawPointer.init), at: index)
    }

    func blobBytes(at index: Int32) -> UnsafeRawBufferPointer {
        bytes(sqlite3_column_blob(handle, index), at: index)
    }

    /// `start` with column `index`'s length, read after the pointer as SQLite requires.
    private func bytes(_ start: UnsafeRawPointer?, at index: Int32) -> UnsafeRawBufferPointer {
        guard let start else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Column `index` of the current row, for a caller that reads its
    /// storage class and then its value: one `sqlite3_column_*` call where
    /// the column functions take one each for the class, the value and a
    /// text's length (each of them finds the column, checks the statement
    /// and its error state again).
    func column(at index: Int32) -> SQLiteColumn {
        SQLiteColumn(value: sqlite3_column_value(handle, index))
    }
}

/// A value of an SQLite statement's current row, valid until the statement
/// steps or resets. SQLite calls it unprotected: its `sqlite3_value_*` reads
/// take no connection mutex, which is what a connection opened
/// `SQLITE_OPEN_NOMUTEX` and used by one caller at a time (every Strata
/// connection) does anyway. They convert the value as the column functions do.
struct SQLiteColumn {
    let value: OpaquePointer?

    /// The storage class (`SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, …).
    var storageClass: Int32 { sqlite3_value_type(value) }
    var int64: Int64 { sqlite3_value_int64(value) }
    var double: Double { sqlite3_value_double(value) }

    /// The UTF-8 bytes; empty for NULL.
    var textBytes: UnsafeRawBufferPointer {
        bytes(sqlite3_value_text(value).map(UnsafeRawPointer.init))
    }

    /// The bytes of a blob; empty for NULL or an empty blob.
    var blobBytes: UnsafeRawBufferPointer { bytes(sqlite3_value_blob(value)) }

    /// `start` with the value's length, read after the pointer as SQLite requires.
    private func bytes(_ start: UnsafeRawPointer?) -> UnsafeRawBufferPointer {
        guard let start else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: start, count: Int(sqlite3_value_bytes(value)))
    }
}

/// A row's values and then its row ID, as one run of parameters.
private struct RowParameters<Values: IteratorProtocol<StoredValue>>: IteratorProtocol {
    var values: Values
    var rowID: Int64?

    init(_ values: Values, rowID: Int64) {
        self.values = values
        self.rowID = rowID
    }

    mutating func next() -> StoredValue? {
        if let value = values.next() { return value }
        defer { rowID = nil }
        return rowID.map { .integer($0) }
    }
}

