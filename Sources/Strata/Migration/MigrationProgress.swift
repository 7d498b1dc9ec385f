import Foundation

/// How far adding a store has come: a migration step with the fraction of
/// all the work done so far, then the end, saying whether a migration ran.
///
/// ```swift
/// try await stack.addStorage(SQLiteStore(fileName: "zoo.sqlite")) { update in
///     if case .migrating(let step, let fraction) = update { print(step, fraction) }
/// }
/// ```
public enum MigrationProgress: Sendable, Hashable {
    /// Migrating `step`; `fractionCompleted` (0...1) counts every step's entities.
    case migrating(step: MigrationStep, fractionCompleted: Double)
    /// The store is open; `migrationRan` says whether it was migrated.
    case finished(migrationRan: Bool)
}

/// Receives progress while a store is opened (on the opening thread).
typealias MigrationProgressHandler = @Sendable (MigrationProgress) -> Void
