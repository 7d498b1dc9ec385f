import Foundation

/// Where Strata reports what happens inside it, by level and category: errors
/// it met (a failed commit, fetch or query), what it recovered from without
/// failing (a stored value that did not decode and fell back to the field's
/// default), what it did (a store opened, a migration run) and, when asked,
/// every SQL statement.
///
/// Messages below ``minimumLevel`` are never built. The default logger writes
/// to standard error; give Strata yours:
///
/// ```swift
/// StrataLog.minimumLevel = .info
/// StrataLog.logger = { message in
///     os.log("\(message.category.rawValue): \(message.text)")
/// }
/// ```
public enum StrataLog {
    /// How much a message matters, from the most detailed to the most severe.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        /// Every step, SQL statements included (see ``DataStack/setSQLTrace(_:)``).
        case trace
        /// What Strata did: a store opened, a migration run.
        case info
        /// What Strata recovered from without failing.
        case warning
        /// A failure Strata also reports to the caller (a commit, a fetch or a
        /// query that failed).
        case error

        /// Whether `lhs` is less severe than `rhs`.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name, as messages print it.
        public var description: String {
            switch self {
            case .trace: "trace"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// What part of Strata a message comes from.
    public enum Category: String, Sendable, CaseIterable {
        /// Opening, migrating and closing stores; files.
        case storage
        /// Commits and rollbacks.
        case transactions
        /// Objects' stored values.
        case objects
        /// Monitors, publishers and field observations.
        case observation
        /// The commit log and following other writers.
        case history
        /// Fetches and queries (of a stack or a transaction) that failed.
        case queries
        /// Importing.
        case importing
        /// SQL statements, as prepared (values are bound, never in the text).
        case sql
    }

    /// One message.
    public struct Message: Sendable, CustomStringConvertible {
        /// How much it matters.
        public let level: Level
        /// What part of Strata it comes from.
        public let category: Category
        /// What happened, in words (for `.sql`, the statement as prepared).
        public let text: String
        /// The source file and line that logged it, in Strata.
        public let file: String
        public let line: Int

        /// `[Strata] <level> <category>: <text>`, as the default logger writes it.
        public var description: String { "[Strata] \(level) \(category.rawValue): \(text)" }
    }

    private struct Settings {
        var minimumLevel = Level.warning
        var logger: @Sendable (Message) -> Void = { message in
            FileHandle.standardError.write(Data("\(message)\n".utf8))
        }
    }

    // A `Locked`, not a `Mutex`: any thread logs, and the thread sanitizer
    // does not see a `Mutex` on Linux.
    private static let settings = Locked(Settings())

    /// The least severe level that is logged; `.warning` unless set.
    public static var minimumLevel: Level {
        get { settings.withLock { $0.minimumLevel } }
        set { settings.withLock { $0.minimumLevel = newValue } }
    }

    /// Receives each message at or above ``minimumLevel``, on whichever
    /// thread logged it. The default writes its description to standard error.
    public static var logger: @Sendable (Message) -> Void {
        get { settings.withLock { $0.logger } }
        set { settings.withLock { $0.logger = newValue } }
    }

    /// Logs `text` when `level` is at or above ``minimumLevel``.
    static func log(
        _ level: Level, _ category: Category, _ text: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) {
        let (minimum, logger) = settings.withLock { ($0.minimumLevel, $0.logger) }
        guard level >= minimum else { return }
        logger(Message(level: level, category: category, text: text(), file: "\(file)", line: Int(line)))
    }

    static func warning(
        _ category: Category, _ text: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        log(.warning, category, text(), file: file, line: line)
    }
}
