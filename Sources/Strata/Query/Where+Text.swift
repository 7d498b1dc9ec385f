/// The string fields that text predicates apply to: `String` and `String?`.
public protocol TextFieldValue: FieldStorable {}
extension String: TextFieldValue {}
extension Optional: TextFieldValue where Wrapped == String {}

/// A text test: prefix, suffix, substring or wildcard pattern, optionally
/// ignoring case and accents.
///
/// ```swift
/// From<Person>().where(Where(\.$name, .hasPrefix("an", .caseInsensitive)))
/// From<Person>().where(Where(\.$name, .like("J*n?", [.caseInsensitive, .diacriticInsensitive])))
/// ```
public struct TextPattern: Sendable {
    let operation: TextMatching.Operation
    let pattern: String
    let options: TextOptions

    /// The text starts with `prefix`.
    public static func hasPrefix(_ prefix: String, _ options: TextOptions = []) -> TextPattern {
        TextPattern(operation: .hasPrefix, pattern: prefix, options: options)
    }

    /// The text ends with `suffix`.
    public static func hasSuffix(_ suffix: String, _ options: TextOptions = []) -> TextPattern {
        TextPattern(operation: .hasSuffix, pattern: suffix, options: options)
    }

    /// The text contains `substring` (an empty one is in every text).
    public static func contains(_ substring: String, _ options: TextOptions = []) -> TextPattern {
        TextPattern(operation: .contains, pattern: substring, options: options)
    }

    /// The whole text matches `pattern`, where `*` stands for any run of
    /// characters and `?` for exactly one.
    public static func like(_ pattern: String, _ options: TextOptions = []) -> TextPattern {
        TextPattern(operation: .like, pattern: pattern, options: options)
    }
}

extension Where {
    /// Objects whose text field matches `pattern`; a NULL field never matches.
    public init<Value: TextFieldValue>(_ keyPath: KeyPath<Object, Field.Stored<Value>>, _ pattern: TextPattern) {
        self.init(.text(ValuePath(keyPath), pattern.operation, pattern.pattern, pattern.options))
    }

    /// Objects whose text at the end of the path matches `pattern`.
    public init<Value: TextFieldValue>(_ expression: Expression<Value>, _ pattern: TextPattern) {
        self.init(.text(expression.path, pattern.operation, pattern.pattern, pattern.options))
    }
}
