import Strata

/// Strata writes each statement once for both engines: in SQLite's syntax,
/// with `?` placeholders, naming tables, columns and indexes by their schema
/// names. The server reads it with two changes, made here as it is sent:
/// each `?` becomes `$1`, `$2`, … (in a statement to prepare), and each
/// quoted identifier longer than PostgreSQL's 63 bytes becomes its stored
/// name (``SQLDialect/storedName(_:)``), which the server keeps whole where
/// it would cut the name and two long names could become one.
///
/// String literals, dollar-quoted bodies and comments are copied unchanged.
enum ServerSQL {
    /// `sql` as the server reads it; unchanged (not copied) when it has
    /// neither a placeholder to number nor a long identifier.
    static func translated(_ sql: String, numberingPlaceholders: Bool) -> String {
        let limit = SQLDialect.postgreSQL.identifierLimit
        // A quoted name past the limit does not fit in a shorter statement.
        if !numberingPlaceholders,
           sql.utf8.count - 2 <= limit || !sql.utf8.contains(UInt8(ascii: "\""))
        {
            return sql
        }
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        var copied = 0  // bytes[..<copied] are in output already
        var number = 0
        func replace(_ range: Range<Int>, with text: String) {
            if output.isEmpty { output.reserveCapacity(bytes.count + 16) }
            output.append(contentsOf: bytes[copied..<range.lowerBound])
            output.append(contentsOf: text.utf8)
            copied = range.upperBound
        }
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "'"):
                // '' inside a literal reads as its end and the next literal's start.
                index = (bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "'")) ?? bytes.count) + 1
            case UInt8(ascii: "\""):
                let (name, end) = identifier(in: bytes, openingAt: index)
                if name.utf8.count > limit {
                    replace(index..<end, with: quoted(SQLDialect.postgreSQL.storedName(name)))
                }
                index = end
            case UInt8(ascii: "-") where bytes.at(index + 1) == UInt8(ascii: "-"):
                index = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            case UInt8(ascii: "/") where bytes.at(index + 1) == UInt8(ascii: "*"):
                index = blockCommentEnd(in: bytes, openingAt: index)
            case UInt8(ascii: "$"):
                index = dollarQuoteEnd(in: bytes, at: index)
            case UInt8(ascii: "?") where numberingPlaceholders:
                number += 1
                replace(index..<index + 1, with: "$\(number)")
                index += 1
            default:
                index += 1
            }
        }
        guard copied > 0 else { return sql }
        output.append(contentsOf: bytes[copied...])
        return String(decoding: output, as: UTF8.self)
    }

    /// The name a quoted identifier opening at `start` spells (`""` inside
    /// is a quote), and the index past its closing quote.
    private static func identifier(in bytes: [UInt8], openingAt start: Int) -> (String, Int) {
        var name: [UInt8] = []
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\"") {
                guard bytes.at(index + 1) == UInt8(ascii: "\"") else {
                    return (String(decoding: name, as: UTF8.self), index + 1)
                }
                index += 1
            }
            name.append(bytes[index])
            index += 1
        }
        return (String(decoding: name, as: UTF8.self), bytes.count)
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The index past a `/* … */` comment opening at `start`; they nest.
    private static func blockCommentEnd(in bytes: [UInt8], openingAt start: Int) -> Int {
        var depth = 0
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "*") {
                depth += 1
                index += 2
            } else if bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") {
                depth -= 1
                index += 2
                if depth == 0 { return index }
            } else {
                index += 1
            }
        }
        return bytes.count
    }

    /// The index past a dollar-quoted string (`$$…$$`, `$tag$…$tag$`) opening
    /// at `start`, or just past the `$` when none opens there (`$1`, a `$`
    /// inside a name).
    private static func dollarQuoteEnd(in bytes: [UInt8], at start: Int) -> Int {
        func isNameByte(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte == UInt8(ascii: "_") || byte >= 0x80
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard !isNameByte(bytes.at(start - 1)) else { return start + 1 }
        var tagEnd = start + 1
        while isNameByte(bytes.at(tagEnd)) { tagEnd += 1 }
        guard bytes.at(tagEnd) == UInt8(ascii: "$"),
              !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes.at(start + 1) ?? 0)
        else { return start + 1 }
        let tag = bytes[start...tagEnd]
        var index = tagEnd + 1
        while index + tag.count <= bytes.count {
            if bytes[index..<index + tag.count].elementsEqual(tag) { return index + tag.count }
            index += 1
        }
        return bytes.count
    }
}

extension Array where Element == UInt8 {
    /// The byte at `index`, or `nil` outside the array.
    fileprivate func at(_ index: Int) -> UInt8? {
        indices.contains(index) ? self[index] : nil
    }
}
