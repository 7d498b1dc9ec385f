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

    /// `?, ?, ?` for `count` parameters.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
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
