/// A type-erased ``Entity``, so that a schema can list entities of different classes.
public protocol AnyEntity: Sendable {
    /// The entity's name: its table name in the store.
    var entityName: String { get }
    /// The class of the entity's objects.
    var objectType: ManagedObject.Type { get }
}

/// Declares that a ``ManagedObject`` subclass is an entity of a ``Schema``.
///
/// ```swift
/// Schema("V1", entities: [Entity<Person>("Person"), Entity<Pet>("Pet")])
/// ```
public struct Entity<Object: ManagedObject>: AnyEntity {
    /// The entity's name: its table name in the store.
    public let entityName: String

    /// Declares the entity under `name` (by default the class name).
    public init(_ name: String? = nil) {
        self.entityName = name ?? String(describing: Object.self)
    }

    public var objectType: ManagedObject.Type { Object.self }
}
