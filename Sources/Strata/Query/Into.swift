/// Names the entity a transaction creates an object of.
///
/// ```swift
/// let person = tx.create(Into<Person>())
/// ```
public struct Into<Object: ManagedObject>: Sendable {
    /// Into `Object`'s entity.
    public init() {}
}
