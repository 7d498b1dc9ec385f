import Foundation
import Strata

/// A membership test of many values, PostgreSQL's way. SQLite reads a list
/// bound as one blob with the table-valued function `strata_values`
/// (`x IN (SELECT value FROM strata_values(?))`); PostgreSQL has arrays, and
/// a function returning a set must declare one column type, which a list of
/// any storage class has not. So the PostgreSQL dialect writes
///
/// ```sql
/// x = ANY(?)
/// ```
///
/// and binds the values as one array in PostgreSQL's text form (``literal(_:)``):
/// the server infers the parameter as an array of `x`'s type (`bigint[]`,
/// `double precision[]`, `text[]`, `bytea[]`) and parses each element with
/// that type's input, so every value arrives exactly. `= ANY` with a
/// non-NULL array is three-valued like `IN`: NULLs are tested apart.
enum PostgreSQLValueList {
    /// `values` as the text form of an array: `{"1","2"}`, `{"a \"b\"",NULL}`.
    /// Every element is quoted, so that a text's braces, commas, spaces and
    /// the word NULL stay text; a quote or a backslash is escaped.
    static func literal(_ values: [StoredValue]) -> String {
        var text = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { text += "," }
            switch value {
            case .null:
                text += "NULL"
            case .integer(let integer):
                text += "\"\(integer)\""
            case .real(let real):
                text += "\"\(realText(real))\""
            case .text(let string):
                text += quoted(string)
            case .blob(let data):
                text += quoted("\\x" + data.map { String(format: "%02x", $0) }.joined())
            }
        }
        return text + "}"
    }

    /// The text `float8in` reads back as exactly `real`: Swift's shortest
    /// round-tripping digits, with PostgreSQL's names for the special values.
    private static func realText(_ real: Double) -> String {
        if real.isNaN { return "NaN" }
        if real.isInfinite { return real < 0 ? "-Infinity" : "Infinity" }
        return "\(real)"
    }

    private static func quoted(_ element: String) -> String {
        var text = "\""
        for character in element.unicodeScalars {
            if character == "\"" || character == "\\" { text += "\\" }
            text.unicodeScalars.append(character)
        }
        return text + "\""
    }
}
