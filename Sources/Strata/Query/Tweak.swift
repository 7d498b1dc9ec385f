/// Adjusts a fetch: how many objects at most, and how many to skip first.
///
/// ```swift
/// From<Person>().tweak { $0.fetchLimit = 20; $0.fetchOffset = 40 }
/// ```
public struct Tweak: Sendable {
    /// The most objects to return; `nil` or `0` (or less) for no limit, as in
    /// Core Data and CoreStore.
    public var fetchLimit: Int?
    /// How many matching objects to skip first.
    public var fetchOffset: Int = 0

    /// A tweak with a limit (none by default) and an offset (0 by default):
    /// `From<Person>().tweak { $0 = Tweak(fetchLimit: 20) }`.
    public init(fetchLimit: Int? = nil, fetchOffset: Int = 0) {
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }

    /// The limit a fetch applies: `fetchLimit` when it is positive; `nil`,
    /// `0` and below mean no limit, as in Core Data and CoreStore.
    var effectiveLimit: Int? {
        guard let fetchLimit, fetchLimit > 0 else { return nil }
        return fetchLimit
    }
}
