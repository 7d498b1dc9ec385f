/// The identity-map key of an object: its entity and row ID.
struct ObjectKey: Hashable {
    let entity: ObjectIdentifier
    let rowID: Int64

    init(_ entity: EntityDescription, _ rowID: Int64) {
        self.entity = ObjectIdentifier(entity)
        self.rowID = rowID
    }
}

/// A weak reference, so that the main context does not keep objects alive.
struct WeakObject {
    weak var object: ManagedObject?
}
