import Foundation
@testable import Strata
import Testing

/// The model of the lifetime tests (`StackLifetimeTests`,
/// `StackLifetimeScenarioTests`, `ObservationLifetimeTests`), an observer
/// that counts what it is told, and a way to ask whether a stream ended.
final class LifeNote: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("number") var number: Int = 0
}

let lifeSchema = Schema("Life", entities: [Entity<LifeNote>("Note")])

/// Everything `stream` yields up to its end, or `nil` when it has not
/// finished: a task reads it and says whether it got to the end on its own,
/// before it was cancelled after a bounded number of main-actor turns (a
/// finished stream ends in the reader's first), so that a stream that never
/// ends fails the test rather than hang it.
@MainActor
func elementsToTheEnd<Element: Sendable>(of stream: AsyncStream<Element>) async -> [Element]? {
    let reader = Task { @MainActor in
        var elements: [Element] = []
        for await element in stream { elements.append(element) }
        return Task.isCancelled ? nil : elements
    }
    for _ in 0..<100 { await Task.yield() }
    reader.cancel()
    return await reader.value
}

/// Whether `stream` has finished (see ``elementsToTheEnd(of:)``).
@MainActor
func hasFinished<Element: Sendable>(_ stream: AsyncStream<Element>) async -> Bool {
    await elementsToTheEnd(of: stream) != nil
}

/// Counts the list changes and object updates it is told of.
@MainActor
final class LifeObserver: ListObjectObserver, ObjectObserver {
    typealias ListEntityType = LifeNote
    typealias ObjectEntityType = LifeNote
    var changes = 0
    /// Runs in `listMonitorWillChange`, before the batch's events.
    var onWillChange: (() -> Void)?

    func listMonitorWillChange(_ monitor: ListMonitor<LifeNote>) { onWillChange?() }
    func listMonitorDidChange(_ monitor: ListMonitor<LifeNote>) { changes += 1 }
    func objectMonitor(
        _ monitor: ObjectMonitor<LifeNote>, didUpdateObject object: LifeNote, changedPersistentKeys: Set<String>
    ) { changes += 1 }
}
