import CLibPQ
import CSQLite
import Foundation
import Strata

/// A statement prepared on the server, read like SQLite's: bind, step row by
/// row, read columns by storage class.
///
/// The SQL is written once for both engines, with SQLite's `?` placeholders;
/// they become `$1…$n` here, and names past 63 bytes their stored ones
/// (``ServerSQL``). Values travel in binary, converted to the type the
/// server inferred for each parameter (an `.integer` compared with a
/// `DOUBLE PRECISION` column is sent as a float8), and rows come back in
/// binary: no number is printed and parsed on the way.
final class PostgreSQLStatement: ServerStatement {
    let sql: String
    let name: String
    let session: PostgreSQLSession
    /// The type the server inferred for each parameter.
    private let parameterTypes: [Oid]
    private var parameters = ParameterBuffer()
    private var result: OpaquePointer?
    private var row: Int32 = -1
    private var rowCount: Int32 = 0
    /// The result's column types, read once a run for ``readColumns(from:count:into:)``
    /// (in a buffer, not an array: no exclusivity or bounds check a value).
    private var resultTypes = UnsafeMutableBufferPointer<Oid>.allocate(capacity: 8)
    private var resultColumnCount: Int32 = 0

    /// The session's connection it was prepared on: after a reconnect it no
    /// longer exists there, and is prepared again before it runs.
    private var connectionNumber: Int

    init(session: PostgreSQLSession, name: String, sql: String) throws {
        self.session = session
        self.connectionNumber = session.connectionNumber
        self.name = name
        self.sql = sql
        try Self.prepare(sql, as: name, on: session)
        let description = PQdescribePrepared(session.handle, name)
        defer { PQclear(description) }
        try session.check(description, sql: sql)
        parameterTypes = (0..<PQnparams(description)).map { PQparamtype(description, $0) }
    }

    /// Frees the statement on the server too, unless the connection is gone
    /// or its transaction failed (then it goes with the connection).
    deinit {
        if let result { PQclear(result) }
        resultTypes.deallocate()
        if session.isConnected, session.connectionNumber == connectionNumber, !session.isInFailedTransaction {
            PQclear(PQexec(session.handle, "DEALLOCATE \(name)"))
        }
    }

    /// Forgets the last result and the bound values.
    func reset() {
        if let result { PQclear(result) }
        result = nil
        row = -1
        rowCount = 0
        resultColumnCount = 0
        parameters.removeAll()
    }

    /// Binds `values` to the parameters, converted to the types the server
    /// inferred; throws `SQLITE_RANGE` for a wrong count and `SQLITE_MISMATCH`
    /// for a value the type cannot hold.
    func bind(_ values: [StoredValue]) throws {
        guard values.count == parameterTypes.count else { throw countError(given: values.count) }
        for (index, value) in values.enumerated() { try bind(value, at: Int32(index + 1)) }
    }

    /// Binds `value` to parameter `index`, which must be the next one: 1 after
    /// a reset, then 2, 3, … (the values go into one buffer in order).
    func bind(_ value: StoredValue, at index: Int32) throws {
        if index == 1 { parameters.removeAll() }
        guard Int(index) == parameters.count + 1, Int(index) <= parameterTypes.count else {
            throw DatabaseError(
                code: SQLITE_RANGE,
                message: "parameter \(index) bound out of order or out of range "
                    + "(\(parameterTypes.count) parameters)",
                sql: sql)
        }
        let type = parameterTypes[Int(index) - 1]
        guard parameters.append(value, as: type) else {
            throw DatabaseError(
                code: SQLITE_MISMATCH,
                message: "a \(value.kindName) value cannot be sent as PostgreSQL type \(type)",
                sql: sql)
        }
    }

    /// Runs the statement on the first call, then moves row by row: `true`
    /// while a row is available.
    func step() throws -> Bool {
        if result == nil {
            try execute()
            row = 0
        } else {
            row += 1
        }
        return row < rowCount
    }

    var resultRowCount: Int { Int(rowCount) }

    /// How many rows the last run changed (`INSERT`, `UPDATE`, `DELETE`).
    var changes: Int {
        guard let result, let text = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    private func execute() throws {
        guard parameters.count == parameterTypes.count else { throw countError(given: parameters.count) }
        // A connection the server closed is made again here too (outside a
        // transaction), and the statement prepared on it.
        try session.reconnectIfNeededOutsideTransaction()
        if connectionNumber != session.connectionNumber {
            try Self.prepare(sql, as: name, on: session)
            connectionNumber = session.connectionNumber
        }
        let count = Int32(parameters.count)
        let run = parameters.withParameterArrays { values, lengths, formats in
            PQexecPrepared(session.handle, name, count, values, lengths, formats, 1)
        }
        do {
            try session.check(run, sql: sql)
        } catch {
            PQclear(run)
            throw error
        }
        result = run
        rowCount = PQntuples(run)
        let columns = PQnfields(run)
        if Int(columns) > resultTypes.count {
            resultTypes.deallocate()
            resultTypes = .allocate(capacity: Int(columns))
        }
        for column in 0..<columns { resultTypes[Int(column)] = PQftype(run, column) }
        resultColumnCount = columns
    }

    /// Prepares `sql` on the session's connection under `name`.
    private static func prepare(
        _ sql: String, as name: String, on session: PostgreSQLSession
    ) throws {
        let serverSQL = ServerSQL.translated(sql, numberingPlaceholders: true)
        let prepared = PQprepare(session.handle, name, serverSQL, 0, nil)
        defer { PQclear(prepared) }
        try session.check(prepared, sql: sql)
    }

    /// `SQLITE_RANGE`: `given` values for a statement that takes another number.
    private func countError(given: Int) -> DatabaseError {
        DatabaseError(
            code: SQLITE_RANGE,
            message: "the statement has \(parameterTypes.count) parameter(s), \(given) argument(s) were given",
            sql: sql)
    }

    // MARK: Columns of the current row

    var columnCount: Int32 { result.map { PQnfields($0) } ?? 0 }

    /// The storage class of column `index`, as SQLite names them
    /// (`SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB`, `SQLITE_NULL`).
    func columnType(at index: Int32) -> Int32 {
        guard let result, PQgetisnull(result, row, index) == 0 else { return SQLITE_NULL }
        switch type(at: index) {
        case PostgreSQLType.int8, PostgreSQLType.int4, PostgreSQLType.int2, PostgreSQLType.bool,
            PostgreSQLType.oid:
            return SQLITE_INTEGER
        case PostgreSQLType.float8, PostgreSQLType.float4:
            return SQLITE_FLOAT
        case PostgreSQLType.numeric:
            if case .integer = numeric(at: index) { return SQLITE_INTEGER }
            return SQLITE_FLOAT
        case PostgreSQLType.bytea:
            return SQLITE_BLOB
        case PostgreSQLType.void:
            return SQLITE_NULL
        default:
            return SQLITE_TEXT
        }
    }

    // A NULL reads as no bytes (binary results), so the typed reads below
    // need no separate NULL check: a value of the wrong length reads as 0.

    func int64(at index: Int32) -> Int64 {
        let bytes = raw(at: index)
        guard !bytes.isEmpty else { return 0 }
        switch type(at: index) {
        case PostgreSQLType.int8 where bytes.count == 8: return Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
        case PostgreSQLType.int4 where bytes.count == 4:
            return Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
        case PostgreSQLType.int2 where bytes.count == 2:
            return Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
        case PostgreSQLType.oid where bytes.count == 4:
            return Int64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
        case PostgreSQLType.int8, PostgreSQLType.int4, PostgreSQLType.int2, PostgreSQLType.oid: return 0
        case PostgreSQLType.bool: return bytes.first == 0 ? 0 : 1
        case PostgreSQLType.float8, PostgreSQLType.float4: return Int64(exactly: double(at: index).rounded(.towardZero)) ?? 0
        case PostgreSQLType.numeric:
            switch numeric(at: index) {
            case .integer(let value): return value
            case .real(let value): return Int64(exactly: value.rounded(.towardZero)) ?? 0
            default: return 0
            }
        default: return Int64(String(decoding: bytes, as: UTF8.self)) ?? 0
        }
    }

    func double(at index: Int32) -> Double {
        let bytes = raw(at: index)
        guard !bytes.isEmpty else { return 0 }
        switch type(at: index) {
        case PostgreSQLType.float8 where bytes.count == 8:
            return Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
        case PostgreSQLType.float4 where bytes.count == 4:
            return Double(Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self))))
        case PostgreSQLType.float8, PostgreSQLType.float4:
            return 0
        case PostgreSQLType.numeric:
            switch numeric(at: index) {
            case .integer(let value): return Double(value)
            case .real(let value): return value
            default: return 0
            }
        default:
            return Double(int64(at: index))
        }
    }

    /// The bytes of column `index` (UTF-8 for text), valid until the statement
    /// steps past the row or resets; empty for NULL.
    func textBytes(at index: Int32) -> UnsafeRawBufferPointer { raw(at: index) }

    func blobBytes(at index: Int32) -> UnsafeRawBufferPointer { textBytes(at: index) }

    /// The value of column `index` of the current row, in its storage class.
    func value(at index: Int32) -> StoredValue {
        switch columnType(at: index) {
        case SQLITE_INTEGER: return .integer(int64(at: index))
        case SQLITE_FLOAT: return .real(double(at: index))
        case SQLITE_TEXT: return .text(String(decoding: raw(at: index), as: UTF8.self))
        case SQLITE_BLOB: return .blob(Data(raw(at: index)))
        default: return .null
        }
    }

    /// Reads columns `first..<first + count` of the current row into `values`.
    /// The common values are read here with two libpq calls each (the length,
    /// then the bytes): a non-empty `bigint`, `double precision`, `bytea` or
    /// text value, whose length says it is not NULL. Any other (NULL, empty,
    /// another type, a column past the result's) takes the value-by-value
    /// path, so that both read every value alike.
    func readColumns(
        from first: Int32, count: Int, into values: UnsafeMutablePointer<ServerColumnValue>
    ) {
        guard let result else {
            for offset in 0..<count {
                (values + offset).initialize(to: column(first + Int32(offset)))
            }
            return
        }
        let row = self.row, types = resultTypes, columnCount = resultColumnCount
        for offset in 0..<count {
            let index = first + Int32(offset)
            guard index >= 0, index < columnCount else {
                (values + offset).initialize(to: column(index))
                continue
            }
            let length = PQgetlength(result, row, index)
            guard length > 0, let start = PQgetvalue(result, row, index) else {
                (values + offset).initialize(to: column(index))
                continue
            }
            let bytes = UnsafeRawBufferPointer(start: start, count: Int(length))
            let value: ServerColumnValue
            switch types[Int(index)] {
            case PostgreSQLType.int8 where length == 8:
                value = ServerColumnValue(
                    storageClass: SQLITE_INTEGER,
                    bits: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
            case PostgreSQLType.float8 where length == 8:
                value = ServerColumnValue(
                    storageClass: SQLITE_FLOAT,
                    bits: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
            case PostgreSQLType.bytea:
                value = ServerColumnValue(storageClass: SQLITE_BLOB, bytes: bytes)
            case PostgreSQLType.int8, PostgreSQLType.int4, PostgreSQLType.int2,
                PostgreSQLType.bool, PostgreSQLType.oid, PostgreSQLType.float8,
                PostgreSQLType.float4, PostgreSQLType.numeric, PostgreSQLType.void:
                value = column(index)
            default:
                value = ServerColumnValue(storageClass: SQLITE_TEXT, bytes: bytes)
            }
            (values + offset).initialize(to: value)
        }
    }

    /// Column `index` read value by value, as a row batch read it through
    /// ``ColumnReader``.
    private func column(_ index: Int32) -> ServerColumnValue {
        let storageClass = columnType(at: index)
        switch storageClass {
        case SQLITE_INTEGER:
            return ServerColumnValue(
                storageClass: storageClass, bits: UInt64(bitPattern: int64(at: index)))
        case SQLITE_FLOAT:
            return ServerColumnValue(storageClass: storageClass, bits: double(at: index).bitPattern)
        case SQLITE_TEXT:
            return ServerColumnValue(storageClass: storageClass, bytes: textBytes(at: index))
        case SQLITE_BLOB:
            return ServerColumnValue(storageClass: storageClass, bytes: blobBytes(at: index))
        default:
            return ServerColumnValue(storageClass: SQLITE_NULL)
        }
    }

    /// The type of column `index` of the current result (0 for none).
    private func type(at index: Int32) -> Oid {
        guard let result else { return 0 }
        return PQftype(result, index)
    }

    private func raw(at index: Int32) -> UnsafeRawBufferPointer {
        guard let result, let start = PQgetvalue(result, row, index) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: start, count: Int(PQgetlength(result, row, index)))
    }

    /// A `NUMERIC` value (what `SUM` of integers returns): an integer when it
    /// has no fraction and fits, else the nearest double.
    private func numeric(at index: Int32) -> StoredValue {
        PostgreSQLNumeric.decode(raw(at: index))
    }
}

/// The type identifiers (OIDs) of PostgreSQL's built-in types Strata reads and writes.
enum PostgreSQLType {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let name: Oid = 19
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let oid: Oid = 26
    static let float4: Oid = 700
    static let float8: Oid = 701
    static let unknown: Oid = 705
    static let varchar: Oid = 1043
    static let numeric: Oid = 1700
    static let void: Oid = 2278
}

extension StoredValue {
    /// The storage class's name, for messages.
    var kindName: String {
        switch self {
        case .null: return "NULL"
        case .integer: return "integer"
        case .real: return "real"
        case .text: return "text"
        case .blob: return "blob"
        }
    }
}
