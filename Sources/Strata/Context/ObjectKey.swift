/// The identity-map key of an object: its entity's table and row ID (an
/// inheritance tree's entities share their root's table, and one row ID
/// names one row of it, whichever entity reached it).
struct ObjectKey: Hashable {
    /// The schema index of the entity owning the table (``EntityDescription/tableIndex``).
    let table: Int
    let rowID: Int64

    init(_ entity: EntityDescription, _ rowID: Int64) {
        self.table = entity.tableIndex
        self.rowID = rowID
    }
}
