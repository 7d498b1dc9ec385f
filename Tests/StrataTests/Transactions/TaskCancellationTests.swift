import Dispatch
import Foundation
import Strata
import Testing

/// Waits for `semaphore` off the main actor, which the tasks under test need.
private func signalled(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            semaphore.wait()
            continuation.resume()
        }
    }
}

/// What one `try await stack.perform` ended with, as text a test can compare.
@MainActor
private func outcome(of perform: @MainActor () async throws(StrataError) -> Void) async -> String {
    do {
        try await perform()
        return "saved"
    } catch .userCancelled {
        return "cancelled"
    } catch {
        return "\(error)"
    }
}

@Suite("Transactions: the task awaiting perform is cancelled")
struct TaskCancellationTests {
    /// Transactions wait on the queue behind one that holds it; the tasks
    /// awaiting a random half of them are cancelled before it lets go. Those
    /// transactions never run (their bodies never begin, nothing of them is
    /// saved) and throw `userCancelled`; the others commit.
    @Test(arguments: [UInt64(0xCA1), 0xCA2, 0xCA3])
    @MainActor
    func queuedTransactionsOfCancelledTasksNeverRun(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, .inMemory, in: directory)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        stack.perform(asynchronous: { _ in
            holding.signal()
            release.wait()
        }, completion: { _ in })
        await signalled(holding)
        let count = 16
        let cancels = (0..<count).map { _ in random.next() % 2 == 0 }
        let tasks = (0..<count).map { index in
            Task { await outcome { () async throws(StrataError) in
                try await stack.perform { tx in tx.create(Into<TxItem>()).rank = index }
            } }
        }
        // Let the tasks start and queue their transactions behind the one holding the queue.
        for _ in 0..<100 { await Task.yield() }
        for (task, cancel) in zip(tasks, cancels) where cancel { task.cancel() }
        release.signal()
        var outcomes: [String] = []
        for task in tasks { outcomes.append(await task.value) }
        #expect(outcomes == cancels.map { $0 ? "cancelled" : "saved" }, "seed \(seed)")
        let saved = Set(try stack.fetchAll(From<TxItem>()).map(\.rank))
        #expect(saved == Set((0..<count).filter { !cancels[$0] }), "seed \(seed)")
    }

    /// A transaction whose body has begun runs to its end and commits,
    /// although its task is cancelled meanwhile; a task cancelled before it
    /// calls `perform` queues nothing.
    @Test
    @MainActor
    func aRunningTransactionCommitsAndACancelledTaskQueuesNothing() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, .inMemory, in: directory)
        let running = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let task = Task { await outcome { () async throws(StrataError) in
            try await stack.perform { tx in
                running.signal()
                release.wait()
                tx.create(Into<TxItem>()).rank = 1
            }
        } }
        await signalled(running)
        task.cancel()
        release.signal()
        #expect(await task.value == "saved")
        let early = Task { () async -> String in
            withUnsafeCurrentTask { $0?.cancel() }
            return await outcome { () async throws(StrataError) in
                try await stack.perform { tx in tx.create(Into<TxItem>()).rank = 2 }
            }
        }
        #expect(await early.value == "cancelled")
        #expect(try stack.fetchAll(From<TxItem>()).map(\.rank) == [1])
    }
}
