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
    /// objects of its subentities (see ``Entity/init(_:renamingIdentifier:isAbstract:configurations:indexes:uniqueConstraints:)``).
    var isAbstract: Bool { get }
    /// Indexes over several fields, each a list of key paths to fields of the entity.
    var compoundIndexes: [[any AnyKeyPath & Sendable]] { get }
    /// Combinations of fields no two objects of the entity may share, each a
    /// list of key paths to fields of the entity.
    var uniqueConstraints: [[any AnyKeyPath & Sendable]] { get }
}

extension AnyEntity {
    /// No previous name: a type that does not say otherwise was never renamed.
    public var renamingIdentifier: String? { nil }
    /// No named configuration: the entity lives only in default-configuration stores.
    public var configurations: Set<String> { [] }
    /// Not abstract: a type that does not say otherwise can be created.
    public var isAbstract: Bool { false }
    /// No index over several fields.
    public var compoundIndexes: [[any AnyKeyPath & Sendable]] { [] }
    /// No constraint over several fields.
    public var uniqueConstraints: [[any AnyKeyPath & Sendable]] { [] }
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
    /// Indexes over several fields (see ``init(_:renamingIdentifier:isAbstract:configurations:indexes:uniqueConstraints:)``).
    public let compoundIndexes: [[any AnyKeyPath & Sendable]]
    /// Combinations of fields no two objects may share.
    public let uniqueConstraints: [[any AnyKeyPath & Sendable]]

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
    ///
    /// `indexes` lists indexes over several fields, for queries that test or
    /// sort by them together; `uniqueConstraints` lists combinations of
    /// fields no two objects of the entity may share, as CoreStore spells
    /// them. Each is a list of key paths to stored or coded fields or to-one
    /// relationships of the entity (its inherited ones included). A
    /// constraint is checked as `.unique` is, when a transaction writes
    /// (`StrataError.uniqueConstraintViolation` naming its fields), and a
    /// `nil` in any of its fields never clashes. Both change the schema's
    /// fingerprint, so adding one is a new version that a migration builds.
    ///
    /// ```swift
    /// Entity<Person>("Person",
    ///     indexes: [[\.$lastName, \.$firstName]],
    ///     uniqueConstraints: [[\.$team, \.$jerseyNumber]])
    /// ```
    public init(
        _ name: String? = nil, renamingIdentifier: String? = nil, isAbstract: Bool = false,
        configurations: Set<String> = [], indexes: [[any PartialKeyPath<Object> & Sendable]] = [],
        uniqueConstraints: [[any PartialKeyPath<Object> & Sendable]] = []
    ) {
        self.entityName = name ?? String(describing: Object.self)
        self.renamingIdentifier = renamingIdentifier
        self.isAbstract = isAbstract
        self.configurations = configurations
        self.compoundIndexes = indexes
        self.uniqueConstraints = uniqueConstraints
    }

    /// The model class the entity's objects are made of.
    public var objectType: ManagedObject.Type { Object.self }
}
