import Foundation
@testable import Strata
import Testing

/// What a `DataStack` promises about its own lifetime: what ends, what is
/// freed and what still runs once its last owner lets it go.
@MainActor
@Suite("DataStack lifetime")
struct StackLifetimeTests {
    /// `changeSets()` ends when the stack is released, also when a monitor,
    /// a publisher or a field observation kept by the app outlives it (a
    /// monitor or publisher keeps the store's main context, a field
    /// observation its observation center, and either kept the stream open:
    /// a `for await` on it never ended).
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

extension StackLifetimeTests {
    /// Asynchronous transactions queued when the stack's last owner lets it
    /// go still run, in order, and each completion is called (CoreStore's
    /// queue holds its stack the same way); then the stack is freed and its
    /// connections close, folding the WAL into the file.
    @Test
    func queuedTransactionsRunAndCompleteAfterTheLastOwnerLetsGo() async throws {
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(lifeSchema, .file, in: directory)
        weak let released = stack
        let queue = stack!.transactionQueue
        let completed = await withCheckedContinuation { (done: CheckedContinuation<[Int], Never>) in
            let results = Locked<[Int]>([])
            for number in 0..<5 {
                stack!.perform(
                    asynchronous: { tx in
                        tx.create(Into<LifeNote>()).number = number
                        return try tx.fetchCount(From<LifeNote>())
                    },
                    completion: { result in
                        let all = results.withLock { all in
                            all.append((try? result.get()) ?? -1)
                            return all
                        }
                        if all.count == 5 { done.resume(returning: all) }
                    })
            }
            stack = nil
        }
        #expect(completed == [1, 2, 3, 4, 5], "each ran, in order, and completed")
        // The last transaction's block may still be returning on the queue,
        // and the job that ran the last completion returns after it.
        queue.sync {}
        for _ in 0..<10 where released != nil { await Task.yield() }
        #expect(released == nil, "the stack is freed once its queue is done")
        #expect(!FileManager.default.fileExists(atPath: storeURL(in: directory).path + "-wal"),
                "its connections are closed")
        let reopened = try makeStack(lifeSchema, .file, in: directory)
        #expect(try reopened.fetchAll(From<LifeNote>().orderBy(.ascending(\.$number))).map(\.number) == [0, 1, 2, 3, 4])
    }

    /// A stack whose last owner lets it go off the main actor is freed there
    /// and then: its connections close and its change-set streams end.
    @Test
    func aStackReleasedOffTheMainActorIsFreed() async throws {
        let directory = TemporaryDirectory()
        let owner = Locked<DataStack?>(try makeStack(lifeSchema, .file, in: directory))
        let stack = owner.withLock { $0! }
        try stack.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        let stream = try stack.changeSets()
        weak let released = stack
        _ = consume stack
        await Task.detached { owner.withLock { $0 = nil } }.value
        #expect(released == nil)
        #expect(!FileManager.default.fileExists(atPath: storeURL(in: directory).path + "-wal"),
                "its connections are closed")
        #expect(await hasFinished(stream))
    }

    /// An observer may let the stack go from inside a callback (the screen
    /// that owned the stack closes): the pass under way ends normally and
    /// the stack is freed afterwards.
    @Test
    func aStackReleasedInsideAnObserverCallbackIsFreed() async throws {
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(lifeSchema, .file, in: directory)
        weak let released = stack
        let queue = stack!.transactionQueue
        let monitor = try stack!.monitorList(From<LifeNote>())
        let observer = LifeObserver()
        observer.onWillChange = { stack = nil }
        monitor.addObserver(observer)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            stack!.perform(asynchronous: { tx in _ = tx.create(Into<LifeNote>()) }, completion: { _ in
                done.resume()
            })
        }
        queue.sync {}  // the transaction's block returns, letting the stack go
        for _ in 0..<10 where released != nil { await Task.yield() }
        #expect(released == nil)
        #expect(observer.changes == 1)
        #expect(monitor.numberOfObjects() == 1, "the monitor the app kept still shows its list")
    }
}

extension StackLifetimeTests {
    /// A monitor kept after its stack is released holds the store's main
    /// context: it still shows its list and follows other writers' commits
    /// (a refetch reads, and merges, the latest), and the store's files
    /// close only once it goes too (Observing.md, Rule 2).
    @Test
    func aMonitorKeptAfterItsStackFollowsTheStoreAndClosesItWhenReleased() throws {
        let directory = TemporaryDirectory()
        let wal = storeURL(in: directory).path + "-wal"
        var stack: DataStack? = try makeStack(lifeSchema, .file, in: directory)
        try stack!.perform(synchronous: { tx in tx.create(Into<LifeNote>()).number = 1 })
        var monitor: ListMonitor<LifeNote>? = try stack!.monitorList(From<LifeNote>().orderBy(.ascending(\.$number)))
        weak let releasedStack = stack
        stack = nil
        #expect(releasedStack == nil)
        #expect(monitor!.numberOfObjects() == 1)

        do {
            let other = try makeStack(lifeSchema, .file, in: directory)
            try other.perform(synchronous: { tx in tx.create(Into<LifeNote>()).number = 2 })
        }
        #expect(FileManager.default.fileExists(atPath: wal), "the kept monitor's connections keep the store open")
        try monitor!.refetch(From<LifeNote>().orderBy(.ascending(\.$number)))
        #expect(monitor!.objectsInAllSections().map(\.number) == [1, 2])

        weak let releasedMonitor = monitor
        monitor = nil
        #expect(releasedMonitor == nil)
        #expect(!FileManager.default.fileExists(atPath: wal), "the last connection closed with the monitor")
    }
}

/// Says on the main actor whether a completion ran.
@MainActor
private final class CompletionFlag {
    var ran = false
}

extension StackLifetimeTests {
    /// A `try await perform` from the main actor holds merging until its
    /// caller has resumed; a completion of a transaction queued behind it
    /// waits for that. When the caller lets the stack go as soon as it
    /// resumes, that completion still runs (Transactions.md: every
    /// completion is called), with its commit merged.
    @Test
    func aCompletionHeldBehindAnAwaitedCommitRunsWhenTheCallerLetsTheStackGo() async throws {
        let directory = TemporaryDirectory()
        let owner = Locked<DataStack?>(try makeStack(lifeSchema, .file, in: directory))
        let flag = CompletionFlag()
        let behind = DispatchSemaphore(value: 0)
        try await owner.withLock { $0! }.perform { tx in
            tx.create(Into<LifeNote>()).number = 1
            let stack = owner.withLock { $0! }
            stack.perform(
                asynchronous: { tx in tx.create(Into<LifeNote>()).number = 2 },
                completion: { result in flag.ran = (try? result.get()) != nil })
            // Behind both: the second has committed and delivered its completion.
            stack.perform(asynchronous: { _ in behind.signal() }, completion: { _ in })
            // The main actor takes this commit only once the others are delivered.
            DispatchQueue.main.async { behind.wait() }
        }
        owner.withLock { $0 = nil }
        for _ in 0..<20 where !flag.ran { await Task.yield() }
        #expect(flag.ran, "the completion queued behind the awaited commit runs")
    }
}

extension StackLifetimeTests {
    /// An in-memory store lives while anything keeps one of its connections:
    /// a monitor kept after its stack keeps it, so the same `InMemoryStore`
    /// added to a new stack finds its data; once both are gone it starts
    /// empty (Storage.md, `InMemoryStore`).
    @Test
    func anInMemoryStoreLivesAsLongAsAMonitorOfItIsKept() throws {
        let storage = InMemoryStore()
        var first: DataStack? = DataStack(lifeSchema)
        try first!.addStorageAndWait(storage)
        try first!.perform(synchronous: { tx in _ = tx.create(Into<LifeNote>()) })
        var monitor: ListMonitor<LifeNote>? = try first!.monitorList(From<LifeNote>())
        first = nil
        var second: DataStack? = DataStack(lifeSchema)
        try second!.addStorageAndWait(storage)
        #expect(try second!.fetchCount(From<LifeNote>()) == 1, "the kept monitor kept the store")
        #expect(monitor?.numberOfObjects() == 1)
        monitor = nil
        second = nil
        let third = DataStack(lifeSchema)
        try third.addStorageAndWait(storage)
        #expect(try third.fetchCount(From<LifeNote>()) == 0, "with nothing left of it, it starts empty")
    }
}
