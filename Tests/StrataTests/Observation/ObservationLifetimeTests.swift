import Foundation
@testable import Strata
import Testing

/// A screen that keeps its publisher and observes it with a closure, the way
/// Observing.md (Rule 8) says to: capturing itself weakly.
@MainActor
private final class NotesScreen {
    let publisher: ListPublisher<LifeNote>
    var shown = 0

    init(_ stack: DataStack) throws {
        publisher = try stack.publishList(From<LifeNote>())
        publisher.addObserver(self, notifyInitial: true) { [weak self] publisher in
            self?.shown = publisher.snapshot.count
        }
    }
}

/// A view model that keeps a field observation of its note, its closure
/// capturing the view model weakly (Observing.md, Rule 9).
@MainActor
private final class NoteViewModel {
    var token: FieldObservation?
    var title = ""

    init(_ note: LifeNote) {
        token = note.$title.observe { [weak self] _, new in self?.title = new }
    }
}

/// What monitors, publishers and field observations promise about their
/// lifetimes: who holds whom, and what ends when.
@MainActor
@Suite("Observation lifetimes")
struct ObservationLifetimeTests {
    /// `removeStorage()` ends publishers' `snapshots` as it ends change-set
    /// streams: the publisher will publish nothing more, and a `for await`
    /// over it (in a task that keeps the publisher) would otherwise never end.
    @Test
    func publisherSnapshotsEndWhenTheStoreIsRemoved() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(lifeSchema, .file, in: directory)
        try stack.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        let note = try #require(try stack.fetchOne(From<LifeNote>()))
        let list = try stack.publishList(From<LifeNote>())
        let object = try stack.publishObject(note)
        let listSnapshots = list.snapshots
        let objectSnapshots = object.snapshots
        try stack.removeStorage()
        #expect(await hasFinished(listSnapshots), "a list publisher's sequence ends with its store")
        #expect(await hasFinished(objectSnapshots), "an object publisher's sequence ends with its store")

        // Asked for afterwards: the last snapshot, then the end.
        let later = await elementsToTheEnd(of: list.snapshots)
        #expect(later?.map(\.count) == [1])
        let laterObject = await elementsToTheEnd(of: object.snapshots)
        #expect(laterObject?.count == 1 && laterObject?[0]?.$number == 0)
    }

    /// A field observation is active only while a commit can still reach it:
    /// not once its store is removed, nor once its stack is released with
    /// nothing else keeping the stack's main context.
    @Test(arguments: ["removeStorage", "release the stack"])
    func fieldObservationIsInactiveOnceItsStoreIsNoLongerFollowed(_ ending: String) throws {
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(lifeSchema, .file, in: directory)
        try stack!.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        let note = try #require(try stack!.fetchOne(From<LifeNote>()))
        let token = note.$number.observe { _, _ in }
        #expect(token.isActive)
        if ending == "removeStorage" {
            try stack!.removeStorage()
        } else {
            weak let released = stack
            stack = nil
            #expect(released == nil)
        }
        #expect(!token.isActive, "after \(ending), no commit reaches the observation")
        #expect(note.number == 0, "the object keeps its values")
    }

    /// A main-context object may outlive its stack (it keeps its values);
    /// observing one of its fields then is no programmer error, as KVO on a
    /// Core Data object of a released CoreStore stack is none: it gives an
    /// inactive observation, whose `.initial` report still carries the
    /// value, and never traps. In a child process, so that a trap fails this
    /// test alone.
    @Test
    func observingAFieldOfAnObjectKeptAfterItsStackGivesAnInactiveObservation() async {
        await #expect(processExitsWith: .success) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                var stack: DataStack? = try makeStack(lifeSchema, .file, in: directory)
                try stack!.perform(synchronous: { tx in tx.create(Into<LifeNote>()).number = 7 })
                let released = try stack!.fetchOne(From<LifeNote>())!
                let removed = try stack!.fetchOne(From<LifeNote>())!
                try stack!.removeStorage()
                let afterRemoval = removed.$number.observe { _, _ in }
                stack = nil
                let token = released.$number.observe { _, _ in }
                var initial: Int?
                let withOptions = released.observe(\.$number, options: [.initial, .new]) { _, change in
                    initial = change.newValue
                }
                guard !token.isActive, !withOptions.isActive, !afterRemoval.isActive, initial == 7 else {
                    exit(1)
                }
            }
        }
    }

    /// A field observation kept with a monitor after its stack is released
    /// stays active: the monitor keeps the main context, which goes on
    /// following other writers' commits.
    @Test
    func fieldObservationStaysActiveWhileAMonitorKeepsTheMainContext() throws {
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(lifeSchema, .file, in: directory)
        try stack!.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        let monitor = try stack!.monitorList(From<LifeNote>())
        let token = monitor[0].$number.observe { _, _ in }
        stack = nil
        #expect(token.isActive)
        withExtendedLifetime(monitor) {}
    }

    /// A screen holding its publisher, observing it with a closure that
    /// captures the screen weakly, is freed with its publisher; a closure
    /// may read the publisher it is given without capturing it.
    @Test
    func aScreenObservingItsOwnPublisherWeaklyIsFreed() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(lifeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        var screen: NotesScreen? = try NotesScreen(stack)
        #expect(screen!.shown == 1)
        try stack.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        #expect(screen!.shown == 2)
        weak let releasedScreen = screen
        weak let releasedPublisher = screen!.publisher
        screen = nil
        #expect(releasedScreen == nil)
        #expect(releasedPublisher == nil)
    }

    /// A view model keeping a field observation whose closure captures it
    /// weakly follows its note, and is freed with the observation.
    @Test
    func aViewModelObservingAFieldWeaklyIsFreed() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(lifeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        let note = try #require(try stack.fetchOne(From<LifeNote>()))
        var model: NoteViewModel? = NoteViewModel(note)
        try stack.perform(synchronous: { tx in tx.edit(note)!.title = "first" })
        #expect(model!.title == "first")
        weak let releasedModel = model
        weak let releasedToken = model!.token
        model = nil
        #expect(releasedModel == nil)
        #expect(releasedToken == nil)
        try stack.perform(synchronous: { tx in tx.edit(note)!.title = "second" })
        #expect(note.title == "second")
    }

    /// A monitor released by its own observer in `listMonitorWillChange`
    /// (a screen closing) is freed once the batch is over and tells nothing
    /// more; the commit goes on to the other monitors.
    @Test
    func aMonitorReleasedInsideItsOwnCallbackStops() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(lifeSchema, .inMemory, in: directory)
        var closing: ListMonitor<LifeNote>? = try stack.monitorList(From<LifeNote>())
        let staying = try stack.monitorList(From<LifeNote>())
        weak let released = closing
        let observer = LifeObserver()
        observer.onWillChange = { closing = nil }
        closing!.addObserver(observer)
        let other = LifeObserver()
        staying.addObserver(other)
        try stack.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        #expect(released == nil)
        #expect(observer.changes == 1, "the batch under way is told to its end")
        try stack.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        #expect(observer.changes == 1)
        #expect(other.changes == 2)
        #expect(staying.numberOfObjects() == 2)
    }
}
