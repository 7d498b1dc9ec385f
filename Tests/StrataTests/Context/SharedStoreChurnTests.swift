import Foundation
@testable import Strata
import StrataPostgreSQL
import Testing

/// What the churn imports: an owner by name, with items of the given ranks.
struct ChurnOwnerSource: Sendable {
    var name: String
    var ranks: [Int]
}

extension MonOwner: ImportableUniqueObject {
    typealias ImportSource = ChurnOwnerSource

    static var uniqueIDKeyPath: KeyPath<MonOwner, Field.Stored<String>> { \.$name }

    static func uniqueID(from source: ChurnOwnerSource, in transaction: BaseDataTransaction) -> String? {
        source.name
    }

    func didInsert(from source: ChurnOwnerSource, in transaction: BaseDataTransaction) throws {
        try update(from: source, in: transaction)
    }

    func update(from source: ChurnOwnerSource, in transaction: BaseDataTransaction) throws {
        for rank in source.ranks {
            let item = transaction.create(Into<MonItem>())
            item.rank = rank
            item.group = rank % 5
            item.owner = self
        }
    }
}

/// Every change set a stack's main context merged, in the order it merged them.
@MainActor
final class ChangeSetRecorder: ChangeSetObserver {
    private(set) var merged: [(generation: UInt64, isRefresh: Bool)] = []

    init(_ stack: DataStack) throws {
        try stack.main().observation.add(self, stage: .streams)
    }

    var watchedEntityNames: Set<String> { [] }
    func didMerge(_ changeSet: ChangeSet) { merged.append((changeSet.generation, false)) }
    func didRefresh(_ changeSet: ChangeSet) { merged.append((changeSet.generation, true)) }

    /// No change set merged twice or out of order, and every logged commit
    /// after `start` that changed something merged, or covered by a refresh
    /// at or after it (history purged past the stack).
    func check(against records: [CommitRecord], after start: UInt64, _ context: String) {
        for (before, after) in zip(merged, merged.dropFirst()) {
            #expect(
                after.generation > before.generation || (after.isRefresh && after.generation == before.generation),
                "\(context): merged \(before) then \(after)")
        }
        let plain = Set(merged.filter { !$0.isRefresh }.map(\.generation))
        let lastRefresh = merged.filter(\.isRefresh).map(\.generation).max() ?? 0
        for record in records where record.generation > start && !record.isEmpty {
            #expect(
                plain.contains(record.generation) || lastRefresh >= record.generation,
                "\(context): the commit of generation \(record.generation) was never merged")
        }
    }
}

/// A list observer that reads the store from its callbacks, as observers
/// often do: such reads start no merge of their own.
@MainActor
final class ChurnReadingObserver: ListObserver {
    typealias ListEntityType = MonItem
    let stack: DataStack
    private(set) var failures: [String] = []

    init(_ stack: DataStack, _ monitor: ListMonitor<MonItem>) {
        self.stack = stack
        monitor.addObserver(self)
    }

    private func read(_ monitor: ListMonitor<MonItem>) {
        do {
            _ = try stack.fetchCount(From<MonItem>())
            _ = try stack.fetchAll(From<MonOwner>()).map(\.name)
        } catch {
            failures.append("\(error)")
        }
    }

    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { read(monitor) }
    func listMonitorDidRefetch(_ monitor: ListMonitor<MonItem>) { read(monitor) }
}

/// Several stacks on one store, each watching it (list and object monitors,
/// held objects, a change-set recorder), while they commit at random, one
/// of them from another thread at the same time: ordinary transactions,
/// bulk updates and deletes (cascading ones too), imports, and purges of the
/// commit log, with the main actor given up now and then so that followers
/// merge part of the way, and new monitors made on the way. Once the writers
/// stop, every stack must show the store.
@MainActor
@Suite("Shared store: several stacks under bulk writes, imports and purges")
struct SharedStoreChurnTests {
    /// One participant: a stack, what it watches, and what it merged.
    struct Member {
        let name: String
        let stack: DataStack
        var watchers: [Watcher]
        let readers: [ChurnReadingObserver]
        let recorder: ChangeSetRecorder
        let owners: [MonOwner]
        let start: UInt64
        let pending = Pending()
    }

    /// Transactions begun and not finished yet, and how those that failed did.
    @MainActor
    final class Pending {
        var count = 0
        var failures: [String] = []
    }

    /// Everything the log has held so far, read before each purge.
    final class Archive: Sendable {
        // Strata's `Locked` (a pthread mutex), not `Mutex`: the thread
        // sanitizer does not see `Mutex`'s futex and reported the records
        // read under it from two writers' threads as a race.
        private let read = Locked<[CommitRecord]>([])
        var records: [CommitRecord] { read.withLock { $0 } }

        /// Reads what is new in the log; with a purge, inside the same lock,
        /// so that no purge by another thread comes between the read and it.
        func read(_ stack: DataStack, thenPurge purge: ((DataStack) throws -> Void)? = nil) throws {
            try read.withLock { records in
                records += try stack.history(after: records.last?.generation ?? 0)
                try purge?(stack)
            }
        }
    }

    static func open(_ address: StoreAddress, author: String, retention: HistoryRetention?) throws -> DataStack {
        let stack = DataStack(monitorSchema)
        stack.defaultAuthor = author
        let storage: any StorageInterface
        switch address {
        case .file(let path):
            var store = SQLiteStore(fileURL: URL(fileURLWithPath: path))
            store.settings.historyRetention = retention ?? .default
            storage = store
        case .postgreSQL(let connectionString, let schema):
            storage = PostgreSQLStore(
                connectionString: connectionString, schema: schema, historyRetention: retention ?? .default)
        }
        try stack.addStorageAndWait(storage)
        // The file's watcher looks often; the laggard never polls.
        stack.pollingInterval = author == "laggard" ? .seconds(3_600) : .milliseconds(2)
        return stack
    }

    /// One random write by `stack`, from any thread; returns what it did, for
    /// failure messages.
    nonisolated static func write(
        _ stack: DataStack, _ random: inout SplitMix64, archive: Archive
    ) throws -> String {
        switch random.next() % 18 {
        case 0, 1, 2, 11, 12, 13, 14, 15, 16:
            try stack.perform(synchronous: { tx in try randomCommit(tx, &random) })
            return "commit"
        case 3:
            let group = Int(random.next() % 5)
            let by = Int(random.next() % 40) - 20
            try stack.perform(synchronous: { tx in
                _ = try tx.updateAll(From<MonItem>().where(\.$group == group), .increment(\.$rank, by: by))
            })
            return "updateAll group \(group) rank += \(by)"
        case 4:
            let below = Int(random.next() % 100)
            let flag = random.next() % 2 == 0
            let pick = random.next()
            try stack.perform(synchronous: { tx in
                let owners = try tx.fetchAll(From<MonOwner>())
                let owner = pick % 4 == 0 || owners.isEmpty ? nil : owners[Int(pick % UInt64(owners.count))]
                _ = try tx.updateAll(
                    From<MonItem>().where(\.$rank < below), .set(\.$flag, to: flag), .set(\.$owner, to: owner))
            })
            return "updateAll rank < \(below) flag \(flag), owner"
        case 5:
            let above = 60 + Int(random.next() % 60)
            try stack.perform(synchronous: { tx in _ = try tx.deleteAll(From<MonItem>().where(\.$rank > above)) })
            return "deleteAll rank > \(above)"
        case 6:
            let name = "o\(random.next() % 3)"
            try stack.perform(synchronous: { tx in
                // Cascades to the owners' items.
                _ = try tx.deleteAll(From<MonOwner>().where(\.$name == name))
                tx.create(Into<MonOwner>()).name = name
            })
            return "deleteAll owners \(name), cascading"
        case 7:
            let sources = (0..<Int(random.next() % 3 + 1)).map { _ in
                ChurnOwnerSource(
                    name: "o\(random.next() % 4)",
                    ranks: (0..<Int(random.next() % 4)).map { _ in Int(random.next() % 100) })
            }
            try stack.perform(synchronous: { tx in
                _ = try tx.importUniqueObjects(Into<MonOwner>(), sourceArray: sources)
            })
            return "import \(sources.map(\.name))"
        case 8:
            // The other side of a path (`owner.name`), renamed in bulk.
            let (from, to) = ("o\(random.next() % 4)", "o\(random.next() % 4)")
            try stack.perform(synchronous: { tx in
                _ = try tx.updateAll(From<MonOwner>().where(\.$name == from), .set(\.$name, to: to))
            })
            return "updateAll owners \(from) to \(to)"
        case 9:
            // A to-one without an inverse, pointed in bulk, through a path predicate.
            let name = "o\(random.next() % 3)"
            let pick = random.next()
            try stack.perform(synchronous: { tx in
                let items = try tx.fetchAll(From<MonItem>())
                let buddy = items.isEmpty || pick % 3 == 0 ? nil : items[Int(pick % UInt64(items.count))]
                _ = try tx.updateAll(From<MonItem>().where(\.$owner ~ \.$name == name), .set(\.$buddy, to: buddy))
            })
            return "updateAll items of \(name) buddy"
        case 10 where random.next() % 8 == 0:
            _ = try stack.wipeAllData()
            try stack.perform(synchronous: { tx in
                for index in 0..<3 { tx.create(Into<MonOwner>()).name = "o\(index)" }
                for _ in 0..<10 { tx.create(Into<MonItem>()).rank = Int(random.next() % 100) }
            })
            return "wipe and refill"
        default:  // 10 (but a wipe), 17
            let byDate = random.next() % 3 == 0
            let back = random.next() % 4
            try archive.read(stack) { stack in
                if byDate {
                    try stack.purgeHistory(olderThan: Date().addingTimeInterval(1))
                } else {
                    let current = try stack.currentGeneration()
                    try stack.purgeHistory(through: current - min(current, back))
                }
            }
            return byDate ? "purge all by date" : "purge through current - \(back)"
        }
    }

    /// One random step on the main actor by `member`: a write, a read, a
    /// pause, or new monitors.
    static func step(_ member: inout Member, _ random: inout SplitMix64, archive: Archive) async throws -> String {
        switch random.next() % 16 {
        case 0..<9:
            return try write(member.stack, &random, archive: archive)
        case 9:
            _ = try member.stack.fetchCount(From<MonItem>())
            return "read"
        case 10 where random.next() % 2 == 0:
            // An awaited transaction: merges wait until its caller resumes.
            let seed = random.next()
            let above = 60 + Int(seed % 60)
            try await member.stack.perform { tx in
                var random = SplitMix64(seed: seed)
                try randomCommit(tx, &random)
                _ = try tx.updateAll(From<MonItem>().where(\.$rank > above), .increment(\.$rank, by: -1))
            }
            return "await perform, updateAll rank > \(above)"
        case 11:
            // Not awaited: its completion runs after its merge.
            let seed = random.next()
            let stack = member.stack
            let pending = member.pending
            pending.count += 1
            stack.perform(asynchronous: { tx in
                var random = SplitMix64(seed: seed)
                try randomCommit(tx, &random)
                _ = try tx.deleteAll(From<MonItem>().where(\.$rank > 90 + Int(seed % 20)))
            }, completion: { result in
                pending.count -= 1
                if case .failure(let error) = result { pending.failures.append("\(error)") }
            })
            return "perform asynchronous, deleteAll"
        case 12 where member.watchers.count < 4:
            member.watchers.append(try Watcher(member.stack, random: &random, lists: 1))
            return "new monitors"
        default:
            try await Task.sleep(for: .milliseconds(Int(random.next() % 6)))
            return "pause"
        }
    }

    /// The other thread's writes, beside the main actor's.
    @concurrent
    nonisolated static func writeBeside(
        _ stack: DataStack, seed: UInt64, count: Int, archive: Archive
    ) async throws -> [String] {
        var random = SplitMix64(seed: seed)
        var done: [String] = []
        for _ in 0..<count {
            done.append(try write(stack, &random, archive: archive))
            try await Task.sleep(for: .milliseconds(Int(random.next() % 4)))
        }
        return done
    }

    static func run(_ kind: StoreKind, seed: UInt64, steps: Int) async throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let address = try StoreAddress(kind, in: directory)
        let names = ["a", "b", "c", "laggard"]
        var stacks: [DataStack] = []
        for (index, name) in names.enumerated() {
            // One member applies a tight retention: its commits purge the log too.
            let retention = index == 1 ? HistoryRetention(maxCount: 3, maxAge: nil) : nil
            stacks.append(try open(address, author: name, retention: retention))
        }
        let beside = try open(address, author: "beside", retention: nil)
        try MonWorkload.seed(stacks[0], count: 30, random: &random)
        let start = try stacks[0].currentGeneration()
        var members: [Member] = []
        for (stack, name) in zip(stacks, names) {
            let watcher = try Watcher(stack, random: &random)
            members.append(Member(
                name: name, stack: stack, watchers: [watcher],
                readers: [ChurnReadingObserver(stack, watcher.lists[0].monitor)],
                recorder: try ChangeSetRecorder(stack),
                owners: try stack.fetchAll(From<MonOwner>()), start: start))
        }
        let archive = Archive()
        let besideWrites = Task(executorPreference: ThreadPerJobExecutor.shared) { [seed = random.next()] in
            try await Self.writeBeside(beside, seed: seed, count: steps / 3, archive: archive)
        }
        var done: [String] = []
        for _ in 0..<steps {
            // The laggard writes too, but seldom.
            let index = random.next() % 8 == 0 ? 3 : Int(random.next() % 3)
            let what = try await step(&members[index], &random, archive: archive)
            done.append("\(names[index]): \(what)")
        }
        let besideDone = try await besideWrites.value
        try await waitUntil { members.allSatisfy { $0.pending.count == 0 } }
        try archive.read(stacks[0])
        let rows = try itemRows(in: address.storage)
        let fresh = try openStack(at: address)
        let ownerIDs = Set(try fresh.fetchAll(From<MonOwner>()).map(\.rowID))
        let context = "\(kind), seed \(seed) (STRATA_TEST_SEED), last steps \(done.suffix(8)), "
            + "beside \(besideDone.suffix(4))"
        if ProcessInfo.processInfo.environment["STRATA_CHURN_REPORT"] != nil {
            print("churn \(kind): refreshes", members.map { m in m.recorder.merged.filter(\.isRefresh).count },
                  "merges", members.map(\.recorder.merged.count), "purges", done.filter { $0.contains("purge") }.count)
        }
        // Nothing committed is missing from the log after its horizon.
        let horizon = try fresh.historyHorizon(), current = try fresh.currentGeneration()
        #expect(
            try fresh.history().map(\.generation) == Array((horizon + 1)...max(horizon + 1, current)).filter { $0 <= current },
            "\(context): the log after its horizon \(horizon)")
        for member in members {
            for watcher in member.watchers {
                try expectSettled(watcher, at: address, "\(context), stack \(member.name)")
            }
            #expect(member.pending.count == 0 && member.pending.failures.isEmpty, "\(context): \(member.pending.failures)")
            for reader in member.readers {
                #expect(reader.failures.isEmpty, "\(context), stack \(member.name): \(reader.failures)")
            }
            member.recorder.check(against: archive.records, after: member.start, "\(context), stack \(member.name)")
            for owner in member.owners {
                #expect(owner.isDeletedObject == !ownerIDs.contains(owner.rowID), "\(context), owner \(owner.rowID)")
            }
            let shown = try member.stack.fetchAll(From<MonItem>()).count
            #expect(shown == rows.count, "\(context), stack \(member.name)")
        }
    }

    /// A child process's part: a stack of its own that watches the store
    /// and makes `writes` random writes (bulk ones and purges included),
    /// then, once every writer has stopped, shows the store.
    static func churnInChild(
        at address: StoreAddress, seed: UInt64, writes: Int, writers: StoppedWriters
    ) async throws {
        // Every read in a snapshot of its own: reads made while a merge
        // notifies see newer commits than it.
        ObjectContext.keptSnapshotMaximumAge.store(0, ordering: .relaxed)
        var random = SplitMix64(seed: seed)
        let watcher: Watcher
        let recorder: ChangeSetRecorder
        var done: [String] = []
        do {
            defer { writers.markStopped("child \(seed)") }
            let retention = seed % 2 == 0 ? HistoryRetention(maxCount: 3, maxAge: nil) : nil
            let stack = try open(address, author: "child \(seed)", retention: retention)
            watcher = try Watcher(stack, random: &random)
            _ = ChurnReadingObserver(stack, watcher.lists[0].monitor)
            recorder = try ChangeSetRecorder(stack)
            let archive = Archive()
            for _ in 0..<writes {
                done.append(try write(stack, &random, archive: archive))
                if random.next() % 3 == 0 { try await Task.sleep(for: .milliseconds(Int(random.next() % 5))) }
            }
        }
        #expect(await writers.allStopped(), "child \(seed): the other writers never stopped")
        let context = "child \(seed), last writes \(done.suffix(6))"
        try expectSettled(watcher, at: address, context)
        recorder.check(against: [], after: 0, context)
    }

    /// Three processes churn one store while this one watches: each ends
    /// showing the store.
    @Test(arguments: StoreKind.enabled([.postgreSQL, .file]))
    func processesChurningOneStoreEachShowIt(kind: StoreKind) async throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let address = try StoreAddress(kind, in: directory)
        let stack = try Self.open(address, author: "parent", retention: nil)
        try MonWorkload.seed(stack, count: 30, random: &random)
        let watcher = try Watcher(stack, random: &random)
        let recorder = try ChangeSetRecorder(stack)
        let seeds = (0..<3).map { _ in random.next() }
        let writers = StoppedWriters(in: directory, count: seeds.count)
        await withTaskGroup(of: Void.self) { group in
            for seed in seeds {
                group.addTask(executorPreference: ThreadPerJobExecutor.shared) {
                    await #expect(processExitsWith: .success) {
                        [address = address as StoreAddress, seed = seed as UInt64, writers = writers as StoppedWriters] in
                        try await SharedStoreChurnTests.churnInChild(
                            at: address, seed: seed, writes: 40, writers: writers)
                    }
                    writers.markStopped("child \(seed)")
                }
            }
        }
        let context = "\(kind), seed \(random.seed) (STRATA_TEST_SEED), children \(seeds)"
        try expectSettled(watcher, at: address, context)
        recorder.check(against: [], after: 0, context)
    }

    @Test(arguments: StoreKind.enabled([.postgreSQL, .file]))
    func stacksSharingAStoreShowItAfterBulkWritesImportsAndPurges(kind: StoreKind) async throws {
        let seed = SplitMix64.random().seed
        let steps = ProcessInfo.processInfo.environment["STRATA_CHURN_STEPS"].flatMap { Int($0) } ?? 160
        try await Self.run(kind, seed: seed, steps: steps)
    }

    /// A stack that merged nothing while another committed bulk writes, an
    /// import and a cascade, then purged the log past it: its next read
    /// refreshes, and it shows the store; then it follows commit by commit.
    @Test(arguments: StoreKind.enabled([.postgreSQL, .file]))
    func aStackBehindAPurgeOfBulkWritesRefreshesAndFollowsOn(kind: StoreKind) async throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let address = try StoreAddress(kind, in: directory)
        let writer = try Self.open(address, author: "writer", retention: nil)
        let behind = try Self.open(address, author: "laggard", retention: nil)
        try MonWorkload.seed(writer, count: 30, random: &random)
        let watcher = try Watcher(behind, random: &random)
        let recorder = try ChangeSetRecorder(behind)
        let start = behind.mergedGeneration
        let archive = Archive()
        try writer.perform(synchronous: { tx in
            _ = try tx.updateAll(From<MonItem>().where(\.$group == 1), .increment(\.$rank, by: 7))
            _ = try tx.deleteAll(From<MonItem>().where(\.$rank > 80))
        })
        try writer.perform(synchronous: { tx in _ = try tx.deleteAll(From<MonOwner>().where(\.$name == "o0")) })
        try writer.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(
                Into<MonOwner>(),
                sourceArray: [ChurnOwnerSource(name: "o1", ranks: [3, 50]), ChurnOwnerSource(name: "o9", ranks: [1])])
        })
        try archive.read(writer) { _ = try $0.purgeHistory(through: try $0.currentGeneration()) }
        let context = "\(kind), seed \(random.seed)"
        try expectSettled(watcher, at: address, "\(context), after the purge")
        #expect(watcher.lists.allSatisfy { $0.checker.refetches >= 1 }, "\(context): the lists refetched")
        try writer.perform(synchronous: { tx in try randomCommit(tx, &random) })
        try writer.perform(synchronous: { tx in _ = try tx.updateAll(From<MonItem>(), .increment(\.$rank, by: 1)) })
        try archive.read(writer)
        try expectSettled(watcher, at: address, "\(context), after following on")
        recorder.check(against: archive.records, after: start, context)
    }
}

/// An unsafe transaction keeps its objects across commits; another stack's
/// bulk writes change and delete some of them (a cascade) before its next
/// commit, one of them with a change pending here.
@MainActor
@Suite("Shared store: an unsafe transaction's kept objects under another stack's bulk writes")
struct SharedStoreUnsafeTests {
    @Test(arguments: StoreKind.enabled([.postgreSQL, .file]))
    func keptObjectsTakeAnotherStacksBulkWritesAndResurrectNothing(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let address = try StoreAddress(kind, in: directory)
        let mine = try openStack(at: address, author: "mine")
        let other = try openStack(at: address, author: "other")
        try MonWorkload.seed(mine, count: 30, random: &random)
        let watcher = try Watcher(try openStack(at: address, author: "viewer"), random: &random)
        let tx = try mine.beginUnsafe()
        let items = try tx.fetchAll(From<MonItem>())
        // Read before the commit: a read after it would begin the unsafe
        // transaction's next write transaction, and hold the store's write
        // lock that `other` waits for.
        let doomedOwner = "o\(random.next() % 3)"
        let doomed = try #require(items.first { $0.owner?.name == doomedOwner }, "seed \(random.seed)")
        let survivor = try #require(items.first { $0.owner?.name != doomedOwner && $0.owner != nil })
        try tx.commitAndWait()
        doomed.rank = 1_000
        survivor.rank = 2_000
        try other.perform(synchronous: { tx in
            _ = try tx.deleteAll(From<MonOwner>().where(\.$name == doomedOwner))
            _ = try tx.updateAll(From<MonItem>(), .increment(\.$group, by: 10), .set(\.$flag, to: true))
        })
        let context = "\(kind), seed \(random.seed)"
        let result = Result { try tx.commitAndWait() }
        let rows = try itemRows(in: address.storage)
        #expect(rows[doomed.rowID] == nil, "\(context): the deleted row stays deleted (\(result))")
        let survivorRow = try #require(rows[survivor.rowID], "\(context)")
        let fresh = try openStack(at: address)
        let stored = try #require(try fresh.fetchExisting(survivor.objectID), "\(context)")
        #expect(stored.rank == 2_000 && stored.group >= 10 && stored.flag, "\(context): \(survivorRow)")
        try expectSettled(watcher, at: address, context)
    }
}
