import Foundation

/// How long a store keeps its commit log: records past either limit are
/// purged as commits go on, so the log cannot grow without bound.
///
/// A stack that was not running while more commits than the store keeps went
/// by cannot replay what it missed; it refreshes everything instead (its
/// objects, and its monitors with `willRefetch`/`didRefetch`).
///
/// ```swift
/// var store = SQLiteStore(fileName: "zoo.sqlite")
/// store.settings.historyRetention = HistoryRetention(maxCount: 1_000, maxAge: 3_600)
/// ```
public struct HistoryRetention: Sendable, Hashable {
    /// The most records kept; `nil` for no limit by count. Set directly, a
    /// count below 1 keeps 1, as the initializer makes it.
    public var maxCount: Int?
    /// The oldest record kept, in seconds before the newest commit; `nil` for
    /// no limit by age. Set directly, a negative age keeps none older than
    /// the newest commit, and a NaN sets no limit, as the initializer makes them.
    public var maxAge: TimeInterval?

    /// A retention of at most `maxCount` records (at least 1) and `maxAge`
    /// seconds (at least 0; a NaN, which is no age, sets no limit by age
    /// rather than purging every record).
    public init(maxCount: Int?, maxAge: TimeInterval?) {
        self.maxCount = maxCount.map { max(1, $0) }
        self.maxAge = maxAge.flatMap(Self.ageLimit)
    }

    /// How many records a purge keeps, whatever was set: at least one.
    var countLimit: UInt64? { maxCount.map { UInt64(max(1, $0)) } }

    /// How old a record a purge keeps, whatever was set: see ``maxAge``.
    var ageLimit: TimeInterval? { maxAge.flatMap(Self.ageLimit) }

    private static func ageLimit(_ age: TimeInterval) -> TimeInterval? {
        age.isNaN ? nil : max(0, age)
    }

    /// The default: the last 100,000 commits, and no older than 7 days.
    public static let `default` = HistoryRetention(maxCount: 100_000, maxAge: 7 * 24 * 3_600)

    /// Keeps every record until ``DataStack/purgeHistory(through:)`` or
    /// ``DataStack/purgeHistory(olderThan:)`` removes it.
    public static let unlimited = HistoryRetention(maxCount: nil, maxAge: nil)

    /// How often, in commits, a commit also applies the retention.
    static let purgeInterval: UInt64 = 64
}
