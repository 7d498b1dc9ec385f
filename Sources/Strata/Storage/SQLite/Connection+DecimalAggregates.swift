import CSQLite
import Foundation

/// Exact aggregates over `Decimal` fields, which are stored as decimal text:
/// SQLite's own `sum` and `avg` would read the text as a `REAL` (and the
/// result would not convert back to `Decimal`), and its `min` and `max` would
/// compare the text letter by letter (`"10" < "9"`).
///
/// - `strata_decimal_sum(x)`, `strata_decimal_avg(x)`, `strata_decimal_min(x)`,
///   `strata_decimal_max(x)`: over the non-NULL values, as decimal text;
///   NULL when there is none, like `sum`. Integers count exactly; reals as
///   the nearest decimal. A text that is not a decimal makes the query fail.
extension Connection {
    func registerDecimalAggregates() throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for (name, kind) in DecimalAggregate.Kind.allCases.map({ ("strata_decimal_\($0.rawValue)", $0) }) {
            let code = sqlite3_create_function_v2(
                handle, name, 1, flags, UnsafeMutableRawPointer(bitPattern: kind.tag), nil,
                decimalStep, decimalFinal, nil)
            if code != SQLITE_OK { throw error(sql: nil) }
        }
    }
}

/// The running state of one decimal aggregate in one group.
final class DecimalAggregate {
    enum Kind: String, CaseIterable {
        case sum, avg, min, max

        /// A non-zero tag passed as the function's user data.
        var tag: UInt { UInt(Kind.allCases.firstIndex(of: self)! + 1) }

        init?(tag: UInt) {
            guard tag >= 1, Int(tag) <= Kind.allCases.count else { return nil }
            self = Kind.allCases[Int(tag) - 1]
        }
    }

    var total = Decimal.zero
    var extreme: Decimal?
    var count = 0
    var failure: String?

    static let posix = Locale(identifier: "en_US_POSIX")

    func add(_ value: OpaquePointer?, kind: Kind) {
        let decimal: Decimal
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: return
        case SQLITE_INTEGER: decimal = Decimal(sqlite3_value_int64(value))
        case SQLITE_FLOAT: decimal = Decimal(sqlite3_value_double(value))
        default:
            let text = sqlite3_value_text(value).map { String(cString: $0) } ?? ""
            guard let parsed = Decimal(string: text, locale: Self.posix), !parsed.isNaN else {
                failure = "'\(text)' is not a decimal"
                return
            }
            decimal = parsed
        }
        count += 1
        switch kind {
        case .sum, .avg: total += decimal
        case .min: extreme = extreme.map { Swift.min($0, decimal) } ?? decimal
        case .max: extreme = extreme.map { Swift.max($0, decimal) } ?? decimal
        }
    }

    /// The result as decimal text, or `nil` for NULL.
    func result(_ kind: Kind) -> String? {
        guard count > 0 else { return nil }
        let value: Decimal
        switch kind {
        case .sum: value = total
        case .avg: value = total / Decimal(count)
        case .min, .max: value = extreme!
        }
        return NSDecimalNumber(decimal: value).description(withLocale: Self.posix)
    }
}

/// The accumulator of this group: a retained reference kept in SQLite's
/// aggregate context (zeroed memory the first time).
private func accumulator(_ context: OpaquePointer?, create: Bool) -> DecimalAggregate? {
    let size = Int32(MemoryLayout<UnsafeRawPointer>.size)
    guard let slot = sqlite3_aggregate_context(context, create ? size : 0)?
        .assumingMemoryBound(to: UnsafeRawPointer?.self)
    else { return nil }
    if let existing = slot.pointee {
        return Unmanaged<DecimalAggregate>.fromOpaque(existing).takeUnretainedValue()
    }
    guard create else { return nil }
    let fresh = DecimalAggregate()
    slot.pointee = UnsafeRawPointer(Unmanaged.passRetained(fresh).toOpaque())
    return fresh
}

private func kind(_ context: OpaquePointer?) -> DecimalAggregate.Kind {
    DecimalAggregate.Kind(tag: UInt(bitPattern: sqlite3_user_data(context))) ?? .sum
}

private let decimalStep: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let arguments, let state = accumulator(context, create: true) else {
        sqlite3_result_error_nomem(context)
        return
    }
    state.add(arguments[0], kind: kind(context))
}

private let decimalFinal: @convention(c) (OpaquePointer?) -> Void = { context in
    let slot = sqlite3_aggregate_context(context, 0)?.assumingMemoryBound(to: UnsafeRawPointer?.self)
    guard let slot, let pointer = slot.pointee else {
        sqlite3_result_null(context)  // no row in the group
        return
    }
    let state = Unmanaged<DecimalAggregate>.fromOpaque(pointer).takeRetainedValue()
    slot.pointee = nil
    if let failure = state.failure {
        sqlite3_result_error(context, failure, -1)
    } else if let text = state.result(kind(context)) {
        sqlite3_result_text(context, text, -1, strata_sqlite_transient())
    } else {
        sqlite3_result_null(context)
    }
}
