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
    var predicate: Where<Object>?
    var order: OrderBy<Object>?
    var options = Tweak()

    /// All objects of `Object`'s entity.
    public init() {}

    /// Adds a predicate; several `where` calls combine with `&&`.
    public func `where`(_ clause: Where<Object>) -> From<Object> {
        var copy = self
        copy.predicate = predicate.map { $0 && clause } ?? clause
        return copy
    }

    /// Sets the order.
    public func orderBy(_ keys: OrderBy<Object>.SortKey...) -> From<Object> {
        orderBy(OrderBy(keys))
    }

    /// Sets the order.
    public func orderBy(_ order: OrderBy<Object>) -> From<Object> {
        var copy = self
        copy.order = order
        return copy
    }

    /// Adjusts the fetch limit and offset.
    public func tweak(_ adjust: (inout Tweak) -> Void) -> From<Object> {
        var copy = self
        adjust(&copy.options)
        return copy
    }
}
