import Foundation

/// The order of `Decimal` fields, which are stored as decimal text: by
/// number, not letter by letter (`"9" < "10"`, `"-2" < "-1.5"`).
///
/// Each decimal text has a sort key, bytes whose order (`memcmp`, then the
/// shorter first) is the numbers' order; equal numbers get equal keys
/// (`"1.50"` and `"1.5"`, `"0"` and `"-0"`). SQLite compares the keys that
/// `strata_decimal(x)` returns (`Connection+Functions`), the in-memory
/// evaluator the same keys (``sortValue(_:)``), so the two order alike;
/// PostgreSQL compares `numeric`, which orders the same numbers the same way.
///
/// The key: one byte for the sign (`0x00` negative, `0x01` zero, `0x02`
/// positive); then the position of the first significant digit (`e` where
/// the number is `0.d₁d₂… × 10^e`) as a big-endian `UInt32` biased by 2³¹,
/// inverted for a negative number; then the significant digits, without
/// leading or trailing zeros, as ASCII, each complemented (`9 - d`) and
/// followed by `0xFF` for a negative number, so that a longer negative one
/// sorts first.
enum DecimalOrdering {
    /// The sort key of `text`, or `nil` when it is not a decimal: an
    /// optional sign, digits with at most one point, and an optional
    /// exponent (`-12.50`, `.5`, `3e-2`), as `Decimal(string:)` reads them.
    static func key(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { key(utf8: $0) }
    }

    /// The sort key of the UTF-8 bytes of a decimal text (see ``key(_:)``).
    static func key(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var index = 0
        var isNegative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            isNegative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // The significant digits, and how many of them stand before the point.
        var digits: [UInt8] = []
        var beforePoint = 0
        var sawDigit = false
        var sawPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard !sawPoint else { return nil }
                sawPoint = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                sawDigit = true
                if digits.isEmpty, byte == UInt8(ascii: "0") {
                    // A leading zero: after the point it moves the first digit right.
                    if sawPoint { beforePoint -= 1 }
                } else {
                    digits.append(byte)
                    if !sawPoint { beforePoint += 1 }
                }
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentIsNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentIsNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                // Past a billion the position saturates: no Decimal comes near.
                exponent = min(exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1_000_000_000)
                index += 1
            }
            guard index > start else { return nil }
            if exponentIsNegative { exponent = -exponent }
        }
        guard index == bytes.count else { return nil }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        guard !digits.isEmpty else { return [0x01] }
        let position = max(min(beforePoint + exponent, Int(Int32.max)), Int(Int32.min))
        var biased = UInt32(bitPattern: Int32(position)) ^ 0x8000_0000
        var key: [UInt8] = [isNegative ? 0x00 : 0x02]
        key.reserveCapacity(digits.count + 6)
        if isNegative { biased = ~biased }
        key.append(contentsOf: [UInt8(biased >> 24), UInt8(biased >> 16 & 0xFF), UInt8(biased >> 8 & 0xFF), UInt8(biased & 0xFF)])
        if isNegative {
            key.append(contentsOf: digits.map { UInt8(ascii: "9") - $0 + UInt8(ascii: "0") })
            key.append(0xFF)
        } else {
            key.append(contentsOf: digits)
        }
        return key
    }

    /// What the in-memory evaluator compares for a `Decimal` field's value:
    /// the sort key as a blob, as `strata_decimal(x)` returns it; NULL for
    /// NULL and for a value that is not a decimal (which the SQL refuses).
    static func sortValue(_ value: StoredValue) -> StoredValue {
        switch value {
        case .text(let text): return key(text).map { .blob(Data($0)) } ?? .null
        case .integer(let number): return key(String(number)).map { .blob(Data($0)) } ?? .null
        case .real(let number): return key(String(number)).map { .blob(Data($0)) } ?? .null
        case .null, .blob: return .null
        }
    }
}
