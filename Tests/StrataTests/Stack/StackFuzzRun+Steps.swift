import Foundation
@testable import Strata
import Testing

/// What a `perform` ended with, its typed error kept.
@MainActor
private func captured<Value>(
    _ body: @MainActor () async throws(StrataError) -> Value
) async -> Result<Value, StrataError> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}

@MainActor
private func captured<Value>(_ body: @MainActor () throws(StrataError) -> Value) -> Result<Value, StrataError> {
    do {
        return .success(try body())
    } catch {
        return .failure(error)
    }
}

/// The results of queued transactions, in the order their completions came.
@MainActor
private final class FuzzResults {
    var list: [Result<FuzzOutcome, StrataError>] = []
    /// The pets a monitor of every pet held in each completion.
    var shown: [[Int64]] = []
}

/// The fuzz test's steps: transactions of every kind, and a store's life.
extension FuzzRun {
    enum TransactionKind: String {
        case synchronous, awaited, unsafe
    }

    /// Checks a transaction's result against the model's prediction and,
    /// when it committed, moves the model on.
    func settle(_ plan: FuzzPlan, _ result: Result<FuzzOutcome, StrataError>) {
        var predicted = state
        let prediction = predicted.apply(plan, created: nil).result
        tally["\(prediction)", default: 0] += 1
        switch result {
        case .success(let outcome):
            expect(prediction == .committed, "committed, the model says \(prediction): \(plan)")
            var next = state
            let applied = next.apply(plan, created: outcome.created)
            expect(applied.result == .committed, "committed, the model says \(applied.result): \(plan)")
            expect(applied.counts == outcome.counts, "counted \(outcome.counts), the model \(applied.counts): \(plan)")
            expect(applied.mismatches.isEmpty, "\(applied.mismatches): \(plan)")
            state = next
        case .failure(let error):
            expect(FuzzResult(error) == prediction, "failed with \(error), the model says \(prediction): \(plan)")
        }
    }

    func transaction(_ kind: TransactionKind) throws {
        let plan = planner.plan(state, random: &random)
        action = "\(kind) transaction \(plan)"
        let result: Result<FuzzOutcome, StrataError>
        switch kind {
        case .synchronous:
            result = captured { () throws(StrataError) in
                try stack.perform(synchronous: { tx in try plan.run(in: tx) })
            }
        case .unsafe:
            let tx = try stack.beginUnsafe()
            do {
                let outcome = try plan.run(in: tx)
                try tx.commitAndWait()
                result = .success(outcome)
            } catch {
                tx.rollback()
                result = .failure(error as? StrataError ?? .userError(error))
            }
        case .awaited:
            preconditionFailure("awaited transactions go through awaitedTransaction()")
        }
        settle(plan, result)
    }

    func awaitedTransaction() async {
        let plan = planner.plan(state, random: &random)
        action = "awaited transaction \(plan)"
        let stack = stack
        let result = await captured { () async throws(StrataError) in
            try await stack.perform { tx in try plan.run(in: tx) }
        }
        settle(plan, result)
    }

    /// Several transactions queued at once with completions; each plan is
    /// drawn against the model before any runs, and they settle in order.
    /// Each completion runs right after its own commit's merge, before any
    /// later one: a monitor of every pet holds the pets of that commit and
    /// no later one. (Not their values: an object the monitor makes for a
    /// row nobody holds is read from the store as it is then, later commits
    /// included, as a fetch in a completion is.)
    func completions(count: Int) async throws {
        let plans = (0..<count).map { _ in planner.plan(state, random: &random) }
        action = "\(count) queued transactions \(plans)"
        let allPets = try stack.monitorList(From<FuzzPet>())
        let results = FuzzResults()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            for (index, plan) in plans.enumerated() {
                stack.perform(asynchronous: { tx in try plan.run(in: tx) }, completion: { result in
                    results.list.append(result)
                    results.shown.append(allPets.objectsInAllSections().map(\.rowID))
                    if index == plans.count - 1 { continuation.resume() }
                })
            }
        }
        expect(results.list.count == plans.count, "\(results.list.count) completions for \(plans.count) transactions")
        for (index, (plan, result)) in zip(plans, results.list).enumerated() {
            let before = state.pets.count
            settle(plan, result)
            // A commit changing more than half the list and more than 32 pets
            // makes the monitor re-fetch, and a re-fetch reads the store as it
            // is, later commits included: not checked here.
            guard max(before, state.pets.count) <= 32 else { continue }
            let expected = state.pets.keys.sorted()
            expect(results.shown[index] == expected,
                   "the completion of queued transaction \(index) saw pets \(results.shown[index]), the model \(expected)")
        }
    }

    /// A transaction whose task is cancelled before it begins: its body never
    /// runs and nothing is saved.
    func cancelledTask() async {
        let plan = planner.plan(state, random: &random)
        action = "cancelled task \(plan)"
        let stack = stack
        let task = Task { @MainActor in
            await captured { () async throws(StrataError) in try await stack.perform { tx in try plan.run(in: tx) } }
        }
        task.cancel()
        let result = await task.value
        if case .failure(.userCancelled) = result {} else {
            expect(false, "a cancelled task's transaction ended with \(result)")
        }
    }

    func export() throws {
        action = "export"
        let url = directory.file("copy-\(step).sqlite")
        let result = captured { () throws(StrataError) in try stack.exportStore(to: url) }
        if kind == .postgreSQL {
            if case .failure(.storage) = result {} else { expect(false, "exporting a server store gave \(result)") }
            return
        }
        if case .failure(let error) = result {
            expect(false, "export failed: \(error)")
            return
        }
        copies.append((url, state))
        // A second export to the same file is refused.
        if case .failure(.storage) = captured({ () throws(StrataError) in try stack.exportStore(to: url) }) {} else {
            expect(false, "exporting over an existing file was not refused")
        }
        // The copy holds the model, read by a stack of its own.
        let reader = DataStack(fuzzSchema)
        try reader.addStorageAndWait(SQLiteStore(fileURL: url, isReadOnly: true))
        compareStore(reader, with: state, "the exported copy")
        try reader.removeStorage()
    }

    func replace() throws {
        guard !copies.isEmpty else { return try export() }
        let copy = copies[draw(copies.count)]
        action = "replace with \(copy.url.lastPathComponent)"
        let result = captured { () throws(StrataError) in try stack.replaceStore(withContentsOf: copy.url) }
        guard kind == .file else {
            if case .failure(.storage) = result {} else { expect(false, "replacing a \(kind) store gave \(result)") }
            return
        }
        if case .failure(let error) = result {
            expect(false, "replace failed: \(error)")
            return
        }
        state = copy.state
    }

    /// `wipeAllData()`: every object goes, row IDs are not given out again.
    func wipe() throws {
        action = "wipe"
        let count = try stack.wipeAllData()
        let expected = state.owners.count + state.pets.count + state.tags.count + state.vaults.count
        expect(count == expected, "the wipe deleted \(count) objects, the model held \(expected)")
        state = FuzzState()
    }

    func reset() throws {
        action = "reset"
        try stack.resetStore()
        state = FuzzState()
    }

    /// Removes the store and adds it again: monitors and held objects stop
    /// following it, so the run lets them go; an in-memory store starts empty.
    func removeAndAddAgain() throws {
        action = "remove and add again"
        try stack.removeStorage()
        expect(!stack.hasStore, "a stack without its store says it has one")
        if case .failure(.storeNotAdded) = captured({ () throws(StrataError) in try stack.fetchCount(From<FuzzPet>()) }) {} else {
            expect(false, "a read without a store did not throw storeNotAdded")
        }
        petLists = []
        ownerLists = []
        pets = []
        owners = []
        try stack.addStorageAndWait(storage)
        if kind == .inMemory { state = FuzzState() }
    }
}
