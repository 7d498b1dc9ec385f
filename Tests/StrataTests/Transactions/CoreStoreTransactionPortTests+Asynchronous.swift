import Foundation
import Testing

@testable import Strata

/// CoreStore's `perform(asynchronous:success:failure:)`, awaited: what
/// `success` or `failure` received, and what `inCompletion` read on the main
/// actor inside whichever of the two ran.
@MainActor
private func txPortAsynchronous<Value: Sendable, Seen: Sendable>(
    _ stack: DataStack, _ body: @escaping @Sendable (AsynchronousDataTransaction) throws -> Value,
    reading inCompletion: @escaping @MainActor @Sendable () throws -> Seen
) async throws -> (outcome: Result<Value, StrataError>, seen: Seen) {
    let (outcome, seen) = await withCheckedContinuation {
        (continuation: CheckedContinuation<(Result<Value, StrataError>, Result<Seen, any Error>), Never>) in
        stack.perform(
            asynchronous: body,
            success: { value in continuation.resume(returning: (.success(value), Result { try inCompletion() })) },
            failure: { error in continuation.resume(returning: (.failure(error), Result { try inCompletion() })) })
    }
    return (outcome, try seen.get())
}

/// What completions recorded, on the main actor, in the order they ran.
@MainActor
private final class TxPortLog<Entry> {
    var entries: [Entry] = [] { didSet { resumeWaiterIfDone() } }
    private var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?

    /// Returns once `count` entries are in, however long the completions
    /// take (no deadline: a loaded machine is slow, not wrong; a completion
    /// that never comes is a hang, which CI's watch reports by name).
    func wait(for count: Int) async throws {
        guard entries.count < count else { return }
        await withCheckedContinuation { waiter = (count, $0) }
    }

    private func resumeWaiterIfDone() {
        guard let waiter, entries.count >= waiter.count else { return }
        self.waiter = nil
        waiter.continuation.resume()
    }
}

/// CoreStore's `TransactionTests` of asynchronous transactions
/// (`perform(asynchronous:success:failure:)`).
extension CoreStoreTransactionPortTests {
    /// `test_ThatAsynchronousTransactions_CanPerformCRUDs`, each transaction
    /// awaited before the next is queued: `success` gets the closure's value
    /// and, fetching in it, finds the store as that transaction left it.
    /// (CoreStore queues all three at once; see
    /// ``queuedAsynchronousTransactionsCompleteInCommitOrder(_:)`` for that.)
    @Test(arguments: StoreKind.sqlite)
    func asynchronousTransactionsPerformCRUDs(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let now = txPortNow()
        let seeOne: @MainActor @Sendable () throws -> [TxPortValues] = {
            try stack.fetchAll(From<PortEntity>()).map(TxPortValues.init(of:))
        }

        let created = try await txPortAsynchronous(stack, { tx -> Bool in
            let object = tx.create(Into<PortEntity>())
            guard try txPortIsOwn(object, in: tx) else { return false }
            TxPortValues.created(now).set(on: object)
            return tx.hasChanges
        }, reading: seeOne)
        #expect(try created.outcome.get())
        #expect(created.seen == [.created(now)])
        let held = try #require(try stack.fetchOne(From<PortEntity>()))
        #expect(try stack.fetchExisting(held) === held)

        let updated = try await txPortAsynchronous(stack, { tx -> Bool in
            guard let object = try tx.fetchOne(From<PortEntity>()) else { try tx.cancel() }
            TxPortValues.edit(object)
            return tx.hasChanges
        }, reading: seeOne)
        #expect(try updated.outcome.get())
        #expect(updated.seen == [.edited])

        let deleted = try await txPortAsynchronous(stack, { tx -> Bool in
            tx.delete(try tx.fetchOne(From<PortEntity>()))
            return tx.hasChanges
        }, reading: seeOne)
        #expect(try deleted.outcome.get())
        #expect(deleted.seen == [])
        #expect(held.isDeletedObject)
    }

    /// `test_ThatAsynchronousTransactions_CanPerformCRUDs` as CoreStore runs
    /// it: create, update and delete queued at once. CoreStore's queue waits
    /// for each `success` before the next transaction, so a fetch there sees
    /// that transaction's result; Strata's writer does not wait for the main
    /// actor, and a fetch in a completion may see later commits (a
    /// documented difference: ComingFromCoreStore.md, "Asynchronous
    /// transactions do not wait for their completion"). What Strata
    /// promises, and this checks: completions run in commit order, each
    /// right after its own merge, so the monitor and its objects show that
    /// commit and no later one; and the closure's value reaches `success`.
    @Test(arguments: StoreKind.sqlite)
    func queuedAsynchronousTransactionsCompleteInCommitOrder(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let monitor = try stack.monitorList(From<PortEntity>(), OrderBy<PortEntity>(.ascending("testEntityID")))
        let log = TxPortLog<String>()
        let now = txPortNow()
        let record: @MainActor @Sendable (String, Result<Bool, StrataError>) -> Void = { step, outcome in
            let listed = monitor.objectsInAllSections().map { TxPortValues(of: $0).description }
            log.entries.append("\(step) \(outcome) [\(listed.joined(separator: ", "))]")
        }
        let steps: [(String, @Sendable (AsynchronousDataTransaction) throws -> Bool)] = [
            ("create", { tx in
                TxPortValues.created(now).set(on: tx.create(Into<PortEntity>()))
                return tx.hasChanges
            }),
            ("update", { tx in
                guard let object = try tx.fetchOne(From<PortEntity>()) else { try tx.cancel() }
                TxPortValues.edit(object)
                return tx.hasChanges
            }),
            ("delete", { tx in
                tx.delete(try tx.fetchOne(From<PortEntity>()))
                return tx.hasChanges
            }),
        ]
        for (step, body) in steps {
            stack.perform(
                asynchronous: body, success: { record(step, .success($0)) }, failure: { record(step, .failure($0)) })
        }
        try await log.wait(for: 3)
        #expect(log.entries == [
            "create success(true) [\(TxPortValues.created(now))]",
            "update success(true) [\(TxPortValues.edited)]",
            "delete success(true) []",
        ])
        try txPortExpect(stack, holds: nil)
    }

    /// `test_ThatAsynchronousTransactions_CanPerformCRUDsInCorrectConfiguration`,
    /// each transaction awaited as in ``asynchronousTransactionsPerformCRUDs(_:)``.
    @Test(arguments: StoreKind.sqlite)
    func asynchronousTransactionsPerformCRUDsInTheirConfiguration(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try txPortConfigStack(kind, in: directory)
        let config1 = From<PortEntity>("Config1")
        let now = txPortNow()
        let seeBoth: @MainActor @Sendable () throws -> [[TxPortValues]] = {
            try [config1, From<PortEntity>(nil)].map { try stack.fetchAll($0).map(TxPortValues.init(of:)) }
        }

        let created = try await txPortAsynchronous(stack, { tx -> Bool in
            TxPortValues.created(now).set(on: tx.create(Into<PortEntity>("Config1")))
            return tx.hasChanges
        }, reading: seeBoth)
        #expect(try created.outcome.get())
        #expect(created.seen == [[.created(now)], []])

        let updated = try await txPortAsynchronous(stack, { tx -> Bool in
            guard let object = try tx.fetchOne(config1) else { try tx.cancel() }
            TxPortValues.edit(object)
            return tx.hasChanges
        }, reading: seeBoth)
        #expect(try updated.outcome.get())
        #expect(updated.seen == [[.edited], []])

        let deleted = try await txPortAsynchronous(stack, { tx -> Bool in
            tx.delete(try tx.fetchOne(config1))
            return tx.hasChanges
        }, reading: seeBoth)
        #expect(try deleted.outcome.get())
        #expect(deleted.seen == [[], []])
    }

    /// `test_ThatAsynchronousTransactions_CanDiscardUncommittedChanges`, queued
    /// at once as in CoreStore: a cancelled create, a create that finds
    /// nothing before it, a cancelled update, and a cancelled delete that
    /// finds the created values. Each cancelled one reaches `failure` with
    /// `userCancelled`; the last one's `failure` finds the created object
    /// unchanged (it is the last commit queued, so this holds in Strata too).
    @Test(arguments: StoreKind.sqlite)
    func asynchronousTransactionsDiscardUncommittedChanges(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let now = txPortNow()
        // What the closures saw, in the order they ran (on the transaction queue).
        let seenInside = Locked<[String]>([])
        // What each completion got, and what a fetch made in it found.
        let outcomes = TxPortLog<String>()
        let found = TxPortLog<[TxPortValues]?>()
        let record: @MainActor @Sendable (String, StrataError?) -> Void = { step, error in
            let outcome = switch error {
            case nil: "success"
            case .userCancelled?: "userCancelled"
            case let error?: "\(error)"
            }
            outcomes.entries.append("\(step) \(outcome)")
            found.entries.append((try? stack.fetchAll(From<PortEntity>()))?.map(TxPortValues.init(of:)))
        }

        stack.perform(asynchronous: { tx -> Void in
            TxPortValues.created(Date()).set(on: tx.create(Into<PortEntity>()))
            try tx.cancel()
        }, success: { record("create-discard", nil) }, failure: { record("create-discard", $0) })
        stack.perform(asynchronous: { tx -> Bool in
            let count = try tx.fetchCount(From<PortEntity>())
            let none = try tx.fetchOne(From<PortEntity>()) == nil
            seenInside.withLock { $0.append("create: \(count) \(none)") }
            TxPortValues.created(now).set(on: tx.create(Into<PortEntity>()))
            return tx.hasChanges
        }, success: { record($0 ? "create" : "create without changes", nil) }, failure: { record("create", $0) })
        stack.perform(asynchronous: { tx -> Void in
            guard let object = try tx.fetchOne(From<PortEntity>()) else { return }
            TxPortValues.edit(object)
            try tx.cancel()
        }, success: { record("update-discard", nil) }, failure: { record("update-discard", $0) })
        stack.perform(asynchronous: { tx -> Void in
            let count = try tx.fetchCount(From<PortEntity>())
            guard let object = try tx.fetchOne(From<PortEntity>()) else { try tx.cancel() }
            seenInside.withLock { $0.append("delete: \(count) \(TxPortValues(of: object))") }
            tx.delete(object)
            try tx.cancel()
        }, success: { record("delete-discard", nil) }, failure: { record("delete-discard", $0) })

        try await outcomes.wait(for: 4)
        #expect(seenInside.withLock { $0 } == ["create: 0 true", "delete: 1 \(TxPortValues.created(now))"])
        #expect(outcomes.entries == [
            "create-discard userCancelled", "create success", "update-discard userCancelled",
            "delete-discard userCancelled",
        ])
        #expect(found.entries.last == [.created(now)])
        try txPortExpect(stack, holds: .created(now))
    }
}
