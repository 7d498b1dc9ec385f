import CSQLite
import Foundation

/// The SQL functions Strata registers on every connection, backed by
/// ``TextMatching`` so that SQL and in-memory evaluation share one implementation:
///
/// - `strata_fold(x, options)`: `x` folded by ``TextOptions`` raw value
///   `options` when it is text; any other value unchanged.
/// - `strata_text_match(operation, x, pattern, options)`: 1 or 0, or NULL when
///   `x` is NULL.
/// - `strata_decimal(x)`: the sort key of the decimal text `x` as a blob
///   (``DecimalOrdering``), so that `Decimal` fields compare and sort by
///   number; NULL for NULL; a text that is not a decimal fails the query.
/// - `strata_values(list)`: a table-valued function whose rows (column
///   `value`) are the values of a ``StoredValueList`` blob, exactly as they
///   were encoded. `x IN (SELECT value FROM strata_values(?))` tests membership
///   of any number of values with one parameter and one ephemeral index.
extension Connection {
    func registerFunctions() throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var code = sqlite3_create_function_v2(
            handle, "strata_fold", 2, flags, nil, strataFold, nil, nil, nil)
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(
                handle, "strata_text_match", 4, flags, nil, strataTextMatch, nil, nil, nil)
        }
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(
                handle, "strata_decimal", 1, flags, nil, strataDecimal, nil, nil, nil)
        }
        if code == SQLITE_OK {
            // One module a connection; SQLite calls the destructor when the connection closes.
            let module = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
            module.initialize(to: valueListModule())
            code = sqlite3_create_module_v2(handle, "strata_values", module, module) { module in
                module?.assumingMemoryBound(to: sqlite3_module.self).deallocate()
            }
        }
        if code != SQLITE_OK { throw error(sql: nil) }
    }
}

private func text(_ value: OpaquePointer?) -> String {
    guard let bytes = sqlite3_value_text(value) else { return "" }
    let count = Int(sqlite3_value_bytes(value))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

private func setText(_ context: OpaquePointer?, _ string: String) {
    var string = string
    string.withUTF8 { bytes in
        guard let base = bytes.baseAddress else {
            sqlite3_result_text(context, "", 0, strata_sqlite_transient())
            return
        }
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
            sqlite3_result_text64(
                context, chars, sqlite3_uint64(bytes.count), strata_sqlite_transient(),
                UInt8(SQLITE_UTF8))
        }
    }
}

private let strataFold: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments else { return }
    let value = arguments[0]
    guard sqlite3_value_type(value) == SQLITE_TEXT else {
        sqlite3_result_value(context, value)
        return
    }
    let options = TextOptions(rawValue: Int(sqlite3_value_int64(arguments[1])))
    setText(context, TextMatching.fold(text(value), options))
}

private let strataTextMatch: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments else { return }
    guard sqlite3_value_type(arguments[1]) != SQLITE_NULL,
          sqlite3_value_type(arguments[2]) != SQLITE_NULL,
          let operation = TextMatching.Operation(rawValue: sqlite3_value_int(arguments[0]))
    else {
        sqlite3_result_null(context)
        return
    }
    let options = TextOptions(rawValue: Int(sqlite3_value_int64(arguments[3])))
    let matched = TextMatching.matches(text(arguments[1]), operation, text(arguments[2]), options)
    sqlite3_result_int(context, matched ? 1 : 0)
}

private let strataDecimal: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments else { return }
    let value = arguments[0]
    guard sqlite3_value_type(value) != SQLITE_NULL else {
        sqlite3_result_null(context)
        return
    }
    // Numbers come as their text (`sqlite3_value_text` converts them).
    let key = sqlite3_value_type(value) == SQLITE_BLOB
        ? nil
        : sqlite3_value_text(value).flatMap {
            DecimalOrdering.key(utf8: UnsafeBufferPointer(start: $0, count: Int(sqlite3_value_bytes(value))))
        }
    guard let key else {
        sqlite3_result_error(context, "'\(text(value))' is not a decimal", -1)
        return
    }
    key.withUnsafeBytes { bytes in
        sqlite3_result_blob64(context, bytes.baseAddress, sqlite3_uint64(bytes.count), strata_sqlite_transient())
    }
}

// MARK: strata_values

/// A list of values as one blob, so that a membership test of any size binds
/// one parameter: exact for every storage class, as integers and reals travel
/// as their 64 bits and text and blobs as their bytes (JSON could carry
/// neither blobs nor every real).
///
/// Layout: the number of values, then per value a tag byte (0 NULL, 1
/// integer, 2 real, 3 text, 4 blob) and its payload: 8 bytes little-endian
/// for a number, a length then the bytes for text and blobs. Counts and
/// lengths are unsigned LEB128 varints.
enum StoredValueList {
    static func encode(_ values: [StoredValue]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 10 + 8)
        appendVarint(UInt64(values.count), to: &bytes)
        for value in values {
            switch value {
            case .null:
                bytes.append(0)
            case .integer(let integer):
                bytes.append(1)
                appendFixed(UInt64(bitPattern: integer), to: &bytes)
            case .real(let real):
                bytes.append(2)
                appendFixed(real.bitPattern, to: &bytes)
            case .text(let text):
                bytes.append(3)
                appendVarint(UInt64(text.utf8.count), to: &bytes)
                bytes.append(contentsOf: text.utf8)
            case .blob(let data):
                bytes.append(4)
                appendVarint(UInt64(data.count), to: &bytes)
                bytes.append(contentsOf: data)
            }
        }
        return Data(bytes)
    }

    /// Where each value of `bytes` starts (at its tag), or `nil` when the
    /// bytes are not a well-formed list.
    static func entryStarts(_ bytes: [UInt8]) -> [Int]? {
        var offset = 0
        guard let count = readVarint(bytes, &offset), count <= UInt64(bytes.count) else { return nil }
        var starts: [Int] = []
        starts.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard offset < bytes.count else { return nil }
            starts.append(offset)
            let tag = bytes[offset]
            offset += 1
            switch tag {
            case 0: break
            case 1, 2: offset += 8
            case 3, 4:
                guard let length = readVarint(bytes, &offset), length <= UInt64(bytes.count - offset)
                else { return nil }
                offset += Int(length)
            default: return nil
            }
            guard offset <= bytes.count else { return nil }
        }
        return offset == bytes.count ? starts : nil
    }

    /// The 64 bits stored at `offset` (little-endian).
    static func fixed(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    private static func appendFixed(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    static func readVarint(_ bytes: [UInt8], _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard offset < bytes.count else { return nil }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte < 0x80 { return value }
        }
        return nil
    }
}

/// One scan of `strata_values`: the list's bytes and where each value starts.
private final class ValueListScan {
    var bytes: [UInt8] = []
    var starts: [Int] = []
    var index = 0
}

/// A cursor is SQLite's base struct followed by a retained ``ValueListScan``.
private let scanOffset = MemoryLayout<sqlite3_vtab_cursor>.stride

private func scanState(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> ValueListScan {
    let raw = UnsafeMutableRawPointer(cursor!) + scanOffset
    return Unmanaged<ValueListScan>.fromOpaque(raw.load(as: UnsafeMutableRawPointer.self))
        .takeUnretainedValue()
}

/// An eponymous-only virtual table: `strata_values(?)` is usable in any
/// connection without `CREATE VIRTUAL TABLE`, and only with its argument.
private func valueListModule() -> sqlite3_module {
    var module = sqlite3_module()
    module.xConnect = { db, _, _, _, table, _ in
        let code = sqlite3_declare_vtab(db, "CREATE TABLE x(value, list HIDDEN)")
        guard code == SQLITE_OK else { return code }
        let vtab = UnsafeMutablePointer<sqlite3_vtab>.allocate(capacity: 1)
        vtab.initialize(to: sqlite3_vtab())
        table?.pointee = vtab
        return SQLITE_OK
    }
    module.xDisconnect = { table in
        table?.deallocate()
        return SQLITE_OK
    }
    module.xDestroy = module.xDisconnect
    module.xBestIndex = { _, info in
        guard let info else { return SQLITE_ERROR }
        for index in 0..<Int(info.pointee.nConstraint) {
            let constraint = info.pointee.aConstraint[index]
            guard constraint.iColumn == 1, constraint.op == UInt8(SQLITE_INDEX_CONSTRAINT_EQ),
                constraint.usable != 0
            else { continue }
            info.pointee.aConstraintUsage[index].argvIndex = 1
            info.pointee.aConstraintUsage[index].omit = 1
            info.pointee.estimatedCost = 1_000
            info.pointee.estimatedRows = 1_000
            return SQLITE_OK
        }
        // Without its list the table has no rows to give: no plan may use it.
        return SQLITE_CONSTRAINT
    }
    module.xOpen = { _, cursor in
        let raw = UnsafeMutableRawPointer.allocate(
            byteCount: scanOffset + MemoryLayout<UnsafeMutableRawPointer>.stride,
            alignment: MemoryLayout<UnsafeMutableRawPointer>.alignment)
        let base = raw.initializeMemory(as: sqlite3_vtab_cursor.self, repeating: sqlite3_vtab_cursor(), count: 1)
        (raw + scanOffset).initializeMemory(
            as: UnsafeMutableRawPointer.self, repeating: Unmanaged.passRetained(ValueListScan()).toOpaque(),
            count: 1)
        cursor?.pointee = base
        return SQLITE_OK
    }
    module.xClose = { cursor in
        guard let cursor else { return SQLITE_OK }
        let raw = UnsafeMutableRawPointer(cursor)
        Unmanaged<ValueListScan>.fromOpaque((raw + scanOffset).load(as: UnsafeMutableRawPointer.self)).release()
        raw.deallocate()
        return SQLITE_OK
    }
    module.xFilter = { cursor, _, _, count, arguments in
        let scan = scanState(cursor)
        scan.bytes = []
        scan.starts = []
        scan.index = 0
        guard count >= 1, let list = arguments?[0] else { return SQLITE_OK }
        guard sqlite3_value_type(list) != SQLITE_NULL else { return SQLITE_OK }  // no values
        let length = Int(sqlite3_value_bytes(list))
        if length > 0, let pointer = sqlite3_value_blob(list) {
            scan.bytes = Array(UnsafeRawBufferPointer(start: pointer, count: length))
        }
        guard let starts = StoredValueList.entryStarts(scan.bytes) else {
            scan.bytes = []
            return SQLITE_MISMATCH
        }
        scan.starts = starts
        return SQLITE_OK
    }
    module.xNext = { cursor in
        scanState(cursor).index += 1
        return SQLITE_OK
    }
    module.xEof = { cursor in
        let scan = scanState(cursor)
        return scan.index >= scan.starts.count ? 1 : 0
    }
    module.xRowid = { cursor, rowID in
        rowID?.pointee = sqlite3_int64(scanState(cursor).index)
        return SQLITE_OK
    }
    module.xColumn = { cursor, context, column in
        let scan = scanState(cursor)
        guard column == 0, scan.index < scan.starts.count else {
            sqlite3_result_null(context)
            return SQLITE_OK
        }
        resultValue(context, scan.bytes, at: scan.starts[scan.index])
        return SQLITE_OK
    }
    return module
}

/// Makes the well-formed value starting at `offset` the result.
private func resultValue(_ context: OpaquePointer?, _ bytes: [UInt8], at offset: Int) {
    switch bytes[offset] {
    case 1:
        sqlite3_result_int64(context, Int64(bitPattern: StoredValueList.fixed(bytes, at: offset + 1)))
    case 2:
        sqlite3_result_double(context, Double(bitPattern: StoredValueList.fixed(bytes, at: offset + 1)))
    case let tag where tag == 3 || tag == 4:
        var start = offset + 1
        let length = Int(StoredValueList.readVarint(bytes, &start) ?? 0)
        bytes.withUnsafeBufferPointer { buffer in
            // A zero-length value still needs a non-NULL pointer, or SQLite returns NULL.
            let pointer = UnsafeRawPointer(buffer.baseAddress! + start)
            if tag == 3 {
                sqlite3_result_text64(
                    context, pointer.assumingMemoryBound(to: CChar.self), sqlite3_uint64(length),
                    strata_sqlite_transient(), UInt8(SQLITE_UTF8))
            } else {
                sqlite3_result_blob64(context, pointer, sqlite3_uint64(length), strata_sqlite_transient())
            }
        }
    default:
        sqlite3_result_null(context)
    }
}
