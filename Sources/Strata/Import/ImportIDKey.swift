/// A unique ID as an import's deduplication tells it apart: by the value the
/// store holds, as the unique index and the look-up's `IN (...)` compare it.
///
/// Swift's `==` can take two stored IDs for one: an optional text, or a text
/// wrapped in a type of the app's own, compares by canonical equivalence
/// ("é" composed equals "e" and a combining accent), which merged two records
/// of different IDs into one object; two `Date`s apart by less than the
/// stored seconds keep are two Swift values but one row. Integers keep `==`
/// (they are stored as they are); `String` IDs have ``TextIDTable``.
@usableFromInline
enum ImportIDKey<ID: Hashable>: Hashable {
    /// The ID as stored.
    case stored(StoredValue.ExactKey)
    /// An ID that cannot be stored, compared by `==`; its look-up reports why.
    case value(ID)
}
