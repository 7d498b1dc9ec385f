/// Names the entity a transaction creates an object of, and the store it goes to.
///
/// ```swift
/// let person = tx.create(Into<Person>())
/// let thumbnail = tx.create(Into<Thumbnail>("Cache"))
/// ```
public struct Into<Object: ManagedObject>: Sendable, Hashable {
    /// The configuration of the store the object goes to; `nil` for the
    /// default configuration's store, or, with ``init()``, for the one store
    /// of the stack that holds the entity.
    public let configuration: String?
    /// Whether the store is the one that holds the entity (``init()``)
    /// rather than the named configuration's.
    let infersStore: Bool

    /// Into the store that holds `Object`'s entity. When several stores of the
    /// stack hold it, name one: creating with this `Into` traps, as CoreStore does.
    public init() {
        configuration = nil
        infersStore = true
    }

    /// Into the store of `configuration` (`nil`: the default configuration's
    /// store). When the stack has no such store holding the entity, the
    /// transaction's commit throws ``StrataError/storeNotFound(entity:configuration:)``.
    public init(_ configuration: String?) {
        self.configuration = configuration
        infersStore = false
    }
}
