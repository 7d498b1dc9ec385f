/// Adjusts a fetch: how many objects at most, how many to skip first, and
/// whether objects of subentities match.
///
/// ```swift
/// From<Person>().tweak { $0.fetchLimit = 20; $0.fetchOffset = 40 }
/// From<Animal>().tweak { $0.includesSubentities = false }   // no Dog, no Cat
/// ```
public struct Tweak: Sendable {
    /// The most objects to return; `nil` or `0` (or less) for no limit, as in
    /// Core Data and CoreStore.
    public var fetchLimit: Int?
    /// How many matching objects to skip first.
    public var fetchOffset: Int = 0
    /// Whether objects of the fetched entity's subentities match too: `true`
    /// by default, as in Core Data, so that `From<Animal>()` finds dogs and
    /// cats; `false` keeps only objects whose entity is exactly the fetched
    /// one. Every read of the fetch honours it: objects, IDs, counts, queries,
    /// bulk writes (`deleteAll`, `updateAll`) and list monitors.
    public var includesSubentities = true

    /// A tweak with a limit (none by default), an offset (0 by default) and
    /// subentities included (by default): `From<Person>().tweak { $0 =
    /// Tweak(fetchLimit: 20) }`.
    public init(fetchLimit: Int? = nil, fetchOffset: Int = 0, includesSubentities: Bool = true) {
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includesSubentities = includesSubentities
    }

    /// The limit a fetch applies: `fetchLimit` when it is positive; `nil`,
    /// `0` and below mean no limit, as in Core Data and CoreStore.
    var effectiveLimit: Int? {
        guard let fetchLimit, fetchLimit > 0 else { return nil }
        return fetchLimit
    }
}
