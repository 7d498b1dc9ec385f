import CSQLite

/// `strata_add(x, amount, lowest, highest)`: `x + amount` for an integer `x`,
/// or an error when the sum leaves `lowest...highest` (the range of the
/// field's Swift type) or `Int64`; NULL when `x` is NULL. SQLite's own `+`
/// turns an overflowing sum into a `REAL`, and knows nothing of an `Int8`
/// field's range: a bulk increment must fail instead, changing nothing.
extension Connection {
    /// The message of the error `strata_add` fails with.
    static let outOfRangeMessage = "strata_add: the result is out of the field's range"

    func registerArithmetic() throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        let code = sqlite3_create_function_v2(handle, "strata_add", 4, flags, nil, strataAdd, nil, nil, nil)
        if code != SQLITE_OK { throw error(sql: nil) }
    }
}

private let strataAdd: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments else { return }
    switch sqlite3_value_type(arguments[0]) {
    case SQLITE_NULL:
        sqlite3_result_null(context)
    case SQLITE_INTEGER:
        let (sum, overflow) = sqlite3_value_int64(arguments[0])
            .addingReportingOverflow(sqlite3_value_int64(arguments[1]))
        guard !overflow, sum >= sqlite3_value_int64(arguments[2]), sum <= sqlite3_value_int64(arguments[3]) else {
            sqlite3_result_error(context, Connection.outOfRangeMessage, -1)
            return
        }
        sqlite3_result_int64(context, sum)
    default:
        sqlite3_result_error(context, "strata_add: the value is not an integer", -1)
    }
}
