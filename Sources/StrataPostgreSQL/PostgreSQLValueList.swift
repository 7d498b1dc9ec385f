import Foundation
import Strata

/// A membership test of many values, PostgreSQL's way. SQLite reads a list
/// bound as one blob with the table-valued function `strata_values`
/// (`x IN (SELECT value FROM strata_values(?))`); PostgreSQL has arrays, and
/// a function returning a set must declare one column type, which a list of
/// any storage class has not. So the PostgreSQL dialect writes
///
/// ```sql
/// x IN (SELECT unnest(CAST(? AS bigint[])))  -- the type of x's column
/// ```
///
/// and binds the values as one array in PostgreSQL's text form (``literal(_:)``),
/// which the server parses element by element with the type's own input, so
/// every value arrives exactly. The cast is needed: `unnest` takes any array,
/// so the server cannot infer the parameter's type from it. `x = ANY(?)`
/// would infer it, but tests each row against the list one element after
/// the other (1,000 values and 100,000 rows: 0.8 to 1.2 s), where the
/// subquery is hashed (12 to 17 ms). Both are three-valued like `IN`: NULLs
/// are tested apart.
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
