import Foundation

/// The SQL functions Strata's generated SQL calls, created on the server in
/// the store's schema: PostgreSQL cannot call the Swift functions SQLite
/// connections register (`Connection+Functions`, `Connection+DecimalAggregates`,
/// `Connection+Arithmetic`), so each has a counterpart here with the same
/// name, the same arguments in the same order, and the same results, so that
/// one compiled query runs on both engines.
///
/// - `strata_fold(x, options)`, `strata_text_match(operation, x, pattern, options)`:
///   see `PostgreSQLFunctions+Text.swift`.
/// - `strata_decimal(x)`, `strata_decimal_sum/avg/min/max(x)`: see
///   `PostgreSQLFunctions+Decimal.swift`.
/// - `strata_add(x, amount, lowest, highest)`: below.
///
/// `strata_values(list)` has no counterpart: PostgreSQL has arrays, and a
/// membership test is `x IN (SELECT unnest(CAST(? AS type[])))` with one
/// array parameter (see ``PostgreSQLValueList``).
///
/// The text is built only from constants Strata generates (the schema name,
/// quoted, and tables derived from Swift's Unicode data): no user value.
enum PostgreSQLFunctions {
    /// The statements that create (or replace) every function in `schema`.
    static func creationSQL(in schema: String) -> String {
        let schema = quotedIdentifier(schema)
        return [textFunctions(in: schema), decimalFunctions(in: schema), arithmetic(in: schema)]
            .joined(separator: "\n")
    }

    /// The message of the error `strata_add` fails with: the text of SQLite's
    /// `Connection.outOfRangeMessage`, which callers look for in the error
    /// (a test holds the two equal; `Connection` is not visible here).
    static let outOfRangeMessage = "strata_add: the result is out of the field's range"

    /// `strata_add`: the sum is checked in `numeric`, which cannot overflow,
    /// before it is computed in `bigint`; PostgreSQL's own `bigint` overflow
    /// error would not carry the message callers look for. A NULL amount or
    /// bound counts as 0, as `sqlite3_value_int64` reads it on SQLite.
    static func arithmetic(in schema: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(schema).strata_add(
            value bigint, amount bigint, lowest bigint, highest bigint) RETURNS bigint
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $strata$
        DECLARE
            total numeric;
        BEGIN
            IF value IS NULL THEN
                RETURN NULL;
            END IF;
            total := value::numeric + coalesce(amount, 0);
            IF total < coalesce(lowest, 0) OR total > coalesce(highest, 0)
                OR total < -9223372036854775808 OR total > 9223372036854775807 THEN
                RAISE EXCEPTION '%', \(literal(outOfRangeMessage)) USING ERRCODE = '22003';
            END IF;
            RETURN total::bigint;
        END
        $strata$;
        """
    }

    /// `name` as a double-quoted SQL identifier.
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a single-quoted SQL string literal (standard-conforming: a
    /// backslash is itself, only a quote is doubled).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}

extension PostgreSQLSession {
    /// Creates (or replaces) Strata's SQL functions in `schema`.
    func createFunctions(in schema: String) throws {
        try execute(PostgreSQLFunctions.creationSQL(in: schema))
    }
}
