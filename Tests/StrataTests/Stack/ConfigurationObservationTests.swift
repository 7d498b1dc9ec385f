import Foundation
@testable import Strata
import Testing

/// Monitors and publishers follow one store; the change-set stream takes
/// every store's merges; another stack on the same files follows each
/// store's commits through that store's commit log.
@MainActor
@Suite("Observing across configurations")
struct ConfigurationObservationTests {
    /// Records an item monitor's events.
    @MainActor
    final class ItemEvents: ObjectObserver {
        typealias ObjectEntityType = CfgItem
        var updates: [Set<String>] = []
        var deleted = false

        func objectMonitor(
            _ monitor: ObjectMonitor<CfgItem>, didUpdateObject object: CfgItem, changedPersistentKeys: Set<String>
        ) {
            updates.append(changedPersistentKeys)
        }

        func objectMonitor(_ monitor: ObjectMonitor<CfgItem>, didDeleteObject object: CfgItem) {
            deleted = true
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aListMonitorOfANamedStoreUpdatesFromThatStoresCommitsOnly(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        let config1 = try stack.monitorList(From<CfgItem>("Config1").orderBy(.ascending(\.$key)))
        let standard = try stack.monitorList(From<CfgItem>(nil).orderBy(.descending(\.$key)))
        let (config1Replay, standardReplay) = (ReplayChecker(config1), ReplayChecker(standard))
        let publisher = try stack.publishList(From<CfgItem>("Config1").orderBy(.ascending(\.$key)))
        for key in 1...4 {
            let configuration: String? = key.isMultiple(of: 2) ? "Config1" : nil
            try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(configuration)).key = key })
        }
        #expect(keys(config1.objectsInAllSections()) == [2, 4])
        #expect(keys(standard.objectsInAllSections()) == [3, 1])
        #expect(config1Replay.batches == 2 && standardReplay.batches == 2)
        #expect(try publisher.snapshot.map { try stack.fetchExisting($0)?.key } == [2, 4])
        // An update and a delete in the default store: the Config1 list does not hear of them.
        try stack.perform(synchronous: { tx in
            try tx.fetchOne(From<CfgItem>(nil).where(\.$key == 1))?.rank = 5
            tx.delete(try tx.fetchOne(From<CfgItem>(nil).where(\.$key == 3)))
        })
        #expect(config1Replay.batches == 2 && standardReplay.batches == 3)
        #expect(keys(standard.objectsInAllSections()) == [1])
        // Same row IDs in the two stores: a Config1 change touches the Config1 list only.
        try stack.perform(synchronous: { tx in
            for item in try tx.fetchAll(From<CfgItem>("Config1")) { item.key += 10 }
        })
        #expect(keys(config1.objectsInAllSections()) == [12, 14])
        #expect(keys(standard.objectsInAllSections()) == [1])
        #expect(config1Replay.batches == 3 && standardReplay.batches == 3)
        #expect(config1Replay.failures.isEmpty && standardReplay.failures.isEmpty)
        #expect(try publisher.snapshot.map { try stack.fetchExisting($0)?.key } == [12, 14])
    }

    @Test
    func aMonitorFollowsOneStoreAndRefusesAQueryOverSeveral() throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], .inMemory, in: directory)
        for query in [From<CfgItem>(), From<CfgItem>(nil, "Config1"), From<CfgItem>(["Config1", nil])] {
            do {
                _ = try stack.monitorList(query)
                Issue.record("a monitor of two stores was made")
            } catch {
                guard case .invalidValue(let entity, let field, _) = error else {
                    Issue.record("unexpected error: \(error)")
                    continue
                }
                #expect(entity == "CfgItem" && field == "configuration")
            }
            #expect(throws: StrataError.self) { try stack.publishList(query) }
        }
        // One store holding the entity, whatever the query names.
        _ = try stack.monitorList(From<CfgItem>("Config1", "Config2"))
        _ = try stack.monitorList(From<CfgUser>())
        _ = try stack.monitorList(From<CfgNote>())
        do {
            _ = try stack.monitorList(From<CfgNote>("Config2"))
            Issue.record("a monitor of no store was made")
        } catch {
            #expect(isStoreNotFound(error, "CfgNote", "Config2"), "\(error)")
        }
        // An object monitor of an ID whose configuration has no store.
        let missing = ObjectID<CfgItem>(entityName: "CfgItem", rowID: 1, configuration: "Config2")
        do {
            _ = try stack.monitorObject(missing)
            Issue.record("an object monitor of no store was made")
        } catch {
            #expect(isStoreNotFound(error, "CfgItem", "Config2"), "\(error)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectMonitorFollowsTheStoreItsIDNames(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        let inDefault = try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(nil)).objectID })
        let inConfig1 = try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>("Config1")).objectID })
        #expect(inDefault.rowID == inConfig1.rowID)
        let monitor = try stack.monitorObject(inConfig1)
        let events = ItemEvents()
        monitor.addObserver(events)
        let publisher = try stack.publishObject(inConfig1)
        #expect(monitor.object?.objectID == inConfig1)
        // The default store's object of the same row ID changes, then goes.
        try stack.perform(synchronous: { tx in tx.edit(inDefault)?.rank = 1 })
        try stack.perform(synchronous: { tx in tx.delete(inDefault) })
        #expect(events.updates.isEmpty && !events.deleted)
        #expect(!monitor.isObjectDeleted && publisher.object != nil)
        try stack.perform(synchronous: { tx in tx.edit(inConfig1)?.rank = 2 })
        #expect(events.updates == [["rank"]])
        #expect(monitor.object?.rank == 2 && publisher.object?.rank == 2)
        try stack.perform(synchronous: { tx in tx.delete(inConfig1) })
        #expect(events.deleted && monitor.isObjectDeleted && publisher.object == nil)
    }

    /// A stream asked for before a store of another configuration is added
    /// takes that store's merges too, in the order they come.
    @Test(arguments: StoreKind.allCases)
    func theChangeSetStreamTakesTheMergesOfAStoreAddedAfterIt(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil], kind, in: directory)
        let all = try stack.changeSets()
        try stack.addStorageAndWait(configurationStorage("Config1", kind, in: directory))
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>("Config1")).key = 1 })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgUser>()).name = "u" })
        try stack.removeStorage()  // the stream ends
        var streamed: [String] = []
        for await changeSet in all {
            streamed.append("\(changeSet.configuration ?? "-") \(changeSet.generation)")
        }
        #expect(streamed == ["Config1 1", "- 1"])
    }

    /// The stream yields every store's merged change sets, each naming its
    /// store, with each store's own generations.
    @Test(arguments: StoreKind.allCases)
    func theChangeSetStreamTakesEveryStoresMergesWithTheirConfiguration(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], kind, in: directory)
        let all = try stack.changeSets()
        let notes = try stack.changeSets(touching: ["CfgNote"])
        let commits: [(String?, (BaseDataTransaction) -> Void)] = [
            (nil, { $0.create(Into<CfgItem>(nil)).key = 1 }),
            ("Config1", { $0.create(Into<CfgItem>("Config1")).key = 2 }),
            ("Config1", { $0.create(Into<CfgTag>("Config1")).name = "t" }),
            ("Config2", { $0.create(Into<CfgNote>("Config2")).text = "n" }),
            (nil, { $0.create(Into<CfgNote>(nil)).text = "m" }),
        ]
        var returned: [ChangeSet] = []
        for (_, change) in commits {
            let tx = try stack.beginUnsafe()
            change(tx)
            returned.append(try #require(try tx.commitAndWait()))
        }
        #expect(returned.map(\.configuration) == commits.map(\.0))
        #expect(returned.map(\.generation) == [1, 1, 2, 1, 2])
        var iterator = all.makeAsyncIterator()
        var streamed: [ChangeSet] = []
        for _ in commits {
            streamed.append(try #require(await iterator.next()))
        }
        #expect(streamed.map(\.configuration) == commits.map(\.0))
        #expect(streamed.map(\.generation) == [1, 1, 2, 1, 2])
        #expect(streamed.allSatisfy { $0.isLocal })
        #expect(streamed[1].insertedIDs(entity: "CfgItem").map(\.description) == ["Config1/CfgItem/1"])
        #expect(streamed[0].insertedIDs(entity: "CfgItem").map(\.description) == ["CfgItem/1"])
        var noteIterator = notes.makeAsyncIterator()
        let firstNote = try #require(await noteIterator.next())
        let secondNote = try #require(await noteIterator.next())
        #expect([firstNote.configuration, secondNote.configuration] == ["Config2", nil])
        // The default store's history holds its own commits only.
        #expect(try stack.history().map(\.generation) == [1, 2])
        #expect(try stack.history().allSatisfy { $0.configuration == nil })
    }

    /// Two stacks on the same files: each store's commits, made by either
    /// stack, reach the other through that store's commit log, with their
    /// configuration, and its monitors of each store follow them.
    @Test(arguments: [UInt64(0xF011), 0xF012, 0xF013])
    func anotherStackOnTheSameFilesFollowsEachStoresCommits(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stacks = try (0..<2).map { index in
            let stack = try makeConfigurationStack([nil, "Config1"], .file, in: directory)
            stack.defaultAuthor = "stack \(index)"
            return stack
        }
        var monitors: [
            (stack: Int, configuration: String?, monitor: ListMonitor<CfgItem>, replay: ReplayChecker<CfgItem>)
        ] = []
        // What each stack's main contexts merge, every store's, in merge order.
        let recorders = stacks.map { stack in
            let recorder = MergeRecorder()
            for main in stack.mainContexts { main.observation.add(recorder, stage: .streams) }
            return recorder
        }
        for (index, stack) in stacks.enumerated() {
            for configuration in [nil, "Config1"] as [String?] {
                let monitor = try stack.monitorList(
                    From<CfgItem>(configuration).where(\.$rank < 3).orderBy(.ascending(\.$rank), .descending(\.$key)))
                monitors.append((index, configuration, monitor, ReplayChecker(monitor)))
            }
        }
        var committed: [(configuration: String?, generation: UInt64, writer: Int)] = []
        var nextKey = 0
        for step in 0..<40 {
            let writer = Int(random.next() % 2)
            let configuration: String? = random.next() % 2 == 0 ? nil : "Config1"
            let choice = random.next()
            let tx = try stacks[writer].beginUnsafe()
            let items = try tx.fetchAll(From<CfgItem>(configuration))
            if items.isEmpty || choice % 3 == 0 {
                nextKey += 1
                let item = tx.create(Into<CfgItem>(configuration))
                (item.key, item.rank) = (nextKey, Int(choice % 5))
            } else if choice % 3 == 1 {
                let item = items[Int(choice / 3) % items.count]
                item.rank = (item.rank + 1 + Int(choice / 7 % 4)) % 5
            } else {
                tx.delete(items[Int(choice / 3) % items.count])
            }
            let changeSet = try #require(try tx.commitAndWait())
            #expect(changeSet.configuration == configuration, "seed \(seed), step \(step)")
            committed.append((configuration, changeSet.generation, writer))
            // A read of both stores merges each store's log up to its snapshot.
            for stack in stacks { _ = try stack.fetchCount(From<CfgItem>()) }
            for (index, stack) in stacks.enumerated() {
                let generations = try storeGenerations(stack)
                #expect(
                    stack.mainContexts.map(\.generation) == generations,
                    "seed \(seed), step \(step), stack \(index)")
            }
            for entry in monitors {
                let fresh = try stacks[entry.stack].fetchAll(
                    From<CfgItem>(entry.configuration).where(\.$rank < 3)
                        .orderBy(.ascending(\.$rank), .descending(\.$key)))
                #expect(
                    keys(entry.monitor.objectsInAllSections()) == keys(fresh),
                    "seed \(seed), step \(step), stack \(entry.stack), \(entry.configuration ?? "nil")")
                #expect(fresh.allSatisfy { $0.objectID.configuration == entry.configuration })
            }
        }
        for entry in monitors {
            #expect(entry.replay.failures.isEmpty, "seed \(seed): \(entry.replay.failures)")
        }
        // Each stack merged every commit of each store, in that store's generation order.
        for (index, recorder) in recorders.enumerated() {
            let all = recorder.changeSets
            #expect(all.count == committed.count, "seed \(seed), stack \(index)")
            for configuration in [nil, "Config1"] as [String?] {
                let merged = all.filter { $0.configuration == configuration }
                let expected = committed.filter { $0.configuration == configuration }
                #expect(merged.map(\.generation) == expected.map(\.generation), "seed \(seed), stack \(index)")
                #expect(merged.map(\.isLocal) == expected.map { $0.writer == index }, "seed \(seed), stack \(index)")
                #expect(merged.map(\.author) == expected.map { "stack \($0.writer)" }, "seed \(seed), stack \(index)")
            }
        }
    }
}

/// Every change set a stack's main contexts merge, told as the change-set
/// stream is (`ChangeSetFeed`), kept in merge order.
@MainActor
final class MergeRecorder: ChangeSetObserver {
    private(set) var changeSets: [ChangeSet] = []
    var watchedEntityNames: Set<String> { [] }
    func didMerge(_ changeSet: ChangeSet) { changeSets.append(changeSet) }
    func didRefresh(_ changeSet: ChangeSet) { changeSets.append(changeSet) }
    func observationDidEnd() {}

    /// A monitor follows one store: refetched with a query of another store,
    /// or one several stores answer, it refuses with `invalidValue` and
    /// keeps its list; an object of another store is at no index of it.
    @Test
    func aMonitorRefusesARefetchOfAnotherStoreAndFindsNoObjectOfOne() throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], .inMemory, in: directory)
        for (configuration, keys) in [(nil, [1, 2]), ("Config1", [3, 4])] as [(String?, [Int])] {
            try stack.perform(synchronous: { tx in
                for key in keys { tx.create(Into<CfgItem>(configuration)).key = key }
            })
        }
        let monitor = try stack.monitorList(From<CfgItem>(nil).orderBy(.ascending(\.$key)))
        for query in [From<CfgItem>("Config1"), From<CfgItem>()] {
            #expect(performing: { try monitor.refetch(query.orderBy(.ascending(\.$key))) }, throws: { error in
                if case .invalidValue(_, "configuration", _)? = error as? StrataError { true } else { false }
            })
            #expect(keys(monitor.objectsInAllSections()) == [1, 2])
        }
        let stranger = try #require(try stack.fetchOne(From<CfgItem>("Config1").where(\.$key == 3)))
        #expect(monitor.objectsInAllSections().contains { $0.objectID.rowID == stranger.objectID.rowID })
        #expect(monitor.index(of: stranger) == nil && monitor.indexPath(of: stranger) == nil)
        try monitor.refetch(From<CfgItem>(nil).orderBy(.descending(\.$key)))
        #expect(keys(monitor.objectsInAllSections()) == [2, 1])
    }
}
