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
    /// The most records kept; `nil` for no limit by count.
    public var maxCount: Int?
    /// The oldest record kept, in seconds before the newest commit; `nil` for no limit by age.
    public var maxAge: TimeInterval?

    /// A retention of at most `maxCount` records and `maxAge` seconds.
    public init(maxCount: Int?, maxAge: TimeInterval?) {
        self.maxCount = maxCount.map { max(1, $0) }
        self.maxAge = maxAge.map { max(0, $0) }
    }

    /// The default: the last 100,000 commits, and no older than 7 days.
    public static let `default` = HistoryRetention(maxCount: 100_000, maxAge: 7 * 24 * 3_600)

    /// Keeps every record until ``DataStack/purgeHistory(through:)`` or
    /// ``DataStack/purgeHistory(olderThan:)`` removes it.
    public static let unlimited = HistoryRetention(maxCount: nil, maxAge: nil)

    /// How often, in commits, a commit also applies the retention.
    static let purgeInterval: UInt64 = 64
}
