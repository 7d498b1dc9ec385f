import Foundation

/// How string comparisons treat case and accents.
public struct TextOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `"Ann"` matches `"ann"` (`String.lowercased()`: Unicode's default,
    /// locale-independent lower-case mapping; `"ß"` stays `"ß"`).
    public static let caseInsensitive = TextOptions(rawValue: 1 << 0)
    /// `"é"` matches `"e"` (canonical decomposition, combining marks removed).
    public static let diacriticInsensitive = TextOptions(rawValue: 1 << 1)
}

/// The string operations that queries can use. One implementation serves
/// both sides: Strata registers these functions on every SQLite connection
/// (`strata_fold`, `strata_text_match`) and evaluates the same code in memory,
/// so SQL and Swift cannot disagree.
package enum TextMatching {
    package enum Operation: Int32, Sendable {
        case hasPrefix = 0
        case hasSuffix = 1
        case contains = 2
        /// `*` matches any run of characters, `?` exactly one.
        case like = 3
    }

    /// The text as compared under `options`.
    package static func fold(_ text: String, _ options: TextOptions) -> String {
        guard !options.isEmpty else { return text }
        var result = text
        if options.contains(.diacriticInsensitive) {
            let scalars = result.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
                $0.properties.generalCategory != .nonspacingMark
            }
            result = String(String.UnicodeScalarView(scalars))
        }
        if options.contains(.caseInsensitive) {
            result = result.lowercased()
        }
        return result
    }

    /// Whether `text` matches `pattern` under `operation` and `options`.
    package static func matches(
        _ text: String, _ operation: Operation, _ pattern: String, _ options: TextOptions
    ) -> Bool {
        let text = fold(text, options)
        let pattern = fold(pattern, options)
        switch operation {
        case .hasPrefix: return text.utf8.starts(with: pattern.utf8)
        case .hasSuffix: return text.utf8.reversed().starts(with: pattern.utf8.reversed())
        case .contains: return pattern.isEmpty || text.utf8.firstRange(of: pattern.utf8) != nil
        case .like: return like(Array(text.unicodeScalars), Array(pattern.unicodeScalars))
        }
    }

    /// Wildcard matching over Unicode scalars (like the other operations, which
    /// compare code units: canonically equivalent spellings differ unless
    /// `.diacriticInsensitive` normalizes them), backtracking on the last `*`.
    private static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0, p = 0
        var star: Int?, resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
