import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// Every ``FieldStorable`` type converts to and from a `StoredValue`; Strata
/// binds it as a statement parameter, never as SQL text.
///
/// ```swift
/// let value = try 42.storedValue()   // .integer(42)
/// ```
public enum StoredValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob(Data)

    /// Whether this is SQL `NULL`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Compares values bit for bit, so that `-0.0` differs from `0.0`, a NaN
    /// equals itself, and text is equal only byte for byte (Swift's `==`
    /// takes `"é"` and `"e\u{301}"` for one string; SQL tells them apart):
    /// a change tracker must see every change a reader could.
    func isIdentical(to other: StoredValue) -> Bool {
        switch (self, other) {
        case let (.real(a), .real(b)): return a.bitPattern == b.bitPattern
        case let (.text(a), .text(b)): return a.hasSameUTF8(as: b)
        default: return self == other
        }
    }

    /// Whether this is a NaN, which SQLite stores as NULL: no field may hold one.
    var isNaN: Bool {
        if case .real(let number) = self { return number.isNaN }
        return false
    }

    /// Whether this is text holding U+0000 (NUL), which SQLite's text can
    /// hold and PostgreSQL's cannot (``SQLDialect/textHoldsNUL``).
    var isTextHoldingNUL: Bool {
        guard case .text(let text) = self else { return false }
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let start = bytes.baseAddress else { return false }
            return memchr(start, 0, bytes.count) != nil
        } ?? text.utf8.contains(0)
    }
}

extension StoredValue {
    /// A value as a dictionary key that two values share when SQL's `=` finds
    /// them equal, and a unique index holds one of them: text by its UTF-8
    /// bytes (Swift's `==` takes `"é"` and `"e\u{301}"`, or the Kelvin sign
    /// and `"K"`, for one string; a unique index holds both), anything else
    /// by `==`. For matching values read back from SQL, as an import matches IDs.
    @usableFromInline
    struct ExactKey: Hashable {
        @usableFromInline let value: StoredValue

        @inlinable
        init(_ value: StoredValue) { self.value = value }

        @usableFromInline
        static func == (lhs: Self, rhs: Self) -> Bool {
            if case .text(let left) = lhs.value, case .text(let right) = rhs.value {
                return left.hasSameUTF8(as: right)
            }
            return lhs.value == rhs.value
        }

        // Texts with the same bytes are equal Swift strings, with equal hashes.
        @usableFromInline
        func hash(into hasher: inout Hasher) { hasher.combine(value) }
    }
}

extension StoredValue: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return "'\(value.replacingOccurrences(of: "'", with: "''"))'"
        case .blob(let value): return "x'\(value.map { String(format: "%02x", $0) }.joined())'"
        }
    }
}

extension String {
    /// Whether the two strings hold the same UTF-8 bytes: equality as SQL
    /// text compares (SQLite's BINARY collation, PostgreSQL's `"C"`), not
    /// Swift's canonical equivalence. One `memcmp` for native strings; a
    /// walk over the UTF-8 views was 5.6% of a unique import (which compares
    /// every text it writes with the value it replaces).
    func hasSameUTF8(as other: String) -> Bool {
        let compared = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in
                left.count == right.count
                    && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
