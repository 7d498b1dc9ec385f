/// The order of fetched objects: one or more sort keys, always completed by
/// the row ID so that the order is total and a position is well defined.
///
/// ```swift
/// From<Person>().orderBy(.ascending(\.$name, .caseInsensitive), .descending(\.$age))
/// From<Pet>().orderBy(.ascending(\.$owner ~ \.$name))
/// ```
///
/// NULLs come first in ascending keys and last in descending ones (SQLite's
/// default), unless a key says otherwise. Two orders are equal when their keys
/// are, one by one and in order.
public struct OrderBy<Object: ManagedObject>: Sendable, Hashable {
    /// Where NULL values go.
    public enum NullPlacement: Sendable, Hashable {
        /// First for ascending keys, last for descending ones.
        case automatic
        case first
        case last
    }

    /// One sort key.
    public struct SortKey: Sendable, Hashable {
        let path: ValuePath
        let isAscending: Bool
        let options: TextOptions
        let nulls: NullPlacement
        /// Why the key, named by a string that names no stored field, is
        /// invalid: the fetch using it throws this.
        var problem: StrataError? = nil
        /// The string the key was named by, resolved again when the key
        /// becomes one of a subclass (a list clause is built for
        /// `ManagedObject` when nothing names its class). Not part of equality:
        /// a key by name equals its key-path twin.
        var keyName: String? = nil

        /// Whether the two keys sort alike: the same field or path, direction,
        /// text options and NULL placement (a key by name equals its key-path twin).
        public static func == (left: Self, right: Self) -> Bool {
            (left.path, left.isAscending, left.options, left.nulls, left.problem)
                == (right.path, right.isAscending, right.options, right.nulls, right.problem)
        }

        /// Hashes what ``==`` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(path)
            hasher.combine(isAscending)
            hasher.combine(options)
            hasher.combine(nulls)
            hasher.combine(problem)
        }

        var nullsFirst: Bool {
            switch nulls {
            case .automatic: return isAscending
            case .first: return true
            case .last: return false
            }
        }

        /// Sorts by the field at `keyPath`, smallest first; `options` fold text
        /// (case- or diacritic-insensitive ordering).
        public static func ascending<Value: FieldStorable>(
            _ keyPath: KeyPath<Object, Field.Stored<Value>>, _ options: TextOptions = [],
            nulls: NullPlacement = .automatic
        ) -> SortKey {
            SortKey(path: ValuePath(keyPath), isAscending: true, options: options, nulls: nulls)
        }

        /// Sorts by the field at `keyPath`, largest first.
        public static func descending<Value: FieldStorable>(
            _ keyPath: KeyPath<Object, Field.Stored<Value>>, _ options: TextOptions = [],
            nulls: NullPlacement = .automatic
        ) -> SortKey {
            SortKey(path: ValuePath(keyPath), isAscending: false, options: options, nulls: nulls)
        }

        /// Sorts by a value reached through to-one relationships, smallest first.
        public static func ascending<Value>(
            _ expression: Where<Object>.Expression<Value>, _ options: TextOptions = [],
            nulls: NullPlacement = .automatic
        ) -> SortKey {
            SortKey(path: expression.path, isAscending: true, options: options, nulls: nulls)
        }

        /// Sorts by a value reached through to-one relationships, largest first.
        public static func descending<Value>(
            _ expression: Where<Object>.Expression<Value>, _ options: TextOptions = [],
            nulls: NullPlacement = .automatic
        ) -> SortKey {
            SortKey(path: expression.path, isAscending: false, options: options, nulls: nulls)
        }
    }

    let keys: [SortKey]

    /// An order by the given keys, then by row ID.
    public init(_ keys: [SortKey]) {
        self.keys = keys
    }

    /// An order by the given keys, then by row ID.
    public init(_ keys: SortKey...) {
        self.keys = keys
    }

    /// The keys of `left`, then those of `right`, as CoreStore's `+` does.
    ///
    /// ```swift
    /// let order = OrderBy<Person>(.ascending(\.$city)) + OrderBy(.descending(\.$age))
    /// ```
    public static func + (left: OrderBy, right: OrderBy) -> OrderBy {
        OrderBy(left.keys + right.keys)
    }

    /// Appends the keys of `right` to `left`.
    public static func += (left: inout OrderBy, right: OrderBy) {
        left = left + right
    }

    /// Throws the first invalid key's problem.
    func check() throws(StrataError) {
        if let problem = keys.lazy.compactMap(\.problem).first { throw problem }
    }

    /// Whether a key reads through a relationship.
    var readsRelationships: Bool { keys.contains { !$0.path.relationships.isEmpty } }
}

extension SQLCompiler {
    /// `ORDER BY` terms for the keys, ending with the row ID.
    mutating func order<Object>(_ order: OrderBy<Object>?, in entity: EntityDescription, alias: String) -> String {
        var terms: [String] = []
        for key in order?.keys ?? [] {
            terms.append(key.sql(value: value(key.path, in: entity, alias: alias)))
        }
        terms.append("\(alias)._pk ASC")
        return terms.joined(separator: ", ")
    }
}

extension OrderBy.SortKey {
    /// The key's `ORDER BY` term, given the SQL of its path's value:
    /// `t0."name" ASC NULLS FIRST`, `strata_fold(t0."name", 1) DESC NULLS LAST`.
    func sql(value: String) -> String {
        let expression = path.isDecimal
            ? "strata_decimal(\(value))"
            : options.isEmpty ? value : "strata_fold(\(value), \(options.rawValue))"
        return "\(expression) \(isAscending ? "ASC" : "DESC") NULLS \(nullsFirst ? "FIRST" : "LAST")"
    }
}
