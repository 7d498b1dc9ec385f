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

extension DataStack {
    /// Opens `storage` off the main actor, migrating it if needed, and calls
    /// `progress` as the migration advances (from the opening thread) and
    /// once at the end.
    ///
    /// - Throws: the same errors as ``addStorageAndWait(_:)``.
    @MainActor
    public func addStorage(
        _ storage: some StorageInterface,
        progress: @escaping @Sendable (MigrationProgress) -> Void
    ) async throws {
        try await addStorage(storage, reporting: progress)
    }

    /// Starts adding `storage` and returns its progress two ways: a Foundation
    /// `Progress` (100 units) and an `AsyncThrowingStream` of
    /// ``MigrationProgress`` values, which finishes after `.finished` or throws
    /// the error that stopped the store from opening.
    ///
    /// ```swift
    /// let (progress, updates) = stack.addStorageReportingProgress(SQLiteStore(fileName: "zoo.sqlite"))
    /// for try await update in updates { print(update, progress.fractionCompleted) }
    /// ```
    @MainActor
    public func addStorageReportingProgress(
        _ storage: some StorageInterface
    ) -> (progress: Progress, updates: AsyncThrowingStream<MigrationProgress, any Error>) {
        let progress = Progress(totalUnitCount: 100)
        let box = ProgressBox(progress)
        let (updates, continuation) = AsyncThrowingStream.makeStream(of: MigrationProgress.self)
        let configuration = storage.configuration
        Task { @MainActor in
            do {
                try await self.addStorage(StoredConfiguration(configuration: configuration)) { update in
                    box.record(update)
                    continuation.yield(update)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return (progress, updates)
    }
}

/// A storage described by a configuration already taken from another one.
private struct StoredConfiguration: StorageInterface {
    let configuration: StoreConfiguration
}

/// Moves progress values into a Foundation `Progress`.
///
/// `@unchecked Sendable`: Foundation's `Progress` is thread-safe; the box only
/// forwards values to it.
private final class ProgressBox: @unchecked Sendable {
    private let progress: Progress

    init(_ progress: Progress) {
        self.progress = progress
    }

    func record(_ update: MigrationProgress) {
        switch update {
        case .migrating(_, let fraction):
            progress.completedUnitCount = Int64((fraction * 99).rounded(.down))
        case .finished:
            progress.completedUnitCount = 100
        }
    }
}
