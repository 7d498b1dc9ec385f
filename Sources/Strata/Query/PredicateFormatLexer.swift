// The tokens of NSPredicate's format language, as `Where<T>("age > %d", 30)`
// reads it (see `PredicateFormatParser`). Positions are 1-based columns,
// counted in Unicode scalars, so that an error can point at its place.

/// Something wrong with a format string or its arguments, and where.
struct PredicateFormatProblem: Error, Equatable {
    let message: String
    /// The 1-based column of the token at fault; `nil` for the whole format.
    let column: Int?

    init(_ message: String, at column: Int?) {
        self.message = message
        self.column = column
    }
}

/// A format specifier outside quotes: `%@`, `%K`, `%d`, `%1$@`…
struct PredicateFormatSpecifier: Equatable {
    enum Kind: Equatable {
        /// `%@`: an object (any value, an object, an ID, a collection).
        case object
        /// `%K`: a key path, given as a string.
        case keyPath
        /// `%d`, `%i`, `%ld`, `%lld`, `%u`…: an integer.
        case integer
        /// `%f`, `%lf`, `%g`, `%e`, `%a`: a floating-point number.
        case real
    }

    let kind: Kind
    /// The 1-based argument number of a positional specifier (`%2$@`).
    let position: Int?
}

struct PredicateFormatToken: Equatable {
    enum Kind: Equatable {
        /// A name, keyword or dotted key path (`age`, `AND`, `owner.name`, `pets.@count`).
        case word(String)
        /// A number as written (`30`, `2.5`, `1e3`, `0x1F`).
        case number(String)
        case string(String)
        case specifier(PredicateFormatSpecifier)
        /// Operators and punctuation: `==`, `<=`, `&&`, `(`, `{`, `,`, `-`…
        case symbol(String)
        /// `[cd]` after an operator: the letters inside.
        case modifiers(String)
        case end
        /// What stopped the lexer: the parser reports it when it reaches it,
        /// so that problems are reported in the order they are written.
        case error(PredicateFormatProblem)
    }

    let kind: Kind
    let column: Int
}

/// Splits a format string into tokens.
struct PredicateFormatLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ format: String) {
        scalars = Array(format.unicodeScalars)
    }

    /// The tokens up to the end, or up to an ``PredicateFormatToken/Kind/error(_:)`` token.
    static func tokens(of format: String) -> [PredicateFormatToken] {
        var lexer = PredicateFormatLexer(format)
        var tokens: [PredicateFormatToken] = []
        while true {
            do {
                let token = try lexer.next()
                tokens.append(token)
                if token.kind == .end { return tokens }
            } catch {
                tokens.append(
                    PredicateFormatToken(
                        kind: .error(error), column: error.column ?? lexer.index + 1))
                return tokens
            }
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private static func isWordStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic
    }

    private static func isWordPart(_ c: Unicode.Scalar) -> Bool {
        isWordStart(c) || ("0"..."9").contains(c)
    }

    private mutating func next() throws(PredicateFormatProblem) -> PredicateFormatToken {
        while let c = peek(), c.properties.isWhitespace { index += 1 }
        let column = index + 1
        guard let c = peek() else { return PredicateFormatToken(kind: .end, column: column) }
        if Self.isWordStart(c) { return PredicateFormatToken(kind: .word(word()), column: column) }
        if ("0"..."9").contains(c) || (c == "." && peek(1).map { ("0"..."9").contains($0) } == true)
        {
            return PredicateFormatToken(kind: .number(number()), column: column)
        }
        switch c {
        case "'", "\"":
            return PredicateFormatToken(kind: .string(try quoted()), column: column)
        case "%":
            return PredicateFormatToken(kind: .specifier(try specifier()), column: column)
        case "[":
            index += 1
            var letters = ""
            while let c = peek(), c != "]" {
                letters.unicodeScalars.append(c)
                index += 1
            }
            guard peek() == "]" else {
                throw PredicateFormatProblem("'[' is never closed by ']'", at: column)
            }
            index += 1
            return PredicateFormatToken(kind: .modifiers(letters), column: column)
        default:
            break
        }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.unicodeScalars.count
            return PredicateFormatToken(kind: .symbol(symbol), column: column)
        }
        throw PredicateFormatProblem("unexpected character '\(c)'", at: column)
    }

    /// Longest first, so that `<=` is not read as `<` then `=`.
    private static let symbols = [
        "==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||",
        "=", "<", ">", "!", "(", ")", "{", "}", ",", "-", "+", "*", "/", "$", "@", "#",
    ]

    private func matches(_ symbol: String) -> Bool {
        for (offset, scalar) in symbol.unicodeScalars.enumerated() where peek(offset) != scalar {
            return false
        }
        return true
    }

    /// A name and the dotted components after it (`owner.name`, `pets.@count`).
    private mutating func word() -> String {
        var text = ""
        while true {
            while let c = peek(), Self.isWordPart(c) {
                text.unicodeScalars.append(c)
                index += 1
            }
            guard peek() == ".", let after = peek(1) else { return text }
            if Self.isWordStart(after) {
                text += "."
                index += 1
            } else if after == "@", let first = peek(2), Self.isWordStart(first) {
                text += ".@"
                index += 2
            } else {
                return text
            }
        }
    }

    private mutating func number() -> String {
        var text = ""
        if peek() == "0", let x = peek(1), x == "x" || x == "X" {
            text = "0x"
            index += 2
            while let c = peek(), c.properties.isASCIIHexDigit {
                text.unicodeScalars.append(c)
                index += 1
            }
            return text
        }
        func digits() {
            while let c = peek(), ("0"..."9").contains(c) {
                text.unicodeScalars.append(c)
                index += 1
            }
        }
        digits()
        if peek() == ".", peek(1).map({ ("0"..."9").contains($0) }) == true {
            text += "."
            index += 1
            digits()
        }
        // An exponent only when digits follow: `2e` is the number 2, then a name.
        if let e = peek(), e == "e" || e == "E" {
            let sign = peek(1) == "-" || peek(1) == "+" ? 1 : 0
            if let first = peek(1 + sign), ("0"..."9").contains(first) {
                text.unicodeScalars.append(contentsOf: scalars[index...(index + sign)])
                index += 1 + sign
                digits()
            }
        }
        return text
    }

    /// A quoted string, its escapes resolved. Specifiers inside stay as they
    /// are, as NSPredicate keeps them (`name == '%@'` is the text "%@").
    private mutating func quoted() throws(PredicateFormatProblem) -> String {
        let column = index + 1
        let quote = scalars[index]
        index += 1
        var text = ""
        while let c = peek() {
            index += 1
            if c == quote { return text }
            guard c == "\\" else {
                text.unicodeScalars.append(c)
                continue
            }
            guard let escaped = peek() else { break }
            index += 1
            switch escaped {
            case "n": text += "\n"
            case "t": text += "\t"
            case "r": text += "\r"
            case "0": text += "\0"
            case "u":
                let hex = (0..<4).compactMap { peek($0) }.filter(\.properties.isASCIIHexDigit)
                guard hex.count == 4,
                    let value = UInt32(String(String.UnicodeScalarView(hex)), radix: 16),
                    let scalar = Unicode.Scalar(value)
                else {
                    throw PredicateFormatProblem(
                        "'\\u' needs four hexadecimal digits", at: index - 1)
                }
                index += 4
                text.unicodeScalars.append(scalar)
            default: text.unicodeScalars.append(escaped)
            }
        }
        throw PredicateFormatProblem("the quoted string is never closed", at: column)
    }

    /// `%@`, `%K`, `%%`, `%d` and its sizes, `%f`…, with an optional `n$`.
    private mutating func specifier() throws(PredicateFormatProblem) -> PredicateFormatSpecifier {
        let column = index + 1
        index += 1
        var position: Int?
        var digits = ""
        while let c = peek(digits.unicodeScalars.count), ("0"..."9").contains(c) {
            digits.unicodeScalars.append(c)
        }
        if !digits.isEmpty, peek(digits.unicodeScalars.count) == "$" {
            guard let number = Int(digits), number >= 1 else {
                throw PredicateFormatProblem("argument numbers start at 1 (%1$@)", at: column)
            }
            position = number
            index += digits.unicodeScalars.count + 1
        }
        var size = ""
        while let c = peek(), "hlqLzjt".unicodeScalars.contains(c) {
            size.unicodeScalars.append(c)
            index += 1
        }
        guard let conversion = peek() else {
            throw PredicateFormatProblem("the format ends inside a specifier", at: column)
        }
        index += 1
        let kind: PredicateFormatSpecifier.Kind
        switch conversion {
        case "@" where size.isEmpty: kind = .object
        case "K" where size.isEmpty: kind = .keyPath
        case "d", "i", "u", "D", "U": kind = .integer
        case "f", "g", "e", "a", "F", "G", "E", "A": kind = .real
        case "%" where size.isEmpty && position == nil:
            throw PredicateFormatProblem(
                "'%%' is a literal %, which has no meaning outside a quoted string", at: column)
        default:
            throw PredicateFormatProblem(
                "the specifier %\(size)\(conversion) is not supported (use %@, %K, %d or %f)",
                at: column)
        }
        return PredicateFormatSpecifier(kind: kind, position: position)
    }
}
