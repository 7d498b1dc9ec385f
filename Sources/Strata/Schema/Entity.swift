/// A type-erased ``Entity``, so that a schema can list entities of different classes.
public protocol AnyEntity: Sendable {
    /// The entity's name: its table name in the store.
    var entityName: String { get }
    /// The class of the entity's objects.
    var objectType: ManagedObject.Type { get }
    /// The entity's name in the previous schema version, when it was renamed; `nil` otherwise.
    /// Read by migrations only; it does not change the schema's fingerprint.
    var renamingIdentifier: String? { get }
}

extension AnyEntity {
    /// No previous name: a type that does not say otherwise was never renamed.
    public var renamingIdentifier: String? { nil }
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

    /// Declares the entity under `name` (by default the class name).
    ///
    /// `renamingIdentifier` is the entity's previous name, so that a migration
    /// carries the rows of the old table over (row IDs included):
    ///
    /// ```swift
    /// Entity<Person>("Person", renamingIdentifier: "People")
    /// ```
    public init(_ name: String? = nil, renamingIdentifier: String? = nil) {
        self.entityName = name ?? String(describing: Object.self)
        self.renamingIdentifier = renamingIdentifier
    }

    /// The model class the entity's objects are made of.
    public var objectType: ManagedObject.Type { Object.self }
}
