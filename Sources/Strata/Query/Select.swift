import Foundation

/// What a query returns: one or more terms, each a field's value or an
/// aggregate over the matching objects, typed by `Result` for ``DataStack/queryValue(_:)``.
///
/// ```swift
/// let total = try stack.queryValue(
///     From<Person>().where(\.$age >= 18).select(Select<Person, Int>(.sum(\.$age))))
/// // SELECT coalesce(sum(t0."age"), 0) AS "sum(age)" FROM "Person" AS t0 WHERE t0."age" >= ? LIMIT ? OFFSET ?
/// ```
///
/// `Result` only matters to `queryValue`, which converts the first column of
/// the first row to it; `queryAttributes` returns every term by name whatever
/// `Result` is. Two selections are equal when their terms are, in order; two
/// terms when they have the same function, field and name.
public struct Select<Object: ManagedObject, Result>: Sendable, Hashable {
    let terms: [SelectTerm<Object>]

    /// The terms, in order, as CoreStore's `selectTerms`.
    public var selectTerms: [SelectTerm<Object>] { terms }

    /// A selection of `terms`, in order. At least one term; names must differ.
    ///
    /// ```swift
    /// Select<Person, Double>(.average(\.$age))
    /// Select<Person, [String: StoredValue]>(.attribute(\.$city), .count(as: "people"))
    /// ```
    public init(_ terms: SelectTerm<Object>...) {
        self.init(terms)
    }

    /// A selection of `terms`, in order. At least one term; names must differ
    /// (a query of a selection without terms, or with two of one name, throws
    /// ``StrataError/invalidValue(entity:field:reason:)``: names may come from
    /// strings, and bad ones are errors, not traps).
    public init(_ terms: [SelectTerm<Object>]) {
        self.terms = terms
    }

    /// Whether a term aggregates rows (so that without `GroupBy` there is one row).
    var aggregates: Bool { terms.contains { $0.function.isAggregate } }

    /// Why a query of this selection is invalid: no terms, or two terms of
    /// one name (the key of both in a `queryAttributes` row).
    var problem: StrataError? {
        let entity = String(describing: Object.self)
        guard !terms.isEmpty else {
            return .invalidValue(entity: entity, field: "", reason: "a Select needs at least one term")
        }
        var names = Set<String>()
        guard let repeated = terms.first(where: { !names.insert($0.name).inserted }) else { return nil }
        return .invalidValue(
            entity: entity, field: repeated.name,
            reason: "two Select terms are named '\(repeated.name)'; rename one with `as:`")
    }
}

/// One column of a ``Select``: a field's value, or an aggregate of it.
///
/// Each term has a name, the key of its value in `queryAttributes` rows. By
/// default it is the field's name for `.attribute`, and CoreStore's spelling
/// for aggregates: `count(age)`, `sum(age)`, `average(age)`, `min(age)`,
/// `max(age)`, and `count` for a count of objects. Pass `as:` to choose another.
///
/// Aggregates skip NULL values. Over no values `count` and `sum` are 0, as
/// in Core Data (which sums with SQLite's `total`), while `average`,
/// `minimum` and `maximum` are NULL (so `queryValue` returns `nil`). `sum`
/// of integers is an integer and throws on Int64 overflow;
/// `average` is always a real number. Over a `Decimal` field, `sum`,
/// `average`, `minimum` and `maximum` are decimals, computed exactly by
/// Strata (the sum exactly; the average to `Decimal`'s 38 digits) and read
/// back as `Decimal`.
public struct SelectTerm<Object: ManagedObject>: Sendable, Hashable {
    enum Function: String, Sendable {
        case value = ""
        case count, sum
        case average = "avg"
        case minimum = "min"
        case maximum = "max"
        /// Per object, how many objects a to-many relationship holds.
        case relatedCount = "related"
        /// Per object, its ID (``SelectTerm/objectID(as:)``).
        case objectID

        var isAggregate: Bool { self != .value && self != .relatedCount && self != .objectID }
        /// Whether the term reads one value per object, which a row of a
        /// group does not have: a relationship's count, or the object's ID.
        var isPerObject: Bool { self == .relatedCount || self == .objectID }
        /// Whether the result is a number computed from the values (not one of them).
        var computesNumber: Bool {
            self == .count || self == .sum || self == .average || self == .relatedCount
        }
    }

    let function: Function
    /// The value the term reads; `nil` for a count of objects. For
    /// `.relatedCount`, the to-many relationship, named by `field`.
    let path: ValuePath?
    let name: String
    /// What the values the term reads are, where that matters: a `Decimal`'s
    /// sum, average, minimum and maximum Strata computes exactly itself,
    /// only a `Date` field's values are read back as dates, and the sum of
    /// integers is an integer on every store.
    var valueKind = ValueKind.other
    /// Why the term, named by a string that names no field it can read, is
    /// invalid: the query using it throws this.
    var problem: StrataError? = nil

    /// The kinds of value a term treats apart from the rest.
    enum ValueKind: Sendable, Hashable {
        /// A `Decimal`, stored as decimal text.
        case decimal
        /// A `Date`, stored as seconds since 1970.
        case date
        /// An integer (or a `Bool`, or an enum of integers), stored as INTEGER.
        case integer
        /// Other text (a `String`, `UUID`, `URL`), stored as TEXT.
        case text
        /// `Data`, stored as a BLOB.
        case blob
        case other

        init(_ type: Any.Type) {
            if type == Decimal.self || type == Decimal?.self {
                self = .decimal
            } else if type == Date.self || type == Date?.self {
                self = .date
            } else {
                switch (type as? any FieldStorable.Type)?.storedType {
                case .integer: self = .integer
                case .text: self = .text
                case .blob: self = .blob
                case .real, nil: self = .other
                }
            }
        }
    }

    /// Whether the value is a `Decimal`, whose aggregates Strata computes itself.
    var isDecimal: Bool { valueKind == .decimal }

    private static func term<Value>(
        _ function: Function, _ path: ValuePath, _ alias: String?, _ defaultPrefix: String,
        of type: Value.Type = Never.self
    ) -> SelectTerm {
        let name = alias ?? (defaultPrefix.isEmpty ? path.description : "\(defaultPrefix)(\(path))")
        return SelectTerm(function: function, path: path, name: name, valueKind: ValueKind(type))
    }

    // MARK: Field values

    /// The field's value, named after the field unless `as` names it.
    ///
    /// ```swift
    /// From<Person>().select(String.self, .attribute(\.$name)).orderBy(.ascending(\.$name))
    /// ```
    public static func attribute<Value>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, as alias: String? = nil
    ) -> SelectTerm {
        term(.value, ValuePath(keyPath), alias, "", of: Value.self)
    }

    /// A value reached through to-one relationships (`\.$owner ~ \.$name`),
    /// named by its path (`owner.name`) unless `as` names it.
    public static func attribute<Value>(
        _ expression: Where<Object>.Expression<Value>, as alias: String? = nil
    ) -> SelectTerm {
        term(.value, expression.path, alias, "", of: Value.self)
    }

    // MARK: Aggregates

    /// How many objects match (`count(*)`), named `count` unless `as` names it.
    ///
    /// ```swift
    /// try stack.queryValue(From<Person>().select(Int.self, .count()))
    /// ```
    public static func count(as alias: String? = nil) -> SelectTerm {
        SelectTerm(function: .count, path: nil, name: alias ?? "count")
    }

    /// For each object, how many objects its to-many relationship holds:
    /// one row per object, as `.attribute` gives, not an aggregate. Named
    /// `count(pets)` unless `as` names it.
    ///
    /// ```swift
    /// let petsPerPerson = try stack.queryAttributes(
    ///     From<Person>().select(.attribute(\.$name), .count(\.$pets, as: "petCount")))
    /// // [["name": .text("Ann"), "petCount": .integer(2)], ["name": .text("Bob"), "petCount": .integer(0)]]
    /// // SELECT t0."name" AS "name", (SELECT count(*) FROM "Pet" AS t1 WHERE t1."owner" = t0._pk)
    /// //   AS "petCount" FROM "Person" AS t0 ORDER BY t0._pk ASC
    /// ```
    ///
    /// A query that also groups or aggregates throws
    /// ``StrataError/invalidValue(entity:field:reason:)``: its rows are not
    /// objects, and the count is one per object.
    public static func count<Related: RelationshipValue>(
        _ keyPath: KeyPath<Object, Field.Relationship<Related>>, as alias: String? = nil
    ) -> SelectTerm {
        checkUsage(
            Related.cardinality != .toOne,
            "Strata: count(_:) in a Select takes a to-many relationship; a to-one one holds "
                + "at most one object (select one of its fields with .attribute(\\.$owner ~ \\.$name)).")
        return term(.relatedCount, ValuePath(keyPath), alias, "count")
    }

    /// How many matching objects have a non-NULL value at `keyPath`.
    public static func count<Value>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, as alias: String? = nil
    ) -> SelectTerm {
        term(.count, ValuePath(keyPath), alias, "count")
    }

    /// How many matching objects have a non-NULL value along `expression`.
    public static func count<Value>(
        _ expression: Where<Object>.Expression<Value>, as alias: String? = nil
    ) -> SelectTerm {
        term(.count, expression.path, alias, "count")
    }

    /// The sum of the values (SQL `sum`); 0 when no value is there, as in Core Data.
    ///
    /// ```swift
    /// try stack.queryValue(From<Person>().select(Int.self, .sum(\.$age)))
    /// ```
    public static func sum<Value>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, as alias: String? = nil
    ) -> SelectTerm {
        term(.sum, ValuePath(keyPath), alias, "sum", of: Value.self)
    }

    /// The sum of the values along `expression`.
    public static func sum<Value>(
        _ expression: Where<Object>.Expression<Value>, as alias: String? = nil
    ) -> SelectTerm {
        term(.sum, expression.path, alias, "sum", of: Value.self)
    }

    /// The mean of the values (SQL `avg`), a real number (a decimal over a
    /// `Decimal` field); ask for `Double` to keep every digit (as `Int` it
    /// is its whole part).
    public static func average<Value>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, as alias: String? = nil
    ) -> SelectTerm {
        term(.average, ValuePath(keyPath), alias, "average", of: Value.self)
    }

    /// The mean of the values along `expression`.
    public static func average<Value>(
        _ expression: Where<Object>.Expression<Value>, as alias: String? = nil
    ) -> SelectTerm {
        term(.average, expression.path, alias, "average", of: Value.self)
    }

    /// The smallest value (SQL `min`), in SQLite's order; NULLs are skipped.
    public static func minimum<Value>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, as alias: String? = nil
    ) -> SelectTerm {
        term(.minimum, ValuePath(keyPath), alias, "min", of: Value.self)
    }

    /// The smallest value along `expression`.
    public static func minimum<Value>(
        _ expression: Where<Object>.Expression<Value>, as alias: String? = nil
    ) -> SelectTerm {
        term(.minimum, expression.path, alias, "min", of: Value.self)
    }

    /// The largest value (SQL `max`), in SQLite's order; NULLs are skipped.
    public static func maximum<Value>(
        _ keyPath: KeyPath<Object, Field.Stored<Value>>, as alias: String? = nil
    ) -> SelectTerm {
        term(.maximum, ValuePath(keyPath), alias, "max", of: Value.self)
    }

    /// The largest value along `expression`.
    public static func maximum<Value>(
        _ expression: Where<Object>.Expression<Value>, as alias: String? = nil
    ) -> SelectTerm {
        term(.maximum, expression.path, alias, "max", of: Value.self)
    }
}
