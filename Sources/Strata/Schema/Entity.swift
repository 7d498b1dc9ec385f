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
    /// Whether the entity is abstract: it has no objects of its own, only
    /// objects of its subentities (see ``Entity/init(_:renamingIdentifier:isAbstract:configurations:)``).
    var isAbstract: Bool { get }
}

extension AnyEntity {
    /// No previous name: a type that does not say otherwise was never renamed.
    public var renamingIdentifier: String? { nil }
    /// No named configuration: the entity lives only in default-configuration stores.
    public var configurations: Set<String> { [] }
    /// Not abstract: a type that does not say otherwise can be created.
    public var isAbstract: Bool { false }
}

/// Declares that a ``ManagedObject`` subclass is an entity of a ``Schema``.
///
/// ```swift
/// Schema("V1", entities: [Entity<Person>("Person"), Entity<Pet>("Pet")])
/// ```
///
/// An entity whose class inherits from another entity's class is its
/// **subentity**: `final class Dog: Animal` declared as `Entity<Dog>("Dog")`
/// beside `Entity<Animal>("Animal")`. Its objects are `Animal`s too:
/// `From<Animal>` fetches them (as `Dog`s), and the whole tree shares one
/// table (`Docs/Storage.md`, "Inheritance").
public struct Entity<Object: ManagedObject>: AnyEntity {
    /// The entity's name: its table name in the store.
    public let entityName: String

    /// The entity's name in the previous schema version, when it was renamed.
    public let renamingIdentifier: String?

    /// The named configurations the entity belongs to, besides the default one.
    public let configurations: Set<String>
    /// Whether the entity is abstract: only its subentities have objects.
    public let isAbstract: Bool

    /// Declares the entity under `name` (by default the class name).
    ///
    /// `renamingIdentifier` is the entity's previous name, so that a migration
    /// carries the rows of the old table over (row IDs included):
    ///
    /// ```swift
    /// Entity<Person>("Person", renamingIdentifier: "People")
    /// ```
    ///
    /// An abstract entity (`isAbstract: true`) is a base whose objects are
    /// always of a subentity: fetching `From<Animal>()` works, creating
    /// `Into<Animal>()` traps. It does not change the schema's fingerprint.
    ///
    /// ```swift
    /// Schema("V1", entities: [
    ///     Entity<Animal>("Animal", isAbstract: true), Entity<Dog>("Dog"), Entity<Cat>("Cat"),
    /// ])
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
    public init(
        _ name: String? = nil, renamingIdentifier: String? = nil, isAbstract: Bool = false,
        configurations: Set<String> = []
    ) {
        self.entityName = name ?? String(describing: Object.self)
        self.renamingIdentifier = renamingIdentifier
        self.isAbstract = isAbstract
        self.configurations = configurations
    }

    /// The model class the entity's objects are made of.
    public var objectType: ManagedObject.Type { Object.self }
}
