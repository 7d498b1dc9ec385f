/// The identity-map key of an object: its entity and row ID.
struct ObjectKey: Hashable {
    let entity: ObjectIdentifier
    let rowID: Int64

    init(_ entity: EntityDescription, _ rowID: Int64) {
        self.entity = ObjectIdentifier(entity)
        self.rowID = rowID
    }
}
