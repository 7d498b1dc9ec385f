/// Names the entity a transaction creates an object of, and the store it goes to.
///
/// ```swift
/// let person = tx.create(Into<Person>())
/// let thumbnail = tx.create(Into<Thumbnail>("Cache"))
/// let pet: Animal = tx.create(Into<Animal>(Dog.self))   // a Dog, typed as its base entity
/// ```
///
/// Two `Into`s are equal when they name the same class and the same store, as
/// in CoreStore: `Into<Person>()` (the store that holds the entity) is not
/// `Into<Person>(nil)` (the default configuration's store).
public struct Into<Object: ManagedObject>: Sendable, Hashable {
    /// The class of the object created: `Object`, or a subclass of it that
    /// is an entity of the schema.
    public let entityClass: Object.Type
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
        self.init(Object.self)
    }

    /// An object of `entity`, a subclass of `Object` that is an entity (its
    /// base entity names the type the transaction returns), in the store that
    /// holds it.
    public init(_ entity: Object.Type) {
        entityClass = entity
        configuration = nil
        infersStore = true
    }

    /// Into the store of `configuration` (`nil`: the default configuration's
    /// store). When the stack has no such store holding the entity, the
    /// transaction's commit throws ``StrataError/storeNotFound(entity:configuration:)``.
    public init(_ configuration: String?) {
        self.init(Object.self, configuration)
    }

    /// An object of `entity`, a subclass of `Object` that is an entity, in
    /// the store of `configuration`.
    public init(_ entity: Object.Type, _ configuration: String?) {
        entityClass = entity
        self.configuration = configuration
        infersStore = false
    }

    /// Whether the object goes to the store that holds the entity (made
    /// without a configuration), CoreStore's name: `false` when a
    /// configuration is named, `nil` included.
    public var inferStoreIfPossible: Bool { infersStore }

    /// Whether both name the same class and the same store.
    public static func == (lhs: Into, rhs: Into) -> Bool {
        lhs.entityClass == rhs.entityClass && lhs.configuration == rhs.configuration
            && lhs.infersStore == rhs.infersStore
    }

    /// Hashes the class and the store, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(entityClass))
        hasher.combine(configuration)
        hasher.combine(infersStore)
    }
}
