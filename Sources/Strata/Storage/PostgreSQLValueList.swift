import Foundation

/// A membership test of many values, PostgreSQL's way. SQLite reads a list
/// bound as one blob with the table-valued function `strata_values`
/// (`x IN (SELECT value FROM strata_values(?))`); PostgreSQL has arrays, and
/// a function returning a set must declare one column type, which a list of
/// any storage class has not. So the PostgreSQL dialect writes
///
/// ```sql
/// x IN (SELECT unnest(CAST(? AS BIGINT[])))  -- the type of the values
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
package enum PostgreSQLValueList {
    /// `lhs IN (…)` over `values`, none of them NULL, bound as one array
    /// parameter. The array's type is the values' (BIGINT, DOUBLE PRECISION
    /// for reals or reals and integers, TEXT compared byte by byte as the
    /// columns are, BYTEA); values of several of these compare as text,
    /// which the server refuses for a column of another type, as it refuses
    /// a text bound to compare with a number.
    package static func membership(_ lhs: String, _ values: [StoredValue]) -> (sql: String, argument: StoredValue) {
        var (integers, reals, blobs, texts) = (false, false, false, false)
        for value in values {
            switch value {
            case .integer: integers = true
            case .real: reals = true
            case .blob: blobs = true
            case .text, .null: texts = true
            }
        }
        let element: String
        switch (integers, reals, blobs, texts) {
        case (true, false, false, false): element = "BIGINT"
        case (_, true, false, false): element = "DOUBLE PRECISION"
        case (false, false, true, false): element = "BYTEA"
        default: element = "TEXT"
        }
        let collation = element == "TEXT" ? " COLLATE \"C\"" : ""
        return ("\(lhs) IN (SELECT unnest(CAST(? AS \(element)[]))\(collation))", .text(literal(values)))
    }

    /// `values` as the text form of an array: `{"1","2"}`, `{"a \"b\"",NULL}`.
    /// Every element is quoted, so that a text's braces, commas, spaces and
    /// the word NULL stay text; a quote or a backslash is escaped.
    package static func literal(_ values: [StoredValue]) -> String {
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
