/// Adjusts a fetch: how many objects at most, how many to skip first,
/// whether objects of subentities match, and, in a transaction, whether its
/// unsaved changes count.
///
/// ```swift
/// From<Person>().tweak { $0.fetchLimit = 20; $0.fetchOffset = 40 }
/// From<Animal>().tweak { $0.includesSubentities = false }   // no Dog, no Cat
/// ```
///
/// CoreStore's clause form takes a closure too, and changes only what the
/// closure sets: `Tweak { $0.fetchLimit = 5 }` given after a fetch that
/// already skips 40 objects keeps skipping them.
///
/// ```swift
/// let firstFive = try stack.fetchAll(
///     From<Person>(), OrderBy<Person>(.ascending(\.$name)), Tweak { $0.fetchLimit = 5 })
/// ```
public struct Tweak: Sendable {
    /// The most objects to return; `nil` or `0` (or less) for no limit, as in
    /// Core Data and CoreStore.
    public var fetchLimit: Int? { didSet { assigned.insert(.fetchLimit) } }
    /// How many matching objects to skip first.
    public var fetchOffset: Int = 0 { didSet { assigned.insert(.fetchOffset) } }
    /// Whether objects of the fetched entity's subentities match too: `true`
    /// by default, as in Core Data, so that `From<Animal>()` finds dogs and
    /// cats; `false` keeps only objects whose entity is exactly the fetched
    /// one. Every read of the fetch honours it: objects, IDs, counts, queries,
    /// bulk writes (`deleteAll`, `updateAll`) and list monitors.
    public var includesSubentities = true { didSet { assigned.insert(.includesSubentities) } }
    /// Whether a transaction's reads see its own unsaved changes: `true` by
    /// default. When `false`, a fetch, count or query in a transaction
    /// matches the store as it was last committed, ignoring what the
    /// transaction created, changed or deleted so far, as Core Data's fetch
    /// request does: the objects it returns are still the transaction's own,
    /// with their current values, and an object the transaction deleted is
    /// left out before the limit and offset apply. Reads on a ``DataStack`` have no unsaved changes, so there it
    /// changes nothing; bulk writes (`deleteAll`, `updateAll`) always see them.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in
    ///     _ = tx.create(Into<Person>())
    ///     let saved = try tx.fetchCount(From<Person>().tweak { $0.includesPendingChanges = false })
    ///     let now = try tx.fetchCount(From<Person>())        // saved + 1
    /// })
    /// ```
    public var includesPendingChanges = true { didSet { assigned.insert(.includesPendingChanges) } }
    /// Core Data's hint for how many objects to load at a time. Accepted so
    /// that CoreStore code compiles, and it changes nothing: a Strata fetch
    /// makes all its objects at once, their values read from rows shared in
    /// batches of 1,024 (Docs/Performance.md), so there is nothing to load later.
    public var fetchBatchSize = 0 { didSet { assigned.insert(.fetchBatchSize) } }
    /// Core Data's choice between faults and objects with their values.
    /// Accepted so that CoreStore code compiles, and it changes nothing:
    /// Strata never returns faults; every fetched object has its values (kept
    /// in the fetch's shared rows until it changes).
    public var returnsObjectsAsFaults = true { didSet { assigned.insert(.returnsObjectsAsFaults) } }

    /// The options set since the tweak was made empty: what a tweak given as
    /// a clause changes in the fetch it joins.
    private var assigned: Options = .all

    /// A tweak with a limit (none by default), an offset (0 by default) and
    /// subentities included (by default): `From<Person>().tweak { $0 =
    /// Tweak(fetchLimit: 20) }`. Given as a clause, it sets all of these.
    public init(fetchLimit: Int? = nil, fetchOffset: Int = 0, includesSubentities: Bool = true) {
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.includesSubentities = includesSubentities
    }

    /// CoreStore's form: a tweak that sets what `adjust` sets, and, given as
    /// a clause, leaves the fetch's other options as they were. The closure
    /// runs once, now, on default options (CoreStore runs it before each
    /// fetch).
    ///
    /// ```swift
    /// let tweak = Tweak { $0.fetchLimit = 20; $0.includesSubentities = false }
    /// let page = try stack.fetchAll(From<Animal>(), tweak)
    /// ```
    public init(_ adjust: (inout Tweak) -> Void) {
        assigned = []
        adjust(&self)
    }

    /// `base` with the options this tweak set in place of its own.
    func applied(to base: Tweak) -> Tweak {
        var result = base
        if assigned.contains(.fetchLimit) { result.fetchLimit = fetchLimit }
        if assigned.contains(.fetchOffset) { result.fetchOffset = fetchOffset }
        if assigned.contains(.includesSubentities) { result.includesSubentities = includesSubentities }
        if assigned.contains(.includesPendingChanges) { result.includesPendingChanges = includesPendingChanges }
        if assigned.contains(.fetchBatchSize) { result.fetchBatchSize = fetchBatchSize }
        if assigned.contains(.returnsObjectsAsFaults) { result.returnsObjectsAsFaults = returnsObjectsAsFaults }
        return result
    }

    /// The limit a fetch applies: `fetchLimit` when it is positive; `nil`,
    /// `0` and below mean no limit, as in Core Data and CoreStore.
    var effectiveLimit: Int? {
        guard let fetchLimit, fetchLimit > 0 else { return nil }
        return fetchLimit
    }

    private struct Options: OptionSet, Sendable {
        let rawValue: UInt8
        static let fetchLimit = Options(rawValue: 1 << 0)
        static let fetchOffset = Options(rawValue: 1 << 1)
        static let includesSubentities = Options(rawValue: 1 << 2)
        static let includesPendingChanges = Options(rawValue: 1 << 3)
        static let fetchBatchSize = Options(rawValue: 1 << 4)
        static let returnsObjectsAsFaults = Options(rawValue: 1 << 5)
        static let all = Options(rawValue: 0b11_1111)
    }
}
