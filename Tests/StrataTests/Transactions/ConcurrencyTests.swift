import Dispatch
import Foundation
import Strata
import Synchronization
import Testing

/// Creates the one counter, at 0, and returns its ID.
@MainActor
private func makeCounter(_ stack: DataStack) throws -> ObjectID<TxCounter> {
    try stack.perform(synchronous: { tx in tx.create(Into<TxCounter>()).objectID })
}

/// What a nested `perform(synchronous:)` threw, as text a test can compare.
private func outcomeOfNestedPerform(_ stack: DataStack) -> String {
    do {
        try stack.perform(synchronous: { tx in tx.create(Into<TxCounter>()).value = -1 })
        return "no error"
    } catch StrataError.nestedTransaction {
        return "nestedTransaction"
    } catch {
        return "\(error)"
    }
}

@Suite("Transactions: concurrency")
struct ConcurrencyTests {
    @Test
    @MainActor
    func thousandConcurrentTransactionsEachIncrementOnce() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, .file, in: directory)
        let id = try makeCounter(stack)
        let counter = try #require(try stack.fetchExisting(id))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    try await stack.perform { tx in
                        guard let counter = tx.edit(id) else { throw TxValueError(code: 404) }
                        counter.value += 1
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counter.value == 1_000, "the object the main context holds is merged")
        #expect(try stack.fetchOne(From<TxCounter>())?.value == 1_000)
        #expect(stack.mergedGeneration == 1_001)
    }

    @Test
    @MainActor
    func everyKindOfTransactionFromManyThreadsIncrementsOnce() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, .file, in: directory)
        let id = try makeCounter(stack)
        let perKind = 100

        async let awaited: Void = withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<perKind {
                group.addTask { try await stack.perform { tx in tx.edit(id)!.value += 1 } }
            }
            try await group.waitForAll()
        }
        async let completed: Void = withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<perKind {
                group.addTask {
                    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                        stack.perform(
                            asynchronous: { tx in tx.edit(id)!.value += 1 },
                            completion: { continuation.resume(with: $0.mapError { $0 as any Error }) })
                    }
                }
            }
            try await group.waitForAll()
        }
        // Synchronous and unsafe transactions block their threads, so they run on
        // Dispatch's threads, not on the cooperative pool.
        let failures = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            DispatchQueue.global().async {
                let errors = Mutex<[String]>([])
                DispatchQueue.concurrentPerform(iterations: 2 * perKind) { iteration in
                    do {
                        if iteration.isMultiple(of: 2) {
                            try stack.perform(synchronous: { tx in tx.edit(id)!.value += 1 })
                        } else {
                            let tx = try stack.beginUnsafe()
                            tx.edit(id)!.value += 1
                            try tx.commitAndWait()
                        }
                    } catch {
                        errors.withLock { $0.append("\(error)") }
                    }
                }
                continuation.resume(returning: errors.withLock { $0 })
            }
        }
        try await awaited
        try await completed
        #expect(failures.isEmpty)
        // Let the last change sets merge: a synchronous transaction from the main actor drains the inbox.
        try stack.perform(synchronous: { _ in })
        #expect(try stack.fetchOne(From<TxCounter>())?.value == 4 * perKind)
        #expect(stack.mergedGeneration == UInt64(4 * perKind + 1))
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func synchronousPerformInsideASynchronousPerformThrowsNestedTransaction(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let outcome = try stack.perform(synchronous: { tx in
            tx.create(Into<TxCounter>()).value = 1
            return outcomeOfNestedPerform(stack)
        })
        #expect(outcome == "nestedTransaction")
        #expect(try stack.fetchAll(From<TxCounter>()).map(\.value) == [1], "the outer transaction committed")
    }

    /// The stack's very first transaction, before it touches the store (so
    /// no writer is held): only the queue's mark tells a nested perform.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func nestedPerformInAStacksFirstTransactionThrowsBeforeTheStoreIsTouched(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let outcome = try stack.perform(synchronous: { _ in outcomeOfNestedPerform(stack) })
        #expect(outcome == "nestedTransaction")
        #expect(try stack.fetchCount(From<TxCounter>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func synchronousPerformInsideAnAsyncPerformThrowsNestedTransaction(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let outcome = try await stack.perform { tx in
            tx.create(Into<TxCounter>()).value = 1
            return outcomeOfNestedPerform(stack)
        }
        #expect(outcome == "nestedTransaction")
        let completed = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            stack.perform(
                asynchronous: { _ in outcomeOfNestedPerform(stack) },
                completion: { continuation.resume(returning: (try? $0.get()) ?? "failed") })
        }
        #expect(completed == "nestedTransaction")
        #expect(try stack.fetchAll(From<TxCounter>()).map(\.value) == [1])
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func synchronousPerformWhileAnUnsafeTransactionHoldsTheWriterThrows(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe()
        #expect(outcomeOfNestedPerform(stack) == "no error", "a fresh unsafe transaction holds nothing")
        tx.create(Into<TxCounter>()).value = 1  // takes the writer
        #expect(outcomeOfNestedPerform(stack) == "nestedTransaction")
        try tx.commitAndWait()
        #expect(outcomeOfNestedPerform(stack) == "no error", "the commit gave the writer back")
        _ = try tx.fetchCount(From<TxCounter>())  // a read takes the writer again
        #expect(outcomeOfNestedPerform(stack) == "nestedTransaction")
        tx.rollback()
        #expect(outcomeOfNestedPerform(stack) == "no error")
        #expect(try stack.fetchCount(From<TxCounter>()) == 4, "three nested-free performs and one commit")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func unsafeTransactionInsideAPerformThrowsInsteadOfDeadlocking(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let outcome = try stack.perform(synchronous: { tx in
            tx.create(Into<TxCounter>()).value = 1
            let inner = try stack.beginUnsafe()
            do {
                _ = try inner.fetchCount(From<TxCounter>())
                return "no error"
            } catch StrataError.nestedTransaction {
                return "nestedTransaction"
            } catch {
                return "\(error)"
            }
        })
        #expect(outcome == "nestedTransaction")
        #expect(try stack.fetchCount(From<TxCounter>()) == 1)
    }
}
