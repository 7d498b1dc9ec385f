/// Helpers for writing SQL text. Only identifiers ever reach SQL as text, and
/// they are validated when the schema is built and quoted here; values are
/// always bound.
enum SQL {
    /// Quotes an identifier for SQLite.
    static func quote(_ identifier: String) -> String {
        // Schema identifiers never hold a quote; the escape is for anything else.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The value bound to `LIMIT ?`: the limit, or for none (nil or negative)
    /// the largest integer, which both engines read as no limit (SQLite's
    /// own -1 is an error on PostgreSQL, PostgreSQL's NULL one on SQLite).
    static func limitValue(_ limit: Int?) -> Int64 {
        guard let limit, limit >= 0 else { return .max }
        return Int64(limit)
    }

    /// `?, ?, ?` for `count` parameters.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// Row IDs as one bound value, a JSON array, for ``SQLDialect/inRowIDList``.
    static func rowIDList(_ rowIDs: some Sequence<Int64>) -> StoredValue {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(rowIDs.underestimatedCount * 8 + 2)
        var digits: [UInt8] = Array(repeating: 0, count: 20)
        for rowID in rowIDs {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            if rowID < 0 { bytes.append(UInt8(ascii: "-")) }
            var magnitude = rowID.magnitude
            var end = digits.count
            repeat {
                end -= 1
                digits[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: digits[end...])
        }
        bytes.append(UInt8(ascii: "]"))
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// Whether `name` may be used as an entity or field name: ASCII letters,
    /// digits and `_`, not starting with a digit or with `_` (which Strata
    /// keeps for its own columns and tables), at most 64 characters.
    static func isValidIdentifier(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        guard let first = scalars.first, scalars.count <= 64, isASCIILetter(first) else {
            return false
        }
        let allowed = scalars.allSatisfy { isASCIILetter($0) || ("0"..."9").contains($0) || $0 == "_" }
        return allowed && !name.lowercased().hasPrefix("sqlite_")
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
