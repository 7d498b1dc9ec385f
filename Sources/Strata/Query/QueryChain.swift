/// A query: a fetch (``From`` with its predicate, order and tweak), what to
/// select, and optionally the fields to group by. The one value
/// `queryValue` and `queryAttributes` take.
///
/// ```swift
/// let agesByCity = try stack.queryAttributes(
///     From<Person>()
///         .where(\.$age >= 18)
///         .select(.attribute(\.$city), .average(\.$age, as: "age"))
///         .groupBy(\.$city)
///         .orderBy(.ascending(\.$city)))
/// // SELECT t0."city" AS "city", avg(t0."age") AS "age" FROM "Person" AS t0
/// //   WHERE t0."age" >= ? GROUP BY t0."city"
/// //   ORDER BY t0."city" ASC NULLS FIRST, t0."city" ASC
/// ```
///
/// When the query groups or aggregates, its rows are groups: an `.attribute`
/// term that is not a group key makes it throw
/// ``StrataError/invalidValue(entity:field:reason:)``, on every store.
///
/// Limit and offset apply to the rows the query returns: groups when grouped,
/// objects for a selection of attributes, and the single row of an ungrouped
/// aggregate (an offset past it leaves no row).
public struct QueryChain<Object: ManagedObject, Result>: Sendable {
    var from: From<Object>
    let select: Select<Object, Result>
    var groupBy: GroupBy<Object>?

    init(from: From<Object>, select: Select<Object, Result>) {
        self.from = from
        self.select = select
    }

    /// Adds a predicate; several `where` calls combine with `&&`.
    public func `where`(_ clause: Where<Object>) -> QueryChain {
        var copy = self
        copy.from = from.where(clause)
        return copy
    }

    /// Adds sort keys for the rows after those already given. In a grouped
    /// query, sort by group keys: another key makes the query throw
    /// ``StrataError/invalidValue(entity:field:reason:)``.
    public func orderBy(_ keys: OrderBy<Object>.SortKey...) -> QueryChain {
        orderBy(OrderBy(keys))
    }

    /// Adds the keys of `order` after those already given.
    public func orderBy(_ order: OrderBy<Object>) -> QueryChain {
        var copy = self
        copy.from = from.orderBy(order)
        return copy
    }

    /// Adjusts the limit and offset, which count returned rows, and whether
    /// subentities' rows are read (``Tweak/includesSubentities``).
    public func tweak(_ adjust: (inout Tweak) -> Void) -> QueryChain {
        var copy = self
        copy.from = from.tweak(adjust)
        return copy
    }

    /// Groups the matching objects by the values at `keyPaths`: one row a
    /// distinct combination, with aggregates computed per group.
    ///
    /// ```swift
    /// From<Person>().select(.attribute(\.$city), .attribute(\.$age), .count())
    ///     .groupBy(\.$city, \.$age)
    /// ```
    public func groupBy<each Value>(
        _ keyPaths: repeat KeyPath<Object, Field.Stored<each Value>>
    ) -> QueryChain {
        groupBy(GroupBy(repeat each keyPaths))
    }

    /// Groups the matching objects by values reached through to-one
    /// relationships (`\.$owner ~ \.$name`).
    public func groupBy<each Value>(
        _ expressions: repeat Where<Object>.Expression<each Value>
    ) -> QueryChain {
        groupBy(GroupBy(repeat each expressions))
    }

    /// Groups the matching objects; replaces an earlier grouping.
    public func groupBy(_ groupBy: GroupBy<Object>) -> QueryChain {
        var copy = self
        copy.groupBy = groupBy
        return copy
    }
}

/// The fields a query groups by, as SQL `GROUP BY`: each distinct combination
/// of their values (NULL counting as one value) makes one row.
///
/// ```swift
/// From<Person>().select(.attribute(\.$city), .count()).groupBy(GroupBy(\.$city))
/// ```
///
/// Two groupings are equal when they name the same fields in the same order.
public struct GroupBy<Object: ManagedObject>: Sendable, Hashable {
    let paths: [ValuePath]
    /// Why the grouping, named by a string that names no stored field, is
    /// invalid: the query using it throws this.
    var problem: StrataError? = nil
    /// The strings the grouping was named by, resolved again when it
    /// becomes one of a subclass. Not part of equality.
    var keyNames: [String]? = nil

    /// Whether the two group by the same fields in the same order (a
    /// grouping by names equals its key-path twin).
    public static func == (left: Self, right: Self) -> Bool {
        left.paths == right.paths && left.problem == right.problem
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(paths)
        hasher.combine(problem)
    }

    /// The names of the fields grouped by, in order, a path's joined by dots
    /// (`["city", "owner.name"]`), as CoreStore's `keyPaths`.
    public var keyPaths: [String] { paths.map(\.description) }

    /// Groups by the fields at `keyPaths`, in order.
    public init<each Value>(_ keyPaths: repeat KeyPath<Object, Field.Stored<each Value>>) {
        var paths: [ValuePath] = []
        for keyPath in repeat each keyPaths {
            paths.append(ValuePath(keyPath))
        }
        self.paths = paths
    }

    /// Groups by values reached through to-one relationships (`\.$owner ~ \.$name`).
    public init<each Value>(_ expressions: repeat Where<Object>.Expression<each Value>) {
        var paths: [ValuePath] = []
        for expression in repeat each expressions {
            paths.append(expression.path)
        }
        self.paths = paths
    }

    /// Groups by `paths`, in order; invalid for `problem`.
    init(paths: [ValuePath], problem: StrataError? = nil) {
        self.paths = paths
        self.problem = problem
    }
}

extension From {
    /// A query of this fetch that returns `terms`; `queryValue` reads the
    /// first term of the first row as `Result`.
    ///
    /// ```swift
    /// let oldest = try stack.queryValue(From<Person>().select(Int.self, .maximum(\.$age)))
    /// ```
    public func select<Result>(
        _ type: Result.Type, _ terms: SelectTerm<Object>...
    ) -> QueryChain<Object, Result> {
        QueryChain(from: self, select: Select(terms))
    }

    /// A query of this fetch for the field at `keyPath`, whose type binds the
    /// result, as CoreStore's `select(\.age)`: `queryValue` reads the first
    /// object's value, `queryAttributes` rows with the field's name.
    ///
    /// ```swift
    /// let johnsAge = try stack.queryValue(
    ///     From<Person>().select(\.$age).where(\.$name == "John Smith"))   // Int?
    /// ```
    public func select<Value>(_ keyPath: KeyPath<Object, Field.Stored<Value>>) -> QueryChain<Object, Value> {
        QueryChain(from: self, select: Select([.attribute(keyPath)]))
    }

    /// A query of this fetch for the optional field at `keyPath`, whose
    /// `queryValue` reads the wrapped type, `nil` for no row or a NULL value
    /// (`select(\.$city)` of a `String?` field reads a `String?`, not a
    /// `String??`).
    public func select<Wrapped>(
        _ keyPath: KeyPath<Object, Field.Stored<Wrapped?>>
    ) -> QueryChain<Object, Wrapped> {
        QueryChain(from: self, select: Select([.attribute(keyPath)]))
    }

    /// A query of this fetch that returns rows of named values, for `queryAttributes`.
    ///
    /// ```swift
    /// let rows = try stack.queryAttributes(
    ///     From<Person>().select(.attribute(\.$name), .attribute(\.$age)))
    /// ```
    public func select(
        _ terms: SelectTerm<Object>...
    ) -> QueryChain<Object, [String: StoredValue]> {
        QueryChain(from: self, select: Select(terms))
    }

    /// A query of this fetch that returns `select`.
    ///
    /// ```swift
    /// From<Person>().where(\.$age >= 18).select(Select<Person, Int>(.sum(\.$age)))
    /// ```
    public func select<Result>(_ select: Select<Object, Result>) -> QueryChain<Object, Result> {
        QueryChain(from: self, select: select)
    }

    // An optional result type is read as its wrapped type: `queryValue` already
    // answers `nil` for a NULL value, so an `Int??` would never hold `.some(nil)`.

    /// A query of this fetch whose `queryValue` reads the first term as
    /// `Wrapped`, `nil` for no row or a NULL value: asking for `Int?` is
    /// asking for `Int`.
    ///
    /// ```swift
    /// let best: Int? = try stack.queryValue(
    ///     From<Player>().select(Int?.self, .maximum(\.$score)))   // score: Int?
    /// ```
    public func select<Wrapped>(
        _ type: Wrapped?.Type, _ terms: SelectTerm<Object>...
    ) -> QueryChain<Object, Wrapped> {
        QueryChain(from: self, select: Select(terms))
    }

    /// A query of this fetch that returns `select`, whose `queryValue` reads
    /// the first term as `Wrapped` (`Select<Player, Int?>` reads an `Int?`,
    /// not an `Int??`).
    public func select<Wrapped>(_ select: Select<Object, Wrapped?>) -> QueryChain<Object, Wrapped> {
        QueryChain(from: self, select: Select(select.terms))
    }
}
