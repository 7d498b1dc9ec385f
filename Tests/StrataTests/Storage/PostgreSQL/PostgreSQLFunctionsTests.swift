import Foundation
import Testing

@testable import Strata
@testable import StrataPostgreSQL
import ThrowawayPostgreSQL

/// The server-side counterparts of the Swift functions SQLite connections
/// register: the same SQL gives the same results on both engines.
@Suite(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
struct PostgreSQLFunctionsTests {
    /// A session in a schema of its own, with Strata's functions in it.
    private func session() throws -> PostgreSQLSession {
        let (session, schema) = try PostgreSQLServer.sessionInNewSchema()
        try session.createFunctions(in: schema)
        return session
    }

    private func rows(_ session: PostgreSQLSession, _ sql: String, _ arguments: [StoredValue] = [])
        throws -> [[StoredValue]]
    {
        let statement = try session.statement(sql)
        try statement.bind(arguments)
        var rows: [[StoredValue]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.value(at: $0) })
        }
        return rows
    }

    // MARK: Text

    /// Letters whose folding differs between naive implementations: ß, both
    /// spellings of é, Turkish ı and İ, the three sigmas, a titlecase digraph,
    /// a ligature, Greek with tonos and dialytika, Kelvin and Ohm signs (whose
    /// decompositions are K and Ω), Hangul (decomposed into jamo), marks out of
    /// canonical order, emoji, and the wildcard and escape characters of both
    /// pattern languages.
    static let alphabet: [String] = [
        "ß", "\u{E9}", "e\u{301}", "É", "ı", "İ", "I", "i", "Σ", "σ", "ς", "ǅ", "ǆ", "ﬁ", "ά", "Ά",
        "ΐ", "Ω", "\u{2126}", "\u{212A}", "한", "a\u{316}\u{301}", "a\u{301}\u{316}", "\u{345}",
        "Å", "😀", "👍🏽", "a", "B", "k", "Z", "*", "?", "%", "_", "\\", "!", " ",
    ]

    private static func randomText(_ generator: inout SplitMix64, maximumLength: Int = 6) -> String
    {
        (0..<Int.random(in: 0...maximumLength, using: &generator))
            .map { _ in alphabet.randomElement(using: &generator)! }.joined()
    }

    /// A pattern that often matches `text`: a piece of it, its case changed
    /// or letters turned into wildcards; or one of its own.
    private static func randomPattern(for text: String, _ generator: inout SplitMix64) -> String {
        guard Bool.random(using: &generator) else {
            return randomText(&generator, maximumLength: 3)
        }
        let scalars = Array(text.unicodeScalars)
        let start = Int.random(in: 0...scalars.count, using: &generator)
        let end = Int.random(in: start...scalars.count, using: &generator)
        var piece = scalars[start..<end].map { scalar -> String in
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: return "*"
            case 1: return "?"
            default: return String(scalar)
            }
        }.joined()
        if Bool.random(using: &generator) { piece = piece.uppercased() }
        if Int.random(in: 0..<4, using: &generator) == 0 { piece = "*" + piece }
        return piece
    }

    @Test func foldAndMatchesEqualSwiftsForRandomText() throws {
        let session = try session()
        var generator = SplitMix64.random()
        let optionSets = (0...3).map { TextOptions(rawValue: $0) }
        let operations: [TextMatching.Operation] = [.hasPrefix, .hasSuffix, .contains, .like]
        var columns = optionSets.map { "strata_fold(?, \($0.rawValue))" }
        for operation in operations {
            for options in optionSets {
                columns.append(
                    "strata_text_match(\(operation.rawValue), ?, ?, \(options.rawValue))")
            }
        }
        let sql = "SELECT " + columns.joined(separator: ", ")
        for _ in 0..<400 {
            let text = Self.randomText(&generator)
            let pattern = Self.randomPattern(for: text, &generator)
            let arguments =
                Array(repeating: StoredValue.text(text), count: optionSets.count)
                + Array(repeating: [.text(text), .text(pattern)], count: 16).flatMap { $0 }
            let row = try #require(try rows(session, sql, arguments).first)
            for (index, options) in optionSets.enumerated() {
                #expect(
                    Self.bytes(row[index]) == Array(TextMatching.fold(text, options).utf8),
                    "seed \(generator.seed): fold of \(text.debugDescription) by \(options.rawValue)"
                )
            }
            var column = optionSets.count
            for operation in operations {
                for options in optionSets {
                    let expected = TextMatching.matches(text, operation, pattern, options)
                    #expect(
                        row[column] == .integer(expected ? 1 : 0),
                        """
                        seed \(generator.seed): \(operation) of \(pattern.debugDescription) in \
                        \(text.debugDescription) by \(options.rawValue)
                        """)
                    column += 1
                }
            }
        }
    }

    /// Every scalar that any fold changes, and a sample of the rest, one by
    /// one: the tables cover Swift's Unicode data, and the server's
    /// decomposition agrees with Swift's on every assigned scalar (see
    /// `PostgreSQLFunctions+Text.swift` for the sequences where it cannot).
    @Test func foldOfEachScalarEqualsSwifts() throws {
        let session = try session()
        var texts: [String] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.age != nil else { continue }
            let text = String(scalar)
            let changed = [TextOptions.caseInsensitive, .diacriticInsensitive].contains {
                !TextMatching.fold(text, $0).unicodeScalars.elementsEqual(text.unicodeScalars)
            }
            if changed || value % 97 == 0 {
                texts.append(text)
            }
        }
        // The precomposed letters, Hangul syllables, upper-case letters and marks.
        #expect(texts.count > 15_000)
        for options in 1...3 {
            let folded = try rows(
                session, "SELECT strata_fold(x, \(options)) FROM unnest(?::text[]) AS x",
                [.text(PostgreSQLValueList.literal(texts.map { .text($0) }))])
            #expect(folded.count == texts.count)
            for (text, row) in zip(texts, folded) {
                let expected = TextMatching.fold(text, TextOptions(rawValue: options))
                #expect(
                    row.first.flatMap(Self.bytes) == Array(expected.utf8),
                    "U+\(String(text.unicodeScalars.first!.value, radix: 16)) by \(options)")
            }
        }
    }

    /// The UTF-8 of a text: `String`'s `==` would take canonically equivalent
    /// spellings for equal.
    private static func bytes(_ value: StoredValue) -> [UInt8]? {
        guard case .text(let text) = value else { return nil }
        return Array(text.utf8)
    }

    @Test func nullAndOtherValuesFollowSQLitesRules() throws {
        let session = try session()
        let row = try #require(
            try rows(
                session,
                """
                SELECT strata_fold(NULL::text, 3), strata_fold(42, 3), strata_fold('Ab'::text, NULL),
                    strata_text_match(2, NULL, 'a', 0), strata_text_match(2, 'a', NULL, 1),
                    strata_text_match(9, 'a', 'a', 0), strata_text_match(NULL, 'ab', 'a', 0),
                    strata_fold(?, 1)
                """, [.null]
            ).first)
        #expect(row == [.null, .integer(42), .text("Ab"), .null, .null, .null, .integer(1), .null])
    }

    /// The store creates the functions each time it opens; a schema name is
    /// quoted, whatever it holds.
    @Test func creatingTheFunctionsAgainReplacesThem() throws {
        let schema = "Strata \"Test\" \(UUID().uuidString.prefix(8))"
        let session = try PostgreSQLSession(
            connectionString: try PostgreSQLServer.shared().connectionString)
        let quoted = PostgreSQLFunctions.quotedIdentifier(schema)
        try session.execute("CREATE SCHEMA \(quoted)")
        try session.createFunctions(in: schema)
        try session.createFunctions(in: schema)
        let row = try rows(
            session,
            "SELECT \(quoted).strata_fold('ÉA', 3), \(quoted).strata_add(1, 2, 0, 10), "
                + "\(quoted).strata_decimal_sum(x) FROM (VALUES ('1.5'), ('2')) AS v(x)")
        #expect(row == [[.text("ea"), .integer(3), .text("3.5")]])
        try session.execute("DROP SCHEMA \(quoted) CASCADE")
    }

    // MARK: Decimal aggregates

    /// The same table and the same query on SQLite, with its Swift aggregates,
    /// and on the server: equal as `Decimal`s group by group. Values of up to
    /// 18 digits with up to 10 after the point, so that every exact sum fits
    /// in `Decimal`'s 38 digits.
    @Test func decimalAggregatesEqualSQLites() throws {
        var generator = SplitMix64.random()
        try compareDecimalAggregates(&generator) { generator in
            let digits = String(UInt64.random(in: 0...999_999_999_999_999_999, using: &generator))
            return Self.decimalText(
                digits, scale: Int.random(in: 0...min(10, digits.count), using: &generator),
                &generator)
        }
    }

    /// Values of up to 38 digits, with up to 38 after the point: minimum and
    /// maximum are equal, sums and averages equal to `Decimal`'s precision
    /// only. `numeric` sums exactly, `Decimal` rounds to 38 digits at every
    /// addition (an error of some units in the 37th digit after 30 values).
    @Test func longDecimalAggregatesEqualSQLitesToDecimalsPrecision() throws {
        var generator = SplitMix64.random()
        try compareDecimalAggregates(&generator, relativeError: Decimal(string: "1e-32")!) {
            generator in
            let digits =
                String(UInt64.random(in: 0...999_999_999_999_999_999, using: &generator))
                + String(
                    UInt64.random(
                        in: 100_000_000_000_000_000...999_999_999_999_999_999, using: &generator))
                + String(Int.random(in: 10...99, using: &generator))
            return Self.decimalText(
                digits, scale: Int.random(in: 0...digits.count, using: &generator), &generator)
        }
    }

    private static func decimalText(_ digits: String, scale: Int, _ generator: inout SplitMix64)
        -> String
    {
        var text = digits
        if scale > 0 { text.insert(".", at: text.index(text.endIndex, offsetBy: -scale)) }
        return Bool.random(using: &generator) ? "-" + text : text
    }

    /// Runs the aggregates over random groups on both engines; sums and
    /// averages may differ by `relativeError` of the group's largest value.
    private func compareDecimalAggregates(
        _ generator: inout SplitMix64, relativeError: Decimal = 0,
        _ randomDecimal: (inout SplitMix64) -> String
    ) throws {
        let session = try session()
        let sqlite = try Connection(path: ":memory:", readOnly: false)
        let create = "CREATE TABLE t (g BIGINT, d TEXT)"
        try session.execute(create)
        try sqlite.run(create)
        for group in 0..<40 {
            // Group 0 has only NULLs.
            for _ in 0..<Int.random(in: 1...30, using: &generator) {
                var value = StoredValue.null
                if group > 0 && Int.random(in: 0..<6, using: &generator) > 0 {
                    value = .text(randomDecimal(&generator))
                }
                let insert = "INSERT INTO t VALUES (?, ?)"
                try sqlite.run(insert, [.integer(Int64(group)), value])
                let statement = try session.statement(insert)
                try statement.bind([.integer(Int64(group)), value])
                _ = try statement.step()
            }
        }
        for query in [
            "SELECT g, strata_decimal_sum(d), strata_decimal_avg(d), strata_decimal_min(d), "
                + "strata_decimal_max(d) FROM t GROUP BY g ORDER BY g",
            "SELECT strata_decimal_sum(d), strata_decimal_avg(d), strata_decimal_min(d), "
                + "strata_decimal_max(d) FROM t WHERE g < 0",
        ] {
            let expected = try sqlite.query(query) { statement in
                (0..<statement.columnCount).map { statement.value(at: $0) }
            }
            let actual = try rows(session, query)
            #expect(actual.count == expected.count)
            for (sqliteRow, row) in zip(expected, actual) {
                let count = sqliteRow.count
                let expectedValues = sqliteRow.map(Self.decimal)
                // Rounding at each addition errs relative to the values added,
                // not to their sum, which may cancel to far less: the bound is
                // taken from the group's largest value (its minimum or maximum,
                // the last two columns).
                let largest = expectedValues.suffix(2).compactMap { $0.map(abs) }.max() ?? 0
                for (index, (a, b)) in zip(expectedValues, row.map(Self.decimal)).enumerated() {
                    // The sum and the average are the columns 4 and 3 from the end.
                    let tolerance = [count - 4, count - 3].contains(index) ? relativeError : 0
                    let close = a.flatMap { a in
                        b.map { b in abs(a - b) <= Swift.max(abs(a), largest) * tolerance }
                    }
                    #expect(
                        a == b || close == true,
                        "seed \(generator.seed): SQLite \(sqliteRow), PostgreSQL \(row)")
                }
            }
        }
    }

    /// A value as the `Decimal` that Strata reads from it (integers as themselves).
    private static func decimal(_ value: StoredValue) -> Decimal? {
        switch value {
        case .text(let text): Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
        case .integer(let integer): Decimal(integer)
        default: nil
        }
    }

    @Test func decimalAggregatesRejectWhatIsNotADecimal() throws {
        let session = try session()
        try session.execute("CREATE TABLE t (d TEXT); INSERT INTO t VALUES ('1.5'), ('NaN')")
        let error = #expect(throws: DatabaseError.self) {
            _ = try rows(session, "SELECT strata_decimal_sum(d) FROM t")
        }
        #expect(error?.message == "'NaN' is not a decimal")
    }

    // MARK: strata_add

    @Test func addFailsOutOfRangeAsSQLiteDoes() throws {
        let session = try session()
        #expect(PostgreSQLFunctions.outOfRangeMessage == Connection.outOfRangeMessage)
        let sql = "SELECT strata_add(?, ?, ?, ?)"
        let cases: [(StoredValue, Int64, ClosedRange<Int64>, StoredValue?)] = [
            (.integer(5), 3, -128...127, .integer(8)),
            (.integer(120), 7, -128...127, .integer(127)),
            (.integer(120), 8, -128...127, nil),
            (.integer(-120), -9, -128...127, nil),
            (.integer(.max), 1, .min ... .max, nil),
            (.integer(.min), -1, .min ... .max, nil),
            (.integer(.max - 1), 1, .min ... .max, .integer(.max)),
            (.null, 1, .min ... .max, .null),
        ]
        for (value, amount, range, expected) in cases {
            let arguments: [StoredValue] = [
                value, .integer(amount), .integer(range.lowerBound), .integer(range.upperBound),
            ]
            if let expected {
                #expect(try rows(session, sql, arguments) == [[expected]], "\(value) + \(amount)")
            } else {
                let error = #expect(throws: DatabaseError.self, "\(value) + \(amount) in \(range)")
                {
                    _ = try rows(session, sql, arguments)
                }
                #expect(error?.message.contains(Connection.outOfRangeMessage) == true)
            }
        }
    }

    @Test func addInABulkUpdateChangesNothingWhenOneRowOverflows() throws {
        let session = try session()
        try session.execute("CREATE TABLE t (x SMALLINT); INSERT INTO t VALUES (1), (127), (NULL)")
        #expect(throws: DatabaseError.self) {
            _ = try rows(
                session, "UPDATE t SET x = strata_add(x, ?, ?, ?)",
                [.integer(1), .integer(-128), .integer(127)])
        }
        #expect(
            try rows(session, "SELECT x FROM t ORDER BY x") == [
                [.integer(1)], [.integer(127)], [.null],
            ])
    }

    // MARK: Lists

    /// `PostgreSQLValueList.membership` (an `IN` over `unnest`), and `x = ANY(?)`, with the
    /// values as one array literal find exactly the rows whose value is in
    /// the list, for every storage class.
    @Test func anArrayLiteralCarriesEveryValueExactly() throws {
        let session = try session()
        try session.execute(
            #"CREATE TABLE t (i BIGINT, r DOUBLE PRECISION, s TEXT COLLATE "C", b BYTEA)"#)
        var generator = SplitMix64.random()
        let texts = [
            "", " ", "NULL", "null", "{}", "a,b", "\"", "\\", "\\\"", "'", "é", "e\u{301}", "😀",
            " x ",
        ]
        let rowsWritten: [[StoredValue]] = (0..<60).map { index in
            [
                .integer(
                    index % 3 == 0
                        ? Int64.random(in: .min ... .max, using: &generator) : Int64(index)),
                .real(
                    [
                        0.1, -0.0, 1e-300, .infinity, -.infinity,
                        Double.random(in: -1e9...1e9, using: &generator),
                    ]
                    .randomElement(using: &generator)!),
                .text(
                    texts.randomElement(using: &generator)!
                        + Self.randomText(&generator, maximumLength: 2)),
                .blob(generator.bytes(Int.random(in: 0...4, using: &generator))),
            ]
        }
        for row in rowsWritten {
            let insert = try session.statement("INSERT INTO t VALUES (?, ?, ?, ?)")
            try insert.bind(row)
            _ = try insert.step()
        }
        for (index, column) in ["i", "r", "s", "b"].enumerated() {
            let list = rowsWritten.shuffled(using: &generator).prefix(20).map { $0[index] }
            let literal = StoredValue.text(PostgreSQLValueList.literal(list))
            let (membership, argument) = PostgreSQLValueList.membership(column, list)
            let found = try rows(session, "SELECT count(*) FROM t WHERE \(membership)", [argument])
            let foundByAny = try rows(
                session, "SELECT count(*) FROM t WHERE \(column) = ANY(?)", [literal])
            #expect(found == foundByAny, "seed \(generator.seed): column \(column)")
            // Reals compare by value (-0 = 0), texts by bytes, as on the server.
            let expected = rowsWritten.filter { row in
                list.contains { value in
                    if case .real(let a) = value, case .real(let b) = row[index] { return a == b }
                    if case .text = value { return Self.bytes(value) == Self.bytes(row[index]) }
                    return value == row[index]
                }
            }
            #expect(
                found == [[.integer(Int64(expected.count))]],
                "seed \(generator.seed): column \(column)")
        }
    }
}
