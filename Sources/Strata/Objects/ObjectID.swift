/// The identity of an object: its entity and row ID. Typed, `Sendable` and
/// `Hashable`; the same in every context and across runs. Once committed, an
/// ID is never given to another object of the entity.
///
/// Pass IDs between threads and contexts, then look the object up:
///
/// ```swift
/// let id = person.objectID
/// try await stack.perform { tx in tx.edit(id)?.age += 1 }
/// ```
public struct ObjectID<Object: ManagedObject>: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The object's row ID (`_pk`) in its entity's table.
    public let rowID: Int64

    init(entityName: String, rowID: Int64) {
        self.entityName = entityName
        self.rowID = rowID
    }

    public var description: String { "\(entityName)#\(rowID)" }

    /// The type-erased ID.
    public var erased: AnyObjectID { AnyObjectID(entityName: entityName, rowID: rowID) }
}

/// An ``ObjectID`` without its static type, as change sets list them.
public struct AnyObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The entity's name.
    public let entityName: String
    /// The object's row ID in its entity's table.
    public let rowID: Int64

    public var description: String { "\(entityName)#\(rowID)" }

    /// The typed ID; the caller knows the entity is `Object`'s.
    public func typed<Object: ManagedObject>(as type: Object.Type) -> ObjectID<Object> {
        ObjectID(entityName: entityName, rowID: rowID)
    }
}
