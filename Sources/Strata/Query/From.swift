/// A fetch: the entity, and optionally a predicate, an order and a tweak.
///
/// The one value every fetch API takes:
///
/// ```swift
/// let page = try stack.fetchAll(
///     From<Person>()
///         .where(\.$age >= 18)
///         .orderBy(.ascending(\.$name))
///         .tweak { $0.fetchLimit = 20 })
/// ```
public struct From<Object: ManagedObject>: Sendable {
    // Reachable from `where`, which is inlined into the caller.
    @usableFromInline var predicate: Where<Object>?
    @usableFromInline var order: OrderBy<Object>?
    @usableFromInline var options = Tweak()
    /// The configurations whose stores the query reads; `nil` for every
    /// store of the stack that holds the entity.
    public private(set) var configurations: [String?]?

    /// All objects of `Object`'s entity, in every store of the stack that holds it.
    public init() {}

    /// The objects of `Object`'s entity in the stores of the given
    /// configurations (`nil` names the default configuration's store), as
    /// CoreStore's `From<T>("Config1")`. Stores of those configurations that
    /// do not hold the entity are skipped; when none holds it, the fetch
    /// throws ``StrataError/storeNotFound(entity:configuration:)``.
    ///
    /// ```swift
    /// let cached = try stack.fetchAll(From<Thumbnail>("Cache"))
    /// let both = try stack.fetchAll(From<Thumbnail>(nil, "Cache"))
    /// ```
    public init(_ configuration: String?, _ otherConfigurations: String?...) {
        self.configurations = [configuration] + otherConfigurations
    }

    /// The objects of `Object`'s entity in the stores of `configurations`.
    public init(_ configurations: [String?]) {
        self.configurations = configurations
    }

    // Inlinable, so that a lookup built anew on every call is specialized
    // in the caller's module: unspecialized, it instantiated `From<Object>`'s
    // and `Where<Object>?`'s generic metadata on every call (fetchOne's
    // profile, Docs/Performance.md).
    /// Adds a predicate; several `where` calls combine with `&&`.
    @inlinable
    public func `where`(_ clause: Where<Object>) -> From<Object> {
        var copy = self
        copy.predicate = predicate.map { $0 && clause } ?? clause
        return copy
    }

    /// Adds sort keys after those already given: `.orderBy(.ascending(\.$city))
    /// .orderBy(.descending(\.$age))` sorts by city, then by age (the row ID
    /// always breaks the last tie).
    public func orderBy(_ keys: OrderBy<Object>.SortKey...) -> From<Object> {
        orderBy(OrderBy(keys))
    }

    /// Adds the keys of `order` after those already given.
    ///
    /// ```swift
    /// let byCity = OrderBy<Person>(.ascending(\.$city))
    /// From<Person>().orderBy(byCity).orderBy(.descending(\.$age))   // city, then age
    /// ```
    public func orderBy(_ order: OrderBy<Object>) -> From<Object> {
        ordered(by: (self.order ?? OrderBy()) + order)
    }

    /// This fetch with `order` in place of its own.
    func ordered(by order: OrderBy<Object>) -> From<Object> {
        var copy = self
        copy.order = order
        return copy
    }

    /// Adjusts the fetch: its limit and offset, and whether subentities' objects
    /// match (``Tweak/includesSubentities``).
    public func tweak(_ adjust: (inout Tweak) -> Void) -> From<Object> {
        var copy = self
        adjust(&copy.options)
        return copy
    }
}
