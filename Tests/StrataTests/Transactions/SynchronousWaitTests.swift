import Dispatch
import Foundation
@testable import Strata
import Testing

/// Counts a monitor's `didChange` callbacks where any thread can read them.
@MainActor
private final class DidChangeCounter: ListObserver {
    typealias ListEntityType = MonItem
    let count = Locked(0)
    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { count.withLock { $0 += 1 } }
}

/// CoreStore's `perform(synchronous:waitForAllObservers:)` and unsafe
/// `commitAndWait()`: waiting returns once the main context has merged the
/// commit and observers were told, from any thread; not waiting returns
/// right after the commit, even while the main thread is blocked.
@MainActor
@Suite("Transactions: waiting for observers after a synchronous commit", .serialized)
struct SynchronousWaitTests {
    private func monitoredStack(
        _ kind: StoreKind, in directory: TemporaryDirectory
    ) throws -> (DataStack, ListMonitor<MonItem>, DidChangeCounter) {
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let monitor = try stack.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let counter = DidChangeCounter()
        monitor.addObserver(counter)
        return (stack, monitor, counter)
    }

    /// From a thread of its own, each commit, synchronous or unsafe in a
    /// seeded order, returns only after its observers were told of it,
    /// unless its wait was cut short: beside hundreds of tests the main
    /// queue can hold more than the patience of work, and a long enough one
    /// must give up rather than look like a deadlock. Which it was, the
    /// stack counts; a commit that returned untold and uncounted fails.
    @Test(arguments: StoreKind.allCases)
    func offTheMainActorEveryCommitReturnsAfterItsObserversWereTold(kind: StoreKind) async throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let directory = TemporaryDirectory()
        let (stack, monitor, counter) = try monitoredStack(kind, in: directory)
        let unsafeSteps = (0..<12).map { _ in Bool.random(using: &random) }
        let seen = await Self.commitOffTheMainActor(unsafeSteps, to: stack, counter: counter)
        for (index, (told, cutShort)) in seen.enumerated() where !cutShort {
            #expect(told == index + 1, "seed \(seed): commit \(index) returned before its observers were told")
        }
        // Whatever was cut short merges at the next read.
        #expect(try stack.fetchCount(From<MonItem>()) == 12)
        #expect(monitor.numberOfObjects() == 12 && counter.count.withLock { $0 } == 12)
    }

    /// Commits one item a step on a Dispatch thread, unsafe where
    /// `unsafeSteps` says, and notes, as each commit returned, how many
    /// changes the observer had been told of and whether the stack cut the
    /// commit's wait short.
    private nonisolated static func commitOffTheMainActor(
        _ unsafeSteps: [Bool], to stack: DataStack, counter: DidChangeCounter
    ) async -> [(told: Int, cutShort: Bool)] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var seen: [(told: Int, cutShort: Bool)] = []
                for (index, unsafe) in unsafeSteps.enumerated() {
                    let cutShortBefore = stack.waitsCutShort.withLock { $0 }
                    do {
                        if unsafe {
                            let tx = try stack.beginUnsafe()
                            tx.create(Into<MonItem>()).rank = index
                            try tx.commitAndWait()
                        } else {
                            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = index })
                        }
                        let cutShort = stack.waitsCutShort.withLock { $0 } > cutShortBefore
                        seen.append((counter.count.withLock { $0 }, cutShort))
                    } catch {
                        seen.append((-1, false))
                    }
                }
                continuation.resume(returning: seen)
            }
        }
    }

    /// The case CoreStore's documentation names: with the main thread blocked
    /// until the commit returns, not waiting returns; the merge comes once
    /// the main actor reads again.
    @Test(arguments: StoreKind.allCases)
    func withoutWaitingACommitReturnsWhileTheMainThreadIsBlocked(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, counter) = try monitoredStack(kind, in: directory)
        let committed = DispatchSemaphore(value: 0)
        let outcome = Locked<String?>(nil)
        DispatchQueue.global().async {
            let result = Result { () throws(StrataError) in
                try stack.perform(synchronous: { tx in
                    tx.create(Into<MonItem>()).rank = 1
                    return try tx.fetchCount(From<MonItem>())
                }, waitForAllObservers: false)
            }
            outcome.withLock { $0 = "\(result)" }
            committed.signal()
        }
        // A liveness guard, not a timing assertion: the commit takes milliseconds.
        let returned = committed.wait(timeout: .now() + 120) == .success
        #expect(returned, "the commit waited for the blocked main thread")
        if !returned { committed.wait() }
        #expect(outcome.withLock { $0 } == "success(1)")
        #expect(counter.count.withLock { $0 } == 0, "nothing merged while the main thread was blocked")
        #expect(try stack.fetchCount(From<MonItem>()) == 1)
        #expect(counter.count.withLock { $0 } == 1, "the read merged the commit first")
        #expect(monitor.numberOfObjects() == 1)
    }

    /// Waiting with the main thread blocked until the commit returns, where
    /// CoreStore deadlocks: the wait gives up after `mainActorPatience` (and
    /// logs a warning) and
    /// the commit returns, merged at the next read; a commit
    /// while the first merge request is still unanswered does not wait at all.
    @Test
    func waitingForABlockedMainThreadGivesUpInsteadOfDeadlocking() throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, counter) = try monitoredStack(.file, in: directory)
        let capture = LogCapture()
        defer { capture.stop() }
        let committed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for rank in 1...2 {
                _ = try? stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
                committed.signal()
            }
        }
        // Liveness guards, not timing assertions: each is far beyond the patience.
        for commit in 1...2 {
            let returned = committed.wait(timeout: .now() + 120) == .success
            #expect(returned, "commit \(commit) still waited for the blocked main thread")
            if !returned { committed.wait() }
        }
        #expect(counter.count.withLock { $0 } == 0, "nothing merged while the main thread was blocked")
        #expect(stack.waitsCutShort.withLock { $0 } == 2)
        #expect(capture.all.contains {
            $0.level == .warning && $0.category == .transactions && $0.text.contains("stopped waiting for the main actor")
        })
        #expect(try stack.fetchCount(From<MonItem>()) == 2)
        #expect(counter.count.withLock { $0 } == 2, "the read merged both commits, each its own change")
        #expect(monitor.numberOfObjects() == 2)
    }

    /// An off-main commit that waits while an awaited `perform`'s caller has
    /// yet to resume leaves its merge for after that caller's next line (its
    /// own commit and no later one, Transactions Rule 2), and still returns
    /// only once its observers were told.
    @Test
    func aWaitingCommitMergesOnlyAfterAnAwaitingCallerHasResumed() async throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, counter) = try monitoredStack(.file, in: directory)
        let interloper = Interloper(stack, counter)
        monitor.addObserver(interloper)
        try await stack.perform { tx in tx.create(Into<MonItem>()).rank = 1 }
        let seenByCaller = "merged \(stack.mergedGeneration), listing \(monitor.numberOfObjects())"
        #expect(seenByCaller == "merged 1, listing 1")
        try await waitUntil { interloper.toldWhenReturned.withLock { $0 } != nil }
        // Unless the main actor was busy for longer than the stack waits for
        // it (a loaded machine), which cuts the wait short and says so.
        if !interloper.waitWasCutShort.withLock({ $0 }) {
            #expect(interloper.toldWhenReturned.withLock { $0 } == 2)
        }
        #expect(stack.mergedGeneration == 2)
    }

    /// On the main actor, waiting (the default) merges before returning; not
    /// waiting leaves the merge to the next read or main-actor turn.
    @Test(arguments: StoreKind.allCases)
    func onTheMainActorWaitingDecidesWhetherTheMergeRunsBeforeReturning(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let (stack, monitor, counter) = try monitoredStack(kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        #expect(counter.count.withLock { $0 } == 1)
        #expect(stack.mergedGeneration == 1)

        let rank = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<MonItem>())
            item.rank = 2
            return item.rank
        }, waitForAllObservers: false)
        #expect(rank == 2)
        #expect(counter.count.withLock { $0 } == 1, "not merged before returning")
        #expect(stack.mergedGeneration == 1)
        // The merge the commit scheduled runs once the main actor is free.
        try await waitUntil { counter.count.withLock { $0 } >= 2 }
        #expect(counter.count.withLock { $0 } == 2)
        #expect(monitor.numberOfObjects() == 2)
        #expect(stack.mergedGeneration == 2)
    }

    /// A failed transaction neither waits nor merges: its error comes out as
    /// without the wait, and nothing is saved.
    @Test
    func aFailedTransactionThrowsItsErrorWhetherOrNotItWaits() async throws {
        let directory = TemporaryDirectory()
        let (stack, _, counter) = try monitoredStack(.inMemory, in: directory)
        for wait in [true, false] {
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
                DispatchQueue.global().async {
                    do {
                        try stack.perform(synchronous: { tx in
                            tx.create(Into<MonItem>()).rank = 1
                            throw CancellationError()
                        }, waitForAllObservers: wait)
                        continuation.resume(returning: "committed")
                    } catch StrataError.userError(let error) {
                        continuation.resume(returning: "userError(\(error))")
                    } catch {
                        continuation.resume(returning: "\(error)")
                    }
                }
            }
            #expect(outcome == "userError(CancellationError())")
        }
        #expect(try stack.fetchCount(From<MonItem>()) == 0)
        #expect(counter.count.withLock { $0 } == 0)
    }
}

/// Told of the first commit, commits again from a Dispatch thread with
/// `waitForAllObservers` and keeps the main actor until that commit has
/// left the transaction queue and had time to ask the main actor for its
/// merge: the request then waits in the main queue ahead of the awaiting
/// caller's resumption.
@MainActor
private final class Interloper: ListObserver {
    typealias ListEntityType = MonItem
    let stack: DataStack
    let counter: DidChangeCounter
    /// How many changes the counter had been told of when the second commit returned.
    let toldWhenReturned = Locked<Int?>(nil)
    /// Whether the stack cut the second commit's wait for the main actor short.
    let waitWasCutShort = Locked(false)
    private var started = false

    init(_ stack: DataStack, _ counter: DidChangeCounter) { (self.stack, self.counter) = (stack, counter) }

    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) {
        guard !started else { return }
        started = true
        let entered = DispatchSemaphore(value: 0)
        let (stack, counter, told, cutShort) = (stack, counter, toldWhenReturned, waitWasCutShort)
        DispatchQueue.global().async {
            let cutShortBefore = stack.waitsCutShort.withLock { $0 }
            _ = try? stack.perform(synchronous: { tx in
                entered.signal()
                tx.create(Into<MonItem>()).rank = 2
            })
            cutShort.withLock { $0 = stack.waitsCutShort.withLock { $0 } > cutShortBefore }
            told.withLock { $0 = counter.count.withLock { $0 } }
        }
        entered.wait()
        stack.transactionQueue.sync {}
        usleep(100_000)
    }
}
