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
/// ς, Swift's to σ; glibc's maps İ to i, Swift's to i + U+0307).
///
/// The canonical decomposition is the server's `normalize(x, NFD)`, which
/// uses PostgreSQL's own Unicode tables (14.0 in PostgreSQL 15, 15.0 in 16,
/// 15.1 in 17), while the marks removed and the case mappings are Swift's
/// (Unicode 16.0 in Swift 6.3). Decompositions never change once a character
/// is assigned, and Swift decomposes no character assigned after 14.0, so the two
/// agree on every scalar (a test checks each one that any fold changes). What
/// differs is canonical reordering around the two spacing marks with a
/// combining class assigned since (U+11F41 in 15.0, U+113CF in 16.0): to an
/// older server they are starters, so a sequence where one follows a
/// spacing mark of a higher class, `U+1D16D U+11F41`, keeps its
/// order on the server and is reordered by Swift.
///
/// Text compares byte by byte (`COLLATE "C"`), like Swift's UTF-8 comparison.
extension PostgreSQLFunctions {
    /// The statements that create the text functions in `schema` (quoted).
    /// Without `asciiFastPath`, ASCII text takes the general path too: for
    /// the benchmark that measures what the fast path saves.
    static func textFunctions(in schema: String, asciiFastPath: Bool = true) -> String {
        let tables = UnicodeFoldTables.current
        let lowercaseObject = tables.singleLowercase.map {
            "\(jsonString($0.from)):\(jsonString($0.to))"
        }
        .joined(separator: ",")
        let replacements = tables.multipleLowercase.reduce("folded") { expression, mapping in
            "replace(\(expression), \(literal(String(mapping.from))), \(literal(mapping.to)))"
        }
        // Text in ASCII is its own decomposition and has no mark; its lower
        // case is `lower()` under "C", which changes A-Z only, as Swift does.
        let ascii =
            asciiFastPath
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
                lowercase text := '';
                letter text;
            BEGIN
                IF options & 2 <> 0 THEN
                    folded := regexp_replace(
                        normalize(folded, NFD), \(literal(characterClass(tables.nonspacingMarks) + "+")),
                        '', 'g');
                END IF;
                IF options & 1 <> 0 THEN
                    folded := lower(folded COLLATE "C");
                    IF folded ~ \(literal(characterClass(tables.lowercasedScalars))) THEN
                        -- The letters to lower, each looked up in a JSON object (a
                        -- binary search): translate() with the whole table would
                        -- compare each character of the text with a thousand.
                        uppercase := regexp_replace(
                            folded, \(literal(characterClass(tables.singleLowercase.map(\.from), negated: true) + "+")),
                            '', 'g');
                        FOREACH letter IN ARRAY string_to_array(uppercase, NULL) LOOP
                            lowercase := lowercase || (\(literal("{" + lowercaseObject + "}"))::jsonb ->> letter);
                        END LOOP;
                        folded := translate(folded, uppercase, lowercase);
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

    /// `scalar` as a JSON string.
    static func jsonString(_ scalar: Unicode.Scalar) -> String {
        precondition(scalar.value >= 0x20, "a control character in a JSON string")
        return scalar == "\"" || scalar == "\\" ? "\"\\\(scalar)\"" : "\"\(scalar)\""
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
            if scalar.properties.generalCategory == .nonspacingMark {
                nonspacingMarks.append(scalar)
            }
            let lower = scalar.properties.lowercaseMapping
            if scalar.isASCII {
                // The ASCII fast path relies on it: lower(x COLLATE "C") maps A-Z alone.
                let expected =
                    (0x41...0x5A).contains(value) ? Unicode.Scalar(value + 0x20)! : scalar
                precondition(
                    lower.unicodeScalars.elementsEqual([expected]), "ASCII lower case changed")
                continue
            }
            guard !lower.unicodeScalars.elementsEqual([scalar]) else { continue }
            let scalars = Array(lower.unicodeScalars)
            // Lowering is applied once, by translate() then replace(): that
            // equals Swift's scalar-by-scalar mapping if no result is lowered again.
            precondition(
                scalars.allSatisfy {
                    $0.properties.lowercaseMapping.unicodeScalars.elementsEqual([$0])
                },
                "a lower case that is lowered again")
            if scalars.count == 1 {
                singleLowercase.append((scalar, scalars[0]))
            } else {
                multipleLowercase.append((scalar, lower))
            }
        }
    }
}
