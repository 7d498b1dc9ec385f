/// A type-erased ``Entity``, so that a schema can list entities of different classes.
public protocol AnyEntity: Sendable {
    /// The entity's name: its table name in the store.
    var entityName: String { get }
    /// The class of the entity's objects.
    var objectType: ManagedObject.Type { get }
    /// The entity's name in the previous schema version, when it was renamed; `nil` otherwise.
    /// Read by migrations only; it does not change the schema's fingerprint.
    var renamingIdentifier: String? { get }
    /// The named configurations the entity belongs to, besides the default
    /// configuration, which holds every entity.
    var configurations: Set<String> { get }
}

extension AnyEntity {
    /// No previous name: a type that does not say otherwise was never renamed.
    public var renamingIdentifier: String? { nil }
    /// No named configuration: the entity lives only in default-configuration stores.
    public var configurations: Set<String> { [] }
}

/// Declares that a ``ManagedObject`` subclass is an entity of a ``Schema``.
///
/// ```swift
/// Schema("V1", entities: [Entity<Person>("Person"), Entity<Pet>("Pet")])
/// ```
public struct Entity<Object: ManagedObject>: AnyEntity {
    /// The entity's name: its table name in the store.
    public let entityName: String

    /// The entity's name in the previous schema version, when it was renamed.
    public let renamingIdentifier: String?

    /// The named configurations the entity belongs to, besides the default one.
    public let configurations: Set<String>

    /// Declares the entity under `name` (by default the class name).
    ///
    /// `renamingIdentifier` is the entity's previous name, so that a migration
    /// carries the rows of the old table over (row IDs included):
    ///
    /// ```swift
    /// Entity<Person>("Person", renamingIdentifier: "People")
    /// ```
    ///
    /// `configurations` names the stores, besides the default-configuration
    /// ones (which hold every entity), that hold the entity: a store added
    /// with `configuration: "Cache"` has a table for each entity declared in
    /// `"Cache"` and no other. A relationship must stay inside each of its
    /// entity's configurations (its target belongs to them too), as no
    /// relationship crosses stores.
    ///
    /// ```swift
    /// Schema("V1", entities: [
    ///     Entity<Person>("Person"),
    ///     Entity<Thumbnail>("Thumbnail", configurations: ["Cache"]),
    /// ])
    /// try stack.addStorageAndWait(SQLiteStore(fileName: "user.sqlite"))         // every entity
    /// try stack.addStorageAndWait(InMemoryStore(configuration: "Cache"))      // Thumbnail only
    /// ```
    public init(_ name: String? = nil, renamingIdentifier: String? = nil, configurations: Set<String> = []) {
        self.entityName = name ?? String(describing: Object.self)
        self.renamingIdentifier = renamingIdentifier
        self.configurations = configurations
    }

    /// The model class the entity's objects are made of.
    public var objectType: ManagedObject.Type { Object.self }
}
