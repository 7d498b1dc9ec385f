import CLibPQ
import Foundation

/// A thin wrapper over a libpq connection for the raw PostgreSQL side, as
/// ``RawDatabase`` is for SQLite: no abstraction beyond turning a failed
/// result into an error.
final class RawPostgreSQL {
    let handle: OpaquePointer
    private var statementCount = 0

    /// Connects with `connectionString`; with `schema`, makes it the search path.
    init(_ connectionString: String, schema: String? = nil) throws {
        guard let handle = PQconnectdb(connectionString), PQstatus(handle) == CONNECTION_OK else {
            throw BenchmarkError(description: "cannot connect to PostgreSQL: \(connectionString)")
        }
        self.handle = handle
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        if let schema { try execute("SET search_path TO \(quotedIdentifier(schema))") }
    }

    deinit { PQfinish(handle) }

    /// Runs one or more statements that take no parameters.
    func execute(_ sql: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
    }

    /// The first column of the first row `sql` returns, in text.
    func text(_ sql: String) throws -> String {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql)
        guard PQntuples(result) > 0, PQgetisnull(result, 0, 0) == 0, let text = PQgetvalue(result, 0, 0) else {
            throw BenchmarkError(description: "no value: \(sql)")
        }
        return String(cString: text)
    }

    /// The first column of the first row `sql` returns, as an integer.
    func integer(_ sql: String) throws -> Int {
        let text = try text(sql)
        guard let value = Int(text) else {
            throw BenchmarkError(description: "not an integer: \(text) from \(sql)")
        }
        return value
    }

    /// Prepares `sql` (`$1…$n` placeholders) on the server, with the
    /// parameters' types given rather than inferred.
    func prepare(_ sql: String, types: [Oid] = []) throws -> RawPreparedStatement {
        statementCount += 1
        let name = "raw_\(statementCount)"
        let result = types.withUnsafeBufferPointer {
            PQprepare(handle, name, sql, Int32(types.count), $0.baseAddress)
        }
        defer { PQclear(result) }
        try check(result, sql)
        return RawPreparedStatement(name: name, sql: sql, connection: self)
    }

    /// Throws unless `result` succeeded.
    func check(_ result: OpaquePointer?, _ sql: String) throws {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = String(cString: PQerrorMessage(handle))
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw BenchmarkError(description: "PostgreSQL error: \(message) (\(sql))")
        }
    }
}

/// A statement prepared on the server; it keeps its connection open.
struct RawPreparedStatement {
    let name: String
    let sql: String
    let connection: RawPostgreSQL

    /// Runs the statement with `parameters` (binary), asking for rows in binary.
    func run(_ parameters: RawParameters) throws -> RawResult {
        try finish(PQexecPrepared(
            connection.handle, name, Int32(parameters.count), parameters.values, parameters.lengths,
            parameters.formats, 1))
    }

    /// Runs the statement, which takes no parameters, asking for rows in binary.
    func run() throws -> RawResult {
        try finish(PQexecPrepared(connection.handle, name, 0, nil, nil, nil, 1))
    }

    private func finish(_ result: OpaquePointer?) throws -> RawResult {
        do {
            try connection.check(result, sql)
        } catch {
            PQclear(result)
            throw error
        }
        return RawResult(handle: result!)
    }
}

/// A result in binary, cleared when it goes out of scope; no allocation of its own.
struct RawResult: ~Copyable {
    let handle: OpaquePointer

    deinit { PQclear(handle) }

    var rowCount: Int32 { PQntuples(handle) }

    /// The type of column `column` (an OID).
    func type(_ column: Int32) -> Oid { PQftype(handle, column) }

    func int64(_ row: Int32, _ column: Int32) -> Int64 {
        Int64(bigEndian: UnsafeRawPointer(PQgetvalue(handle, row, column)!).loadUnaligned(as: Int64.self))
    }

    func double(_ row: Int32, _ column: Int32) -> Double {
        Double(bitPattern: UInt64(bigEndian: UnsafeRawPointer(PQgetvalue(handle, row, column)!)
            .loadUnaligned(as: UInt64.self)))
    }

    /// The text in column `column`, or `nil` for NULL.
    func text(_ row: Int32, _ column: Int32) -> String? {
        guard PQgetisnull(handle, row, column) == 0, let start = PQgetvalue(handle, row, column) else {
            return nil
        }
        let bytes = UnsafeRawBufferPointer(start: start, count: Int(PQgetlength(handle, row, column)))
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Parameter values in binary for `PQexecPrepared`, in storage allocated
/// once and reused row after row, as a C programmer would write it. A text
/// value points at the caller's bytes, which must outlive the call.
final class RawParameters {
    let capacity: Int
    private(set) var count = 0
    let values: UnsafeMutablePointer<UnsafePointer<CChar>?>
    let lengths: UnsafeMutablePointer<Int32>
    let formats: UnsafeMutablePointer<Int32>
    /// Eight bytes a parameter for numbers, big-endian as the server reads them.
    private let numbers: UnsafeMutablePointer<UInt64>

    init(capacity: Int) {
        self.capacity = capacity
        values = .allocate(capacity: capacity)
        lengths = .allocate(capacity: capacity)
        formats = .allocate(capacity: capacity)
        numbers = .allocate(capacity: capacity)
        formats.initialize(repeating: 1, count: capacity)
    }

    deinit {
        values.deallocate()
        lengths.deallocate()
        formats.deallocate()
        numbers.deallocate()
    }

    /// Starts the next row's values.
    func removeAll() { count = 0 }

    /// An `int8`.
    func append(_ value: Int64) {
        appendNumber(UInt64(bitPattern: value))
    }

    /// A `float8`.
    func append(_ value: Double) {
        appendNumber(value.bitPattern)
    }

    /// A `text` of `length` bytes at `bytes` (the length counts, not a NUL).
    func append(text bytes: UnsafePointer<CChar>, length: Int) {
        precondition(count < capacity)
        values[count] = bytes
        lengths[count] = Int32(length)
        count += 1
    }

    /// A NULL.
    func appendNull() {
        precondition(count < capacity)
        values[count] = nil
        lengths[count] = 0
        count += 1
    }

    private func appendNumber(_ bits: UInt64) {
        precondition(count < capacity)
        numbers[count] = bits.bigEndian
        values[count] = UnsafeRawPointer(numbers + count).assumingMemoryBound(to: CChar.self)
        lengths[count] = 8
        count += 1
    }
}

/// The type identifiers of the parameters the raw side sends.
enum RawPostgreSQLType {
    static let int8: Oid = 20
    static let text: Oid = 25
    static let float8: Oid = 701
}

/// `name` as a PostgreSQL identifier: in double quotes, any quote doubled.
func quotedIdentifier(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
