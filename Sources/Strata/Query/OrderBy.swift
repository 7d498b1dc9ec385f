/// The order of fetched objects: one or more sort keys, always completed by
/// the row ID so that the order is total and a position is well defined.
///
/// ```swift
/// From<Person>().orderBy(.ascending(\.$name), .descending(\.$age))
/// ```
public struct OrderBy<Object: ManagedObject>: Sendable {
    /// One sort key.
    public struct SortKey: Sendable {
        let field: String
        let isAscending: Bool

        /// Sorts by the field at `keyPath`, smallest first (NULLs first, as SQLite does).
        public static func ascending<Value: FieldStorable>(
            _ keyPath: KeyPath<Object, Field.Stored<Value>>
        ) -> SortKey {
            SortKey(field: FieldPath.name(keyPath), isAscending: true)
        }

        /// Sorts by the field at `keyPath`, largest first (NULLs last).
        public static func descending<Value: FieldStorable>(
            _ keyPath: KeyPath<Object, Field.Stored<Value>>
        ) -> SortKey {
            SortKey(field: FieldPath.name(keyPath), isAscending: false)
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
}

/// Adjusts a fetch: how many objects at most, and how many to skip first.
///
/// ```swift
/// From<Person>().tweak { $0.fetchLimit = 20; $0.fetchOffset = 40 }
/// ```
public struct Tweak: Sendable {
    /// The most objects to return; `nil` for no limit.
    public var fetchLimit: Int?
    /// How many matching objects to skip first.
    public var fetchOffset: Int = 0

    public init(fetchLimit: Int? = nil, fetchOffset: Int = 0) {
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}
