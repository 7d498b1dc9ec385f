/// Parses NSPredicate's format language into a ``WherePredicate`` on the
/// entity of `root`: the grammar here, the key paths and the tests they make
/// in `PredicateFormatParser+Paths`, the values in `PredicateFormatValues`.
///
/// ```
/// predicate   := conjunction (("OR" | "||") conjunction)*
/// conjunction := negation (("AND" | "&&") negation)*
/// negation    := ("NOT" | "!") negation | "(" predicate ")"
///              | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
/// comparison  := ["ANY" | "SOME" | "ALL" | "NONE"] operand operator operand
/// operator    := ("==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
///              | "BETWEEN" | "IN" | "BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE"
///              | "MATCHES") ["[" modifiers "]"]
/// operand     := keyPath | "%K" | "SELF" | value | "{" value ("," value)* "}"
/// value       := number | "-" number | string | "nil" | "NULL" | "YES" | "NO"
///              | "TRUE" | "FALSE" | "%@" | "%d" | "%f" | …
/// ```
///
/// Keywords are case-insensitive. Every problem throws a
/// ``PredicateFormatProblem`` naming its column; nothing traps.
struct PredicateFormatParser {
    let root: ManagedObject.Type
    private let tokens: [PredicateFormatToken]
    private var index = 0
    private let arguments: [Any?]
    private var nextArgument = 0
    private var usedArguments = Set<Int>()
    /// How deeply parentheses and `NOT` nest here, against ``maximumNesting``.
    private var nesting = 0
    /// The fields of each entity met, read once a parse (see ``fields(of:)``).
    var fieldTables: [ObjectIdentifier: [String: (FieldDeclaration.Kind, valueType: Any.Type)]] = [:]

    /// As deep as a predicate may nest at all (``WherePredicate/maximumDepth``),
    /// so that a hostile format cannot exhaust the stack of this recursive parser.
    static let maximumNesting = WherePredicate.maximumDepth

    private init(root: ManagedObject.Type, tokens: [PredicateFormatToken], arguments: [Any?]) {
        self.root = root
        self.tokens = tokens
        self.arguments = arguments
    }

    /// The predicate `format` states with `arguments`, on the entity of `root`.
    static func predicate(
        _ format: String, arguments: [Any?], root: ManagedObject.Type
    ) throws(PredicateFormatProblem) -> WherePredicate {
        var parser = PredicateFormatParser(
            root: root, tokens: PredicateFormatLexer.tokens(of: format), arguments: arguments)
        let predicate = try parser.disjunction()
        guard parser.current.kind == .end else {
            throw parser.problem(
                "expected AND, OR or the end of the format, found \(parser.current.described)")
        }
        if let unused = arguments.indices.first(where: { !parser.usedArguments.contains($0) }) {
            throw PredicateFormatProblem(
                "\(arguments.count) argument(s) given, but the format uses \(parser.usedArguments.count) "
                    + "(argument #\(unused + 1), \(PredicateFormatValue.argument(arguments[unused] as Any).described), "
                    + "is left over)", at: nil)
        }
        return predicate
    }

    /// Resolves `keyPath`, names joined by dots, from `root` as a format's
    /// `%K` is: CoreStore's string key paths (``NamedKeyPath``).
    static func resolve(
        keyPath: String, root: ManagedObject.Type
    ) throws(PredicateFormatProblem) -> ResolvedPath {
        var parser = PredicateFormatParser(root: root, tokens: [], arguments: [])
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return try parser.resolve(components, column: 1)
    }

    // MARK: Tokens

    var current: PredicateFormatToken { tokens[index] }

    mutating func advance() {
        if index < tokens.count - 1 { index += 1 }
    }

    /// A problem at `column`, or at the current token; there, a token the
    /// lexer could not read is the problem.
    func problem(_ message: String, at column: Int? = nil) -> PredicateFormatProblem {
        if column == nil, case .error(let problem) = current.kind { return problem }
        return PredicateFormatProblem(message, at: column ?? current.column)
    }

    /// The current token's keyword, upper-cased, when it is one plain word.
    var keyword: String? {
        guard case .word(let word) = current.kind, !word.contains(".") else { return nil }
        return word.uppercased()
    }

    func isSymbol(_ symbol: String) -> Bool { current.kind == .symbol(symbol) }

    private mutating func expect(_ symbol: String, _ context: String) throws(PredicateFormatProblem)
    {
        guard isSymbol(symbol) else {
            throw problem("expected '\(symbol)' \(context), found \(current.described)")
        }
        advance()
    }

    // MARK: Predicates

    private mutating func disjunction() throws(PredicateFormatProblem) -> WherePredicate {
        var terms = [try conjunction()]
        while keyword == "OR" || isSymbol("||") {
            advance()
            terms.append(try conjunction())
        }
        return terms.count == 1 ? terms[0] : .disjunction(terms)
    }

    private mutating func conjunction() throws(PredicateFormatProblem) -> WherePredicate {
        var terms = [try negation()]
        while keyword == "AND" || isSymbol("&&") {
            advance()
            terms.append(try negation())
        }
        return terms.count == 1 ? terms[0] : .conjunction(terms)
    }

    private mutating func negation() throws(PredicateFormatProblem) -> WherePredicate {
        if keyword == "NOT" || isSymbol("!") {
            try enter()
            advance()
            defer { nesting -= 1 }
            return try negation().negated
        }
        if isSymbol("(") {
            try enter()
            advance()
            defer { nesting -= 1 }
            let inner = try disjunction()
            try expect(")", "to close the parenthesis")
            return inner
        }
        switch keyword {
        case "TRUEPREDICATE":
            advance()
            return .constant(true)
        case "FALSEPREDICATE":
            advance()
            return .constant(false)
        default:
            return try comparison()
        }
    }

    private mutating func enter() throws(PredicateFormatProblem) {
        nesting += 1
        if nesting > Self.maximumNesting {
            throw problem("the format nests more than \(Self.maximumNesting) levels deep")
        }
    }

    private mutating func comparison() throws(PredicateFormatProblem) -> WherePredicate {
        var quantifier: (WherePredicate.Quantifier, column: Int)?
        switch keyword {
        case "ANY", "SOME": quantifier = (.any, current.column)
        case "ALL": quantifier = (.all, current.column)
        case "NONE": quantifier = (.none, current.column)
        default: break
        }
        if quantifier != nil { advance() }
        let lhs = try operand()
        let op = try self.operator()
        let rhs = try operand()
        return try test(quantifier, lhs, op, rhs)
    }

    // MARK: Operators

    /// What a comparison tests, with the modifiers written after it (`[cd]`).
    enum Operator {
        case compare(WherePredicate.Comparison)
        case between
        case isIn
        case text(TextMatching.Operation)
        case matches
    }

    struct WrittenOperator {
        let kind: Operator
        let name: String
        let options: TextOptions
        let column: Int
    }

    private static let comparisons: [String: WherePredicate.Comparison] = [
        "==": .equal, "=": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual,
        "=<": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual, "=>": .greaterOrEqual,
    ]

    private mutating func `operator`() throws(PredicateFormatProblem) -> WrittenOperator {
        let column = current.column
        let kind: Operator
        let name: String
        if case .symbol(let symbol) = current.kind, let comparison = Self.comparisons[symbol] {
            (kind, name) = (.compare(comparison), symbol)
        } else {
            switch keyword {
            case "BETWEEN": kind = .between
            case "IN": kind = .isIn
            case "BEGINSWITH": kind = .text(.hasPrefix)
            case "ENDSWITH": kind = .text(.hasSuffix)
            case "CONTAINS": kind = .text(.contains)
            case "LIKE": kind = .text(.like)
            case "MATCHES": kind = .matches
            default:
                throw problem(
                    "expected an operator (==, <, IN, BEGINSWITH…), found \(current.described)")
            }
            name = keyword ?? ""
        }
        advance()
        var options: TextOptions = []
        if case .modifiers(let letters) = current.kind {
            for letter in letters.lowercased() {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                default:
                    throw problem(
                        "the modifier [\(letters)] is not supported (use [c], [d] or [cd])")
                }
            }
            advance()
        }
        return WrittenOperator(kind: kind, name: name, options: options, column: column)
    }

    // MARK: Operands

    /// One side of a comparison.
    enum Operand {
        case keyPath([String], column: Int)
        case value(PredicateFormatValue, column: Int)
        case list([PredicateFormatValue], column: Int)

        var column: Int {
            switch self {
            case .keyPath(_, let column), .value(_, let column), .list(_, let column): return column
            }
        }
    }

    private static let reserved: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY", "FUNCTION",
    ]

    private mutating func operand() throws(PredicateFormatProblem) -> Operand {
        let result = try plainOperand()
        if case .symbol(let symbol) = current.kind, ["+", "-", "*", "/"].contains(symbol) {
            throw problem("arithmetic ('\(symbol)') is not supported")
        }
        if isSymbol("("), case .keyPath = result {
            throw problem("functions are not supported")
        }
        return result
    }

    private mutating func plainOperand() throws(PredicateFormatProblem) -> Operand {
        let column = current.column
        switch current.kind {
        case .word(let word):
            let upper = word.contains(".") ? "" : word.uppercased()
            if Self.reserved.contains(upper) {
                throw problem(
                    upper == "SUBQUERY" || upper == "FUNCTION"
                        ? "\(upper) is not supported"
                        : "expected a key path or a value, found \(current.described)")
            }
            advance()
            switch upper {
            case "NIL", "NULL": return .value(.null, column: column)
            case "YES", "TRUE": return .value(.integer(1), column: column)
            case "NO", "FALSE": return .value(.integer(0), column: column)
            case "SELF": return .keyPath(["SELF"], column: column)
            default: return .keyPath(word.split(separator: ".").map(String.init), column: column)
            }
        case .number(let text):
            advance()
            return .value(try number(text, negative: false, column: column), column: column)
        case .symbol("-"):
            advance()
            guard case .number(let text) = current.kind else {
                throw problem("arithmetic ('-') is not supported", at: column)
            }
            advance()
            return .value(try number(text, negative: true, column: column), column: column)
        case .string(let text):
            advance()
            return .value(.text(text), column: column)
        case .specifier(let specifier):
            advance()
            return try substituted(specifier, column: column)
        case .symbol("{"):
            advance()
            var values: [PredicateFormatValue] = []
            while !isSymbol("}") {
                if !values.isEmpty { try expect(",", "between the values of { }") }
                guard case .value(let value, _) = try operand() else {
                    throw problem("{ } holds values only", at: column)
                }
                values.append(value)
            }
            advance()
            return .list(values, column: column)
        case .symbol("$"):
            throw problem("substitution variables ($NAME) are not supported")
        default:
            throw problem("expected a key path or a value, found \(current.described)")
        }
    }

    private func number(_ text: String, negative: Bool, column: Int) throws(PredicateFormatProblem)
        -> PredicateFormatValue
    {
        let signed = (negative ? "-" : "") + text
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            let digits = text.dropFirst(2)
            guard !digits.isEmpty else {
                throw problem("\(text) needs hexadecimal digits", at: column)
            }
            guard let value = Int64((negative ? "-" : "") + digits, radix: 16) else {
                throw problem("the number \(signed) does not fit in 64 bits", at: column)
            }
            return .integer(value)
        }
        if !text.contains("."), !text.lowercased().contains("e") {
            guard let value = Int64(signed) else {
                throw problem("the integer \(signed) does not fit in 64 bits", at: column)
            }
            return .integer(value)
        }
        guard let value = Double(signed), value.isFinite else {
            throw problem("the number \(signed) is not a finite double", at: column)
        }
        return .real(value)
    }

    // MARK: Arguments

    private mutating func substituted(
        _ specifier: PredicateFormatSpecifier, column: Int
    ) throws(PredicateFormatProblem) -> Operand {
        let number = specifier.position.map { $0 - 1 } ?? nextArgument
        if specifier.position == nil { nextArgument += 1 }
        guard number < arguments.count else {
            throw problem(
                "the format needs argument #\(number + 1), but \(arguments.count) argument(s) were given",
                at: column)
        }
        usedArguments.insert(number)
        let argument = arguments[number].flatMap(PredicateFormatValue.unwrapped)
        switch specifier.kind {
        case .object:
            return .value(argument.map { .argument($0) } ?? .null, column: column)
        case .keyPath:
            guard
                let path = argument.flatMap({ $0 as? String ?? ($0 as? Substring).map(String.init) }
                )
            else {
                throw problem(
                    "%K needs a key path string, got \(PredicateFormatValue.describe(argument))",
                    at: column)
            }
            return .keyPath(
                path.split(separator: ".", omittingEmptySubsequences: false).map(String.init),
                column: column)
        case .integer:
            guard let value = PredicateFormatValue.integerArgument(argument) else {
                throw problem(
                    "%d needs an integer that fits in 64 bits, got \(PredicateFormatValue.describe(argument))",
                    at: column)
            }
            return .value(.integer(value), column: column)
        case .real:
            guard let value = PredicateFormatValue.realArgument(argument), !value.isNaN else {
                throw problem(
                    "%f needs a number (not NaN), got \(PredicateFormatValue.describe(argument))",
                    at: column)
            }
            return .value(.real(value), column: column)
        }
    }
}

extension PredicateFormatToken {
    /// How the token reads in an error message.
    var described: String {
        switch kind {
        case .word(let word): return "'\(word)'"
        case .number(let text): return text
        case .string(let text): return String(reflecting: text)
        case .specifier: return "a specifier"
        case .symbol(let symbol): return "'\(symbol)'"
        case .modifiers(let letters): return "[\(letters)]"
        case .end: return "the end of the format"
        case .error(let problem): return problem.message
        }
    }
}
