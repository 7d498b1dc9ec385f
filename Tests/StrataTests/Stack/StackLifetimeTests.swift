import Foundation
@testable import Strata
import Testing

final class LifeNote: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("number") var number: Int = 0
}

let lifeSchema = Schema("Life", entities: [Entity<LifeNote>("Note")])

/// Whether `stream` has finished: a task reads it to its end and says
/// whether it got there on its own, before it was cancelled after a bounded
/// number of main-actor turns (a finished stream ends in the reader's first).
@MainActor
func hasFinished<Element: Sendable>(_ stream: AsyncStream<Element>) async -> Bool {
    let reader = Task { @MainActor in
        for await _ in stream {}
        return !Task.isCancelled
    }
    for _ in 0..<100 { await Task.yield() }
    reader.cancel()
    return await reader.value
}

/// What a `DataStack` promises about its own lifetime: what ends, what is
/// freed and what still runs once its last owner lets it go.
@MainActor
@Suite("DataStack lifetime")
struct StackLifetimeTests {
    /// `changeSets()` ends when the stack is released, also when a monitor,
    /// a publisher or a field observation kept by the app outlives it (each
    /// keeps the store's main context, which would otherwise go on feeding
    /// the stream, and a `for await` on it would never end).
    @Test(arguments: ["nothing", "list monitor", "object monitor", "list publisher", "field observation"])
    func changeSetStreamsEndWhenTheStackIsReleased(kept: String) async throws {
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(lifeSchema, .file, in: directory)
        try stack!.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        let note = try #require(try stack!.fetchOne(From<LifeNote>()))
        var keep: AnyObject?
        switch kept {
        case "list monitor": keep = try stack!.monitorList(From<LifeNote>())
        case "object monitor": keep = try stack!.monitorObject(note)
        case "list publisher": keep = try stack!.publishList(From<LifeNote>())
        case "field observation": keep = note.$number.observe { _, _ in }
        default: keep = nil
        }
        let all = try stack!.changeSets()
        let notes = try stack!.changeSets(touching: ["Note"])
        weak let released = stack
        stack = nil
        #expect(released == nil, "the stack is released at once")
        #expect(await hasFinished(all), "the stream of every change set ends with the stack (\(kept) kept)")
        #expect(await hasFinished(notes), "a filtered stream ends with the stack (\(kept) kept)")
        withExtendedLifetime(keep) {}
    }
}
