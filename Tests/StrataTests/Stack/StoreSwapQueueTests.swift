import Dispatch
import Foundation
@testable import Strata
import Testing

/// What a store swap does to the transactions waiting for the writer: a
/// transaction works on the store the stack has when it first reads or
/// writes, so one queued before a `replaceStore` or `resetStore` (or begun
/// but not yet at the store) runs on the new file, as one queued a moment
/// later would; one that had touched the store finishes on the old file
/// first. Only `removeStorage()` makes them fail, with `.storeNotAdded`.
@MainActor
@Suite("Stack: transactions queued across a replaced, reset or removed store")
struct StoreSwapQueueTests {
    /// A file stack filled with owner "old", and beside it a closed store
    /// file filled with owner "new" to replace the stack's with.
    private func oldStackAndNewSource(
        in directory: TemporaryDirectory, random: inout SplitMix64
    ) throws -> (DataStack, URL) {
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try fill(stack, owner: "old", random: &random)
        let source = directory.file("source.sqlite")
        let sourceStack = DataStack(monitorSchema)
        try sourceStack.addStorageAndWait(SQLiteStore(fileURL: source))
        try fill(sourceStack, owner: "new", random: &random)
        try sourceStack.removeStorage()
        return (stack, source)
    }

    /// An owner named `owner` and a few random items, in one transaction.
    private func fill(_ stack: DataStack, owner: String, random: inout SplitMix64) throws {
        let rows = (0..<Int.random(in: 2..<8, using: &random)).map { index in
            Row(
                group: Int.random(in: 0..<3, using: &random),
                rank: Int.random(in: 0..<1_000, using: &random),
                label: "\(owner)-\(index)", flag: false)
        }
        try stack.perform(synchronous: { tx in
            tx.create(Into<MonOwner>()).name = owner
            for row in rows {
                let item = tx.create(Into<MonItem>())
                (item.group, item.rank, item.label) = (row.group, row.rank, row.label)
            }
        })
    }

    private func rows(of stack: DataStack) throws -> [Row] {
        try stack.fetchAll(From<MonItem>()).map { Row($0) }.sorted()
    }

    /// Asks for `work` in a transaction the way `caller` does, telling `outcomes` its result.
    private func queue(
        _ work: Work, on stack: DataStack, by caller: Caller, noting touches: Locked<[String]>,
        into outcomes: AsyncStream<Outcome>.Continuation
    ) {
        switch caller {
        case .completion:
            stack.perform(
                asynchronous: { tx in try work.run(in: tx, noting: touches) },
                completion: { result in outcomes.yield((work.index, result)) })
        case .awaiting:
            Task { @MainActor in
                do throws(StrataError) {
                    outcomes.yield((work.index, .success(try await stack.perform { tx in
                        try work.run(in: tx, noting: touches)
                    })))
                } catch {
                    outcomes.yield((work.index, .failure(error)))
                }
            }
        case .blockingOffTheMainActor:
            DispatchQueue.global().async {
                do throws(StrataError) {
                    outcomes.yield((work.index, .success(try stack.perform(synchronous: { tx in
                        try work.run(in: tx, noting: touches)
                    }))))
                } catch {
                    outcomes.yield((work.index, .failure(error)))
                }
            }
        }
    }

    /// Transactions committed before the swap, one begun and held until the
    /// swap comes (before it reads or writes, or holding the writer), and more
    /// queued behind it in every way there is to ask: the committed ones, and
    /// the held one that had touched the store, stay on the old file; every
    /// other one runs on the new file and commits there, and the stack ends
    /// holding the new file's contents with exactly their changes. After a
    /// removal, those fail with `.storeNotAdded` instead.
    @Test(arguments: Swap.allCases, [false, true])
    func transactionsWaitingForTheWriterRunOnTheNewFile(
        swap: Swap, heldOneHasTouchedTheStore: Bool
    ) async throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, swap.storeKind, in: directory)
        try fill(stack, owner: "old", random: &random)
        // What the new file holds: the source's rows, or none after a reset.
        var expected: [Row] = []
        let source = directory.file("source.sqlite")
        if swap == .replace {
            let sourceStack = DataStack(monitorSchema)
            try sourceStack.addStorageAndWait(SQLiteStore(fileURL: source))
            try fill(sourceStack, owner: "new", random: &random)
            expected = try rows(of: sourceStack)
            try sourceStack.removeStorage()
        }
        let monitor = try stack.monitorList(
            From<MonItem>().orderBy(.ascending(\.$rank), .ascending(\.$label)))
        let checker = ReplayChecker(monitor)

        let early = Int.random(in: 0...3, using: &random)
        let late = Int.random(in: 1...8, using: &random)
        let works = (0..<(early + 1 + late)).map { Work.random(index: $0, &random) }
        let callers = works.map { _ in Caller.allCases.randomElement(using: &random)! }
        let touches = Locked<[String]>([])
        let (outcomes, collector) = AsyncStream<Outcome>.makeStream()
        let reached = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        for work in works[..<early] {
            queue(work, on: stack, by: .completion, noting: touches, into: collector)
        }
        let held = works[early]
        let gate = try stack.store().gate
        let touchesFirst = heldOneHasTouchedTheStore
        stack.perform(asynchronous: { tx in
            guard touchesFirst else {
                // Holds the queue, before it reads or writes, until the swap is done.
                reached.signal()
                go.wait()
                return try held.run(in: tx, noting: touches)
            }
            // Holds the writer until the swap comes to close it.
            let owner = try held.run(in: tx, noting: touches)
            reached.signal()
            gate.waitUntilClosing()
            return owner
        }, completion: { result in collector.yield((held.index, result)) })
        for work in works[(early + 1)...] {
            queue(work, on: stack, by: callers[work.index], noting: touches, into: collector)
        }
        // The early ones have committed (and the held one has begun); the main
        // actor stays busy, so none is merged yet.
        reached.wait()
        switch swap {
        case .replace: try stack.replaceStore(withContentsOf: source)
        case .resetFile, .resetInMemory, .resetServer: try stack.resetStore()
        case .remove: try stack.removeStorage()
        }
        go.signal()

        var results: [Int: Result<String, StrataError>] = [:]
        for await outcome in outcomes {
            let earlier = results.updateValue(outcome.result, forKey: outcome.index)
            #expect(earlier == nil, "seed \(seed): transaction \(outcome.index) called back twice")
            if results.count == works.count { break }
        }
        // Which file each transaction found as it first read, in the order they
        // ran: the old one's, then only the new one's.
        let noted = touches.withLock { $0 }.map { $0.split(separator: " ").map(String.init) }
        let onOld = noted.prefix { $0[1] == "old" }
        let onNew = noted.dropFirst(onOld.count)
        let ranBefore = touchesFirst ? early + 1 : early
        #expect(
            onOld.map { $0[0] } == (0..<ranBefore).map(String.init),
            "seed \(seed): what ran before the swap")
        for index in 0..<ranBefore {
            #expect(results[index] == .success("old"), "seed \(seed): transaction \(index), old file")
        }
        guard swap != .remove else {
            for index in ranBefore..<works.count {
                #expect(
                    results[index] == .failure(.storeNotAdded),
                    "seed \(seed): transaction \(index) after the removal")
            }
            #expect(onNew.isEmpty, "seed \(seed): nothing ran after the removal")
            return
        }
        for index in ranBefore..<works.count {
            #expect(results[index] == .success(swap.newOwner),
                "seed \(seed): transaction \(index), \(index == early ? "held" : "\(callers[index])")")
        }
        #expect(onNew.allSatisfy { $0[1] == swap.newOwner }, "seed \(seed): \(noted)")
        #expect(
            onNew.compactMap { Int($0[0]) }.sorted() == Array(ranBefore..<works.count),
            "seed \(seed)")
        // The new file's contents with the changes of what ran after the swap, in the order it ran.
        for entry in onNew { if let index = Int(entry[0]) { works[index].apply(to: &expected) } }
        let fresh = try stack.fetchAll(From<MonItem>().orderBy(monitor.orderForFetch))
        #expect(fresh.map { Row($0) }.sorted() == expected.sorted(), "seed \(seed)")
        #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), "seed \(seed)")
        #expect(checker.failures.isEmpty, "seed \(seed): \(checker.failures)")
        #expect(checker.refetches >= 1, "seed \(seed): the swap is a refresh")
    }

    /// The refresh reaches observers once the swap is over: one that writes
    /// when told commits on the new file, even with a transaction queued
    /// before the swap ahead of it.
    @Test
    func anObserverToldOfTheRefreshCommitsOnTheNewFile() async throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let (stack, source) = try oldStackAndNewSource(in: directory, random: &random)
        let monitor = try stack.monitorList(
            From<MonItem>().orderBy(.ascending(\.$rank), .ascending(\.$label)))
        let writer = WriterOnRefetch(stack)
        monitor.addObserver(writer)
        let reached = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let (outcomes, collector) = AsyncStream<Result<String, StrataError>>.makeStream()
        stack.perform(asynchronous: { tx in
            reached.signal()
            go.wait()
            return try tx.fetchOne(From<MonOwner>())?.name ?? "none"
        }, completion: { collector.yield($0) })
        reached.wait()
        // The queued transaction goes on, to its first read, once the swap has begun.
        let gate = try stack.store().gate
        DispatchQueue.global().async {
            gate.waitUntilClosing()
            go.signal()
        }

        try stack.replaceStore(withContentsOf: source)

        #expect(writer.found == [.success("new")], "seed \(random.seed)")
        var iterator = outcomes.makeAsyncIterator()
        #expect(await iterator.next() == .success("new"), "seed \(random.seed)")
        let fresh = try stack.fetchAll(From<MonItem>().orderBy(monitor.orderForFetch))
        #expect(fresh.filter { $0.label == "written on refetch" }.count == 1)
        #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID))
    }

    /// A completion the swap itself runs (of a commit it merges first, before
    /// the new file is open) cannot wait for the writer, which waits for the
    /// swap: its synchronous transaction throws `.storeNotAdded` rather than
    /// deadlock. Its asynchronous one runs on the new file.
    @Test
    func aCompletionRunByTheSwapDoesNotWaitForItself() async throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let (stack, source) = try oldStackAndNewSource(in: directory, random: &random)
        let (outcomes, collector) = AsyncStream<Result<String, StrataError>>.makeStream()
        stack.perform(asynchronous: { tx in
            try tx.fetchOne(From<MonOwner>())?.name ?? "none"
        }, completion: { result in
            collector.yield(result)
            do throws(StrataError) {
                collector.yield(.success(try stack.perform(synchronous: { tx in
                    try tx.fetchOne(From<MonOwner>())?.name ?? "none"
                })))
            } catch {
                collector.yield(.failure(error))
            }
            stack.perform(asynchronous: { tx in
                try tx.fetchOne(From<MonOwner>())?.name ?? "none"
            }, completion: { collector.yield($0) })
        })
        // Committed, not merged: the main actor does not yield before the swap.
        stack.transactionQueue.sync {}

        try stack.replaceStore(withContentsOf: source)

        var seen: [Result<String, StrataError>] = []
        for await outcome in outcomes {
            seen.append(outcome)
            if seen.count == 3 { break }
        }
        #expect(
            seen == [.success("old"), .failure(.storeNotAdded), .success("new")],
            "seed \(random.seed)")
    }

    /// A replacement that fails on the way (here its migration) puts the old
    /// file back: a transaction that waited for it runs there, as if nothing
    /// had been tried.
    @Test
    func aFailedReplacementLetsTheWaitingTransactionsRunOnTheOldFile() async throws {
        let directory = TemporaryDirectory()
        let source = directory.file("v1.sqlite")
        do {
            let old = DataStack(queueCodesV1)
            try old.addStorageAndWait(SQLiteStore(fileURL: source))
            try old.perform(synchronous: { tx in
                for _ in 0..<2 { tx.create(Into<QueueCodeV1>()).code = "same" }
            })
            try old.removeStorage()
        }
        let history = SchemaHistory([queueCodesV1, queueCodesV2], chain: ["V1", "V2"])
        let stack = DataStack(schemaHistory: history)
        try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory)))
        try stack.perform(synchronous: { tx in tx.create(Into<QueueCodeV2>()).code = "mine" })
        let reached = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let (outcomes, collector) = AsyncStream<Result<[String], StrataError>>.makeStream()
        stack.perform(asynchronous: { tx in
            reached.signal()
            go.wait()
            tx.create(Into<QueueCodeV2>()).code = "queued"
            return try tx.fetchAll(From<QueueCodeV2>()).map(\.code).sorted()
        }, completion: { collector.yield($0) })
        reached.wait()
        let gate = try stack.store().gate
        DispatchQueue.global().async {
            gate.waitUntilClosing()
            go.signal()
        }

        #expect(performing: { try stack.replaceStore(withContentsOf: source) }, throws: { error in
            guard case .migrationFailed = error as? StrataError else { return false }
            return true
        })

        var iterator = outcomes.makeAsyncIterator()
        #expect(await iterator.next() == .success(["mine", "queued"]))
        #expect(try stack.fetchAll(From<QueueCodeV2>()).map(\.code).sorted() == ["mine", "queued"])
    }
}
