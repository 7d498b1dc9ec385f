import Foundation

/// The values of an `in` test, hashed so that membership costs one lookup
/// whatever the number of values, with exactly the equality SQL uses:
/// `StoredValue.sqliteOrder(a, b) == .orderedSame` between non-NULL values,
/// and NULL only matching NULL.
///
/// Integers and reals that are equal in value share a key (`1` and `1.0`);
/// an integer past 2^53 keeps its exact value, so `2^53 + 1` never matches the
/// real `2^53`. Text is keyed by its UTF-8 bytes, as SQLite's BINARY collation
/// compares it (Swift's `String` equality would merge canonically equivalent
/// spellings such as `"é"` and `"e\u{301}"`, which SQL keeps apart), and blobs
/// by their bytes.
struct StoredValueSet: Sendable {
    /// The values in the order given, NULLs included.
    let values: [StoredValue]
    /// Whether one of the values is NULL.
    let containsNull: Bool
    private let keys: Set<Key>

    init(_ values: [StoredValue]) {
        self.values = values
        var keys = Set<Key>(minimumCapacity: values.count)
        var containsNull = false
        for value in values {
            if let key = Key(value) { keys.insert(key) } else { containsNull = true }
        }
        self.keys = keys
        self.containsNull = containsNull
    }

    /// The values that are not NULL, in the order given.
    var nonNullValues: [StoredValue] {
        containsNull ? values.filter { !$0.isNull } : values
    }

    /// Whether `value` equals one of the values (NULL: whether NULL is one of them).
    func contains(_ value: StoredValue) -> Bool {
        guard let key = Key(value) else { return containsNull }
        return keys.contains(key)
    }

    /// A value reduced to what SQLite's equality sees; `nil` for NULL.
    private enum Key: Hashable {
        case integer(Int64)
        /// A real that no integer equals: a fraction, an infinity, a value
        /// outside Int64's range (or a NaN, which Strata never stores).
        case real(UInt64)
        case text([UInt8])
        case blob([UInt8])

        init?(_ value: StoredValue) {
            switch value {
            case .null: return nil
            case .integer(let integer): self = .integer(integer)
            case .real(let real):
                // -2^63 is exact in a Double and equals Int64.min; 2^63 is past Int64.max.
                if real.rounded(.towardZero) == real, real >= -9_223_372_036_854_775_808.0,
                    real < 9_223_372_036_854_775_808.0
                {
                    self = .integer(Int64(real))  // -0.0 becomes 0, as SQLite compares it
                } else {
                    self = .real(real.bitPattern)
                }
            case .text(let text): self = .text(Array(text.utf8))
            case .blob(let data): self = .blob(Array(data))
            }
        }
    }
}
