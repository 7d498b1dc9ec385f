/// `strata_decimal(x)`, by which `Decimal` fields compare and sort, and
/// `strata_decimal_sum/avg/min/max(x)` over `Decimal` fields stored as
/// decimal text, as on SQLite: exact, in `numeric`, over the non-NULL values;
/// NULL when there is none; a text that is not a decimal makes the query fail
/// with SQLite's message (`'…' is not a decimal`). The result is `numeric`'s
/// text, which `Decimal(string:)` reads.
///
/// `numeric` is exact where `Decimal` keeps 38 significant digits: a sum
/// whose digits go past that reads back as `Decimal(string:)` rounds the exact
/// sum, where SQLite's `Decimal` arithmetic rounds at every step. The average
/// is the exact quotient to more digits than `Decimal` keeps.
extension PostgreSQLFunctions {
    /// The statements that create the decimal aggregates in `schema` (quoted).
    static func decimalFunctions(in schema: String) -> String {
        """
        CREATE OR REPLACE FUNCTION \(schema).strata_decimal_parse(value text) RETURNS numeric
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $strata$
        BEGIN
            -- numeric would also take NaN, Infinity and spaces, which Decimal does not.
            IF value !~ '^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$' THEN
                RAISE EXCEPTION '''%'' is not a decimal', value USING ERRCODE = '22P02';
            END IF;
            RETURN value::numeric;
        END
        $strata$;

        -- Decimal fields compare and sort by number: as numeric, where
        -- SQLite compares sort keys that order the same numbers the same way.
        CREATE OR REPLACE FUNCTION \(schema).strata_decimal(value text) RETURNS numeric
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $strata$
        SELECT \(schema).strata_decimal_parse(value)
        $strata$;

        CREATE OR REPLACE FUNCTION \(schema).strata_decimal_sum_step(total numeric, value text)
            RETURNS numeric
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $strata$
        SELECT CASE WHEN value IS NULL THEN total
            ELSE coalesce(total, 0) + \(schema).strata_decimal_parse(value) END
        $strata$;

        CREATE OR REPLACE FUNCTION \(schema).strata_decimal_min_step(smallest numeric, value text)
            RETURNS numeric
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $strata$
        SELECT CASE WHEN value IS NULL THEN smallest
            ELSE least(smallest, \(schema).strata_decimal_parse(value)) END
        $strata$;

        CREATE OR REPLACE FUNCTION \(schema).strata_decimal_max_step(largest numeric, value text)
            RETURNS numeric
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $strata$
        SELECT CASE WHEN value IS NULL THEN largest
            ELSE greatest(largest, \(schema).strata_decimal_parse(value)) END
        $strata$;

        -- The running state of an average: {total, count}.
        CREATE OR REPLACE FUNCTION \(schema).strata_decimal_avg_step(state numeric[], value text)
            RETURNS numeric[]
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $strata$
        SELECT CASE WHEN value IS NULL THEN state
            ELSE ARRAY[coalesce(state[1], 0) + \(schema).strata_decimal_parse(value),
                coalesce(state[2], 0) + 1] END
        $strata$;

        CREATE OR REPLACE FUNCTION \(schema).strata_decimal_text(value numeric) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $strata$ SELECT value::text $strata$;

        -- numeric's division keeps about 16 significant digits; a dividend
        -- padded with zeros keeps at least 50, more than Decimal holds.
        CREATE OR REPLACE FUNCTION \(schema).strata_decimal_avg_final(state numeric[]) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $strata$
        SELECT (round(state[1], scale(state[1]) + 50 + length(state[2]::text)) / state[2])::text
        $strata$;

        CREATE OR REPLACE AGGREGATE \(schema).strata_decimal_sum(text) (
            SFUNC = \(schema).strata_decimal_sum_step, STYPE = numeric,
            FINALFUNC = \(schema).strata_decimal_text, PARALLEL = SAFE);
        CREATE OR REPLACE AGGREGATE \(schema).strata_decimal_min(text) (
            SFUNC = \(schema).strata_decimal_min_step, STYPE = numeric,
            FINALFUNC = \(schema).strata_decimal_text, PARALLEL = SAFE);
        CREATE OR REPLACE AGGREGATE \(schema).strata_decimal_max(text) (
            SFUNC = \(schema).strata_decimal_max_step, STYPE = numeric,
            FINALFUNC = \(schema).strata_decimal_text, PARALLEL = SAFE);
        CREATE OR REPLACE AGGREGATE \(schema).strata_decimal_avg(text) (
            SFUNC = \(schema).strata_decimal_avg_step, STYPE = numeric[],
            FINALFUNC = \(schema).strata_decimal_avg_final, PARALLEL = SAFE);
        """
    }
}
