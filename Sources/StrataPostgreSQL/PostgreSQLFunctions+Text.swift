import Strata

/// `strata_fold` and `strata_text_match` in SQL, equal to ``TextMatching``'s
/// `fold` and `matches`:
///
/// - `strata_fold(x, options)`: `x` folded by ``TextOptions`` raw value
///   `options`; NULL for NULL; a value of any other type unchanged (an
///   `anyelement` overload), as SQLite returns a non-text value unchanged.
/// - `strata_text_match(operation, x, pattern, options)`: true or false, or
///   NULL when `x` or `pattern` is NULL or `operation` is unknown. A boolean,
///   not SQLite's 1 or 0: PostgreSQL's `WHERE` and `AND` take booleans only.
///
/// Folding uses tables taken from Swift's Unicode data at run time
/// (``UnicodeFoldTables``), not the server's `lower()`, whose result depends
/// on the collation provider and its version (ICU's lower-cases a final Σ to
/// ς, Swift's to σ; glibc's maps İ to i, Swift's to i + U+0307). The
/// canonical decomposition is the server's `normalize(x, NFD)`, which uses
/// PostgreSQL's own Unicode tables (14.0 in PostgreSQL 15, 15.0 in 16, 15.1
/// in 17), while Swift uses the Unicode version of its standard library
/// (15.1 or later in Swift 6). Decompositions never change once a character
/// is assigned, so the two agree on every character the server's version
/// knows; they can differ only on text with a decomposable or combining
/// character assigned after it, which the server leaves as it is.
///
/// Text compares byte by byte (`COLLATE "C"`), like Swift's UTF-8 comparison.
extension PostgreSQLFunctions {
    static func textFunctions(in schema: String, asciiFastPath: Bool = true) -> String {
        let tables = UnicodeFoldTables.current
        let singleFrom = String(String.UnicodeScalarView(tables.singleLowercase.map(\.from)))
        let singleTo = String(String.UnicodeScalarView(tables.singleLowercase.map(\.to)))
        let replacements = tables.multipleLowercase.reduce("folded") { expression, mapping in
            "replace(\(expression), \(literal(String(mapping.from))), \(literal(mapping.to)))"
        }
        // Text in ASCII is its own decomposition and has no mark; its lower
        // case is `lower()` under "C", which changes A-Z only, as Swift does.
        let ascii = asciiFastPath
            ? """
                WHEN octet_length(value) = length(value) THEN
                    CASE WHEN options & 1 = 0 THEN value ELSE lower(value COLLATE "C") END
            """
            : ""
        return """
            CREATE OR REPLACE FUNCTION \(schema).strata_fold_unicode(value text, options bigint)
                RETURNS text
            LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $strata$
            DECLARE
                folded text := value;
                uppercase text;
            BEGIN
                IF options & 2 <> 0 THEN
                    folded := regexp_replace(
                        normalize(folded, NFD), \(literal(characterClass(tables.nonspacingMarks) + "+")),
                        '', 'g');
                END IF;
                IF options & 1 <> 0 THEN
                    folded := lower(folded COLLATE "C");
                    -- translate() looks each character up in its whole list: given
                    -- only the upper-case letters the text holds, it stays fast.
                    IF folded ~ \(literal(characterClass(tables.lowercasedScalars))) THEN
                        uppercase := regexp_replace(
                            folded, \(literal(characterClass(tables.singleLowercase.map(\.from), negated: true) + "+")),
                            '', 'g');
                        folded := translate(
                            folded, uppercase, translate(uppercase, \(literal(singleFrom)), \(literal(singleTo))));
                        folded := \(replacements);
                    END IF;
                END IF;
                RETURN folded;
            END
            $strata$;

            CREATE OR REPLACE FUNCTION \(schema).strata_fold(value text, options bigint) RETURNS text
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $strata$
            SELECT CASE
                WHEN coalesce(options, 0) & 3 = 0 THEN value
            \(ascii)
                ELSE \(schema).strata_fold_unicode(value, options)
            END
            $strata$;

            CREATE OR REPLACE FUNCTION \(schema).strata_fold(value anyelement, options bigint)
                RETURNS anyelement
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $strata$ SELECT value $strata$;

            CREATE OR REPLACE FUNCTION \(schema).strata_text_match(
                operation bigint, value text, pattern text, options bigint) RETURNS boolean
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $strata$
            SELECT CASE coalesce(operation, 0)
                WHEN 0 THEN starts_with(
                    \(schema).strata_fold(value, options) COLLATE "C", \(schema).strata_fold(pattern, options))
                WHEN 1 THEN right(
                    \(schema).strata_fold(value, options), length(\(schema).strata_fold(pattern, options)))
                    = \(schema).strata_fold(pattern, options) COLLATE "C"
                WHEN 2 THEN strpos(
                    \(schema).strata_fold(value, options) COLLATE "C", \(schema).strata_fold(pattern, options)) > 0
                -- Strata's * and ? become LIKE's % and _; LIKE's own %, _ and
                -- escape character ! match only themselves.
                WHEN 3 THEN \(schema).strata_fold(value, options) COLLATE "C" LIKE replace(replace(replace(
                    replace(replace(\(schema).strata_fold(pattern, options), '!', '!!'), '%', '!%'),
                    '_', '!_'), '*', '%'), '?', '_') ESCAPE '!'
            END
            $strata$;
            """
    }

    /// A regular-expression bracket expression matching `scalars` (none of
    /// them ASCII, so none is special inside brackets), as ranges.
    static func characterClass(_ scalars: [Unicode.Scalar], negated: Bool = false) -> String {
        var ranges: [ClosedRange<UInt32>] = []
        for value in scalars.map(\.value).sorted() {
            if let last = ranges.last, last.upperBound + 1 == value {
                ranges[ranges.count - 1] = last.lowerBound...value
            } else if ranges.last?.contains(value) != true {
                ranges.append(value...value)
            }
        }
        var text = negated ? "[^" : "["
        for range in ranges {
            precondition(range.lowerBound >= 0x80, "an ASCII character in a bracket expression")
            text.unicodeScalars.append(Unicode.Scalar(range.lowerBound)!)
            guard range.upperBound > range.lowerBound else { continue }
            text += "-"
            text.unicodeScalars.append(Unicode.Scalar(range.upperBound)!)
        }
        return text + "]"
    }
}

/// What ``TextMatching/fold(_:_:)`` does to each scalar, read from Swift's
/// own Unicode data (`Unicode.Scalar.Properties`) once per process.
struct UnicodeFoldTables: Sendable {
    /// The scalars of general category Mn, which the diacritic fold removes.
    var nonspacingMarks: [Unicode.Scalar] = []
    /// The non-ASCII scalars whose lower case is one other scalar.
    var singleLowercase: [(from: Unicode.Scalar, to: Unicode.Scalar)] = []
    /// The non-ASCII scalars whose lower case is several scalars (İ: i + U+0307).
    var multipleLowercase: [(from: Unicode.Scalar, to: String)] = []

    /// Every non-ASCII scalar whose lower case is not itself.
    var lowercasedScalars: [Unicode.Scalar] {
        singleLowercase.map(\.from) + multipleLowercase.map(\.from)
    }

    static let current = UnicodeFoldTables()

    private init() {
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // a surrogate
            if scalar.properties.generalCategory == .nonspacingMark { nonspacingMarks.append(scalar) }
            let lower = scalar.properties.lowercaseMapping
            if scalar.isASCII {
                // The ASCII fast path relies on it: lower(x COLLATE "C") maps A-Z alone.
                let expected = (0x41...0x5A).contains(value) ? Unicode.Scalar(value + 0x20)! : scalar
                precondition(lower.unicodeScalars.elementsEqual([expected]), "ASCII lower case changed")
                continue
            }
            guard lower.unicodeScalars.elementsEqual([scalar]) == false else { continue }
            let scalars = Array(lower.unicodeScalars)
            if scalars.count == 1 {
                singleLowercase.append((scalar, scalars[0]))
            } else {
                multipleLowercase.append((scalar, lower))
            }
        }
    }
}
