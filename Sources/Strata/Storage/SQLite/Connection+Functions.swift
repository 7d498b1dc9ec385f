import CSQLite

/// The SQL functions Strata registers on every connection, backed by
/// ``TextMatching`` so that SQL and in-memory evaluation share one implementation:
///
/// - `strata_fold(x, options)`: `x` folded by ``TextOptions`` raw value
///   `options` when it is text; any other value unchanged.
/// - `strata_text_match(operation, x, pattern, options)`: 1 or 0, or NULL when
///   `x` is NULL.
extension Connection {
    func registerFunctions() throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        var code = sqlite3_create_function_v2(
            handle, "strata_fold", 2, flags, nil, strataFold, nil, nil, nil)
        if code == SQLITE_OK {
            code = sqlite3_create_function_v2(
                handle, "strata_text_match", 4, flags, nil, strataTextMatch, nil, nil, nil)
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
