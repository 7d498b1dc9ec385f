import Foundation

/// SQLite's comparison of stored values, so that in-memory evaluation gives
/// exactly the answers SQL gives: NULL first, then numbers (integers and reals
/// compared by value, exactly), then text (BINARY collation: UTF-8 bytes), then
/// blobs (bytes).
extension StoredValue {
    private var classRank: Int {
        switch self {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }

    /// The order of two values as SQLite sorts them (`ORDER BY`, NULL smallest).
    static func sqliteOrder(_ lhs: StoredValue, _ rhs: StoredValue) -> ComparisonResult {
        let (left, right) = (lhs.classRank, rhs.classRank)
        if left != right { return left < right ? .orderedAscending : .orderedDescending }
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case let (.integer(a), .integer(b)): return order(a, b)
        case let (.real(a), .real(b)): return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case let (.integer(a), .real(b)): return compare(integer: a, real: b)
        case let (.real(a), .integer(b)): return invert(compare(integer: b, real: a))
        case let (.text(a), .text(b)): return bytes(Array(a.utf8), Array(b.utf8))
        case let (.blob(a), .blob(b)): return bytes(Array(a), Array(b))
        default: return .orderedSame
        }
    }

    /// The result of an SQL comparison: `nil` (SQL NULL) when either side is NULL.
    static func sqliteCompare(_ lhs: StoredValue, _ rhs: StoredValue) -> ComparisonResult? {
        if lhs.isNull || rhs.isNull { return nil }
        return sqliteOrder(lhs, rhs)
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }

    private static func invert(_ result: ComparisonResult) -> ComparisonResult {
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Compares an integer with a real exactly, as SQLite does (no rounding of the integer).
    private static func compare(integer: Int64, real: Double) -> ComparisonResult {
        if real.isNaN { return .orderedDescending }
        if real < -9_223_372_036_854_775_808.0 { return .orderedDescending }
        if real >= 9_223_372_036_854_775_808.0 { return .orderedAscending }
        let truncated = Int64(real.rounded(.towardZero))
        if integer != truncated { return order(integer, truncated) }
        let fraction = real - Double(truncated)
        return fraction > 0 ? .orderedAscending : (fraction < 0 ? .orderedDescending : .orderedSame)
    }

    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> ComparisonResult {
        for (x, y) in zip(a, b) where x != y { return x < y ? .orderedAscending : .orderedDescending }
        return order(a.count, b.count)
    }
}
