import Dispatch
import Foundation

extension Progress {
    /// Calls `handler` on the main actor with this progress whenever its
    /// `fractionCompleted` changes, and once soon after it is set, as
    /// CoreStore's `setProgressHandler(_:)` does; `nil` removes it. One
    /// handler per progress: setting another replaces it.
    ///
    /// Linux's Foundation has no key-value observing, so a handler hears of
    /// the changes Strata makes: those of the `Progress` that
    /// ``DataStack/addStorage(_:completion:)`` and
    /// ``DataStack/upgradeStorageIfNeeded(_:completion:)`` return, which
    /// advance as the store's migration does and reach 1 when it is added.
    /// The handler is held until it is removed or the progress is freed.
    ///
    /// ```swift
    /// let progress = stack.addStorage(SQLiteStore(fileName: "zoo.sqlite")) { result in ... }
    /// progress.setProgressHandler { progress in
    ///     bar.value = progress.fractionCompleted
    /// }
    /// ```
    @MainActor
    public func setProgressHandler(_ handler: (@MainActor (_ progress: Progress) -> Void)?) {
        ProgressHandlers.set(handler, for: self)
        if handler != nil { ProgressHandlers.Told(self).tellOnMainQueue() }
    }
}

/// The handlers ``Foundation/Progress/setProgressHandler(_:)`` set, by
/// progress, each progress held weakly.
@MainActor
enum ProgressHandlers {
    private struct Entry {
        weak var progress: Progress?
        let handler: @MainActor (Progress) -> Void
    }

    private static var entries: [ObjectIdentifier: Entry] = [:]

    static func set(_ handler: (@MainActor (Progress) -> Void)?, for progress: Progress) {
        entries = entries.filter { $0.value.progress != nil }
        entries[ObjectIdentifier(progress)] = handler.map { Entry(progress: progress, handler: $0) }
    }

    /// Calls the handler set for `progress`, if any.
    static func tell(_ progress: Progress) {
        guard let entry = entries[ObjectIdentifier(progress)], entry.progress === progress else { return }
        entry.handler(progress)
    }

    /// A progress carried to the main queue, to tell its handler there.
    ///
    /// `@unchecked Sendable`: Foundation's `Progress` is thread-safe, and the
    /// progress is only handed to the handler, on the main actor.
    final class Told: @unchecked Sendable {
        let progress: Progress

        init(_ progress: Progress) {
            self.progress = progress
        }

        /// Tells the progress's handler, on the main queue, from any thread.
        func tellOnMainQueue() {
            DispatchQueue.main.async { MainActor.assumeIsolated { ProgressHandlers.tell(self.progress) } }
        }
    }
}
