import Foundation
@testable import Strata
import Testing

/// Where a transaction's objects go (CoreStore's `IntoTests`), and the
/// commit rule: a transaction changes one store, or is refused whole.
@MainActor
@Suite("Transactions across configurations")
struct ConfigurationTransactionTests {
    // MARK: Into

    @Test
    func intoIsHashableAndTheInferredStoreIsNotTheDefaultOne() {
        #expect(Into<CfgItem>() == Into<CfgItem>())
        #expect(Into<CfgItem>("Config1") == Into<CfgItem>("Config1"))
        #expect(Into<CfgItem>(nil) == Into<CfgItem>(nil))
        #expect(Into<CfgItem>() != Into<CfgItem>(nil))
        #expect(Into<CfgItem>("Config1") != Into<CfgItem>("Config2"))
        #expect(Into<CfgItem>().configuration == nil && Into<CfgItem>(nil).configuration == nil)
        #expect(Into<CfgItem>("Config1").configuration == "Config1")
        let set: Set<Into<CfgItem>> = [Into(), Into(nil), Into("Config1"), Into("Config1"), Into("Config2")]
        #expect(set.count == 4)
    }

    @Test(arguments: StoreKind.allCases)
    func intoWithoutAConfigurationCreatesInTheOneStoreThatHoldsTheEntity(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        // No default store: each entity has one store.
        let stack = try makeConfigurationStack(["Config1", "Config2"], kind, in: directory)
        let (item, tag) = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<CfgItem>())
            item.key = 1
            let tag = tx.create(Into<CfgTag>())
            tag.item = item
            return (item.objectID, tag.objectID)
        })
        #expect(item.configuration == "Config1" && tag.configuration == "Config1")
        // A note goes to Config2, in a transaction of its own: one transaction changes one store.
        let note = try stack.perform(synchronous: { tx in tx.create(Into<CfgNote>()).objectID })
        #expect(note.configuration == "Config2")
        #expect(try stack.fetchExisting(tag)?.item?.objectID == item)
    }

    @Test(arguments: StoreKind.allCases)
    func intoNamingAConfigurationCreatesInItsStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], kind, in: directory)
        let first = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<CfgItem>("Config1"))
            item.key = 1
            let tag = tx.create(Into<CfgTag>("Config1"))
            tag.item = item
            return tag.objectID
        })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(nil)).key = 2 })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgUser>()).name = "only in the default store" })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgNote>("Config2")).text = "2" })
        #expect(keys(try stack.fetchAll(From<CfgItem>("Config1"))) == [1])
        #expect(keys(try stack.fetchAll(From<CfgItem>(nil))) == [2])
        #expect(try stack.fetchCount(From<CfgUser>()) == 1)
        #expect(try stack.fetchAll(From<CfgNote>()).map(\.objectID.configuration) == ["Config2"])
        // The relationship was saved in Config1's store.
        let tag = try #require(try stack.fetchExisting(first))
        #expect(tag.item?.key == 1 && tag.item?.objectID.configuration == "Config1")
        #expect(try stack.fetchOne(From<CfgItem>("Config1"))?.tags.map(\.objectID) == [first])
    }

    /// A transaction remembers where its last create went; creates of
    /// several classes into several stores, interleaved at random, each land
    /// in the store their `Into` names.
    @Test(arguments: [UInt64(3), 4])
    func interleavedCreatesLandInTheStoresTheirIntoNames(_ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], .inMemory, in: directory)
        let targets: [(label: String, configuration: String?, create: (BaseDataTransaction) -> ManagedObject)] = [
            ("item, default", nil, { $0.create(Into<CfgItem>(nil)) }),
            ("item, Config1", "Config1", { $0.create(Into<CfgItem>("Config1")) }),
            ("tag, Config1", "Config1", { $0.create(Into<CfgTag>("Config1")) }),
            ("note, Config2", "Config2", { $0.create(Into<CfgNote>("Config2")) }),
            ("note, default", nil, { $0.create(Into<CfgNote>(nil)) }),
            ("user, inferred", nil, { $0.create(Into<CfgUser>()) }),
        ]
        let picks = (0..<300).map { _ in Int(random.next() % UInt64(targets.count)) }
        let landed = try stack.perform(synchronous: { tx in
            picks.map { pick in targets[pick].create(tx).objectID.configuration }
        })
        for (pick, configuration) in zip(picks, landed) {
            #expect(configuration == targets[pick].configuration, "seed \(seed): \(targets[pick].label)")
        }
        func count(_ label: String) -> Int { picks.filter { targets[$0].label == label }.count }
        #expect(try stack.fetchCount(From<CfgItem>(nil)) == count("item, default"))
        #expect(try stack.fetchCount(From<CfgItem>("Config1")) == count("item, Config1"))
        #expect(try stack.fetchCount(From<CfgTag>("Config1")) == count("tag, Config1"))
        #expect(try stack.fetchCount(From<CfgNote>("Config2")) == count("note, Config2"))
        #expect(try stack.fetchCount(From<CfgNote>(nil)) == count("note, default"))
        #expect(try stack.fetchCount(From<CfgUser>()) == count("user, inferred"))
    }

    @Test
    func intoWithoutAConfigurationTrapsWhenSeveralStoresHoldTheEntity() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeConfigurationStack([nil, "Config1"], .inMemory, in: directory)
                try stack.perform(synchronous: { tx in _ = tx.create(Into<CfgItem>()) })
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("several stores hold CfgItem"), "\(message)")
        #expect(message.contains("Into<CfgItem>(\"Configuration\")"), "\(message)")
    }

    /// A store that does not exist, or does not hold the entity: the commit
    /// throws `storeNotFound` and saves nothing, in any store.
    @Test(arguments: StoreKind.allCases)
    func intoAStoreThatDoesNotHoldTheEntityFailsTheCommitAndSavesNothing(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        let cases: [(String, (BaseDataTransaction) -> Void, String, String?)] = [
            ("Config1 holds no note", { _ = $0.create(Into<CfgNote>("Config1")) }, "CfgNote", "Config1"),
            ("no Config2 store", { $0.create(Into<CfgNote>("Config2")).text = "x" }, "CfgNote", "Config2"),
            ("no Config9 store", { _ = $0.create(Into<CfgItem>("Config9")) }, "CfgItem", "Config9"),
            ("users are default only", { _ = $0.create(Into<CfgUser>("Config1")) }, "CfgUser", "Config1"),
        ]
        for (name, create, entity, configuration) in cases {
            do {
                try stack.perform(synchronous: { tx in
                    // Valid changes in the same store first: they are not saved either.
                    tx.create(Into<CfgItem>(configuration == "Config1" ? "Config1" : nil)).key = 99
                    create(tx)
                })
                Issue.record("\(name): committed")
            } catch {
                #expect(isStoreNotFound(error, entity, configuration), "\(name): \(error)")
            }
            #expect(try stack.fetchCount(From<CfgItem>()) == 0, "\(name)")
            #expect(try stack.fetchCount(From<CfgNote>()) == 0, "\(name)")
            #expect(try stack.fetchCount(From<CfgUser>()) == 0, "\(name)")
        }
        // The stores are unharmed: the next transaction commits.
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>("Config1")).key = 1 })
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [1])
    }

    /// A configuration of the schema that has no store in this stack.
    @Test(arguments: StoreKind.allCases)
    func aConfigurationWithoutAStoreIsReachedThroughTheStoresThatHoldItsEntities(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        // CfgNote is in the default store only here: Into<CfgNote>() goes there.
        let note = try stack.perform(synchronous: { tx in tx.create(Into<CfgNote>()).objectID })
        #expect(note.configuration == nil)
        #expect(try stack.fetchAll(From<CfgNote>()).map(\.objectID) == [note])
        #expect(throws: StrataError.self) { try stack.fetchAll(From<CfgNote>("Config2")) }
        #expect(try stack.fetchAll(From<CfgNote>(nil, "Config2")).map(\.objectID) == [note])
        // An ID of the missing store finds nothing, and editing it changes nothing.
        let missing = ObjectID<CfgNote>(entityName: "CfgNote", rowID: note.rowID, configuration: "Config2")
        #expect(try stack.fetchExisting(missing) == nil)
        try stack.perform(synchronous: { tx in
            #expect(tx.edit(missing) == nil)
            tx.delete(missing)
        })
        #expect(try stack.fetchCount(From<CfgNote>()) == 1)
        // A stack without the default store has no store for users at all.
        let partial = try makeConfigurationStack(["Config1"], kind, in: TemporaryDirectory())
        for into in [Into<CfgUser>(), Into<CfgUser>(nil)] {
            do {
                try partial.perform(synchronous: { tx in _ = tx.create(into) })
                Issue.record("created a user with no store for users")
            } catch {
                #expect(isStoreNotFound(error, "CfgUser", nil), "\(error)")
            }
        }
        #expect(throws: StrataError.self) { try partial.fetchCount(From<CfgUser>()) }
    }

    // MARK: Editing by ID

    @Test(arguments: StoreKind.allCases)
    func editingAndDeletingByIDReachTheIDsStoreOnly(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        let inDefault = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<CfgItem>(nil))
            item.key = 1
            return item.objectID
        })
        let inConfig1 = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<CfgItem>("Config1"))
            item.key = 2
            return item.objectID
        })
        #expect(inDefault.rowID == inConfig1.rowID)
        try stack.perform(synchronous: { tx in tx.edit(inConfig1)?.rank = 5 })
        #expect(try stack.fetchAll(From<CfgItem>()).map { [$0.key, $0.rank] } == [[1, 0], [2, 5]])
        try stack.perform(synchronous: { tx in tx.delete(inDefault) })
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [2])
        #expect(try stack.fetchExisting(inDefault) == nil)
        #expect(try stack.fetchExisting(inConfig1)?.rank == 5)
    }

    // MARK: The commit rule

    /// What a transaction does to one store.
    enum Change: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case insert, update, delete, bulkUpdate, bulkDelete
        var testDescription: String { rawValue }
    }

    /// A transaction that changes two stores commits in both, as the same
    /// changes committed one store at a time would; each store's generation moves.
    @Test(arguments: [StoreKind.inMemory, .file], Change.allCases)
    func aTransactionThatChangesTwoStoresCommitsInBoth(_ kind: StoreKind, _ second: Change) throws {
        let directories = [TemporaryDirectory(), TemporaryDirectory()]
        func seeded(_ directory: TemporaryDirectory) throws -> DataStack {
            let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
            for configuration in [nil, "Config1"] as [String?] {
                try stack.perform(synchronous: { tx in
                    for key in 1...3 { tx.create(Into<CfgItem>(configuration)).key = key + (configuration == nil ? 0 : 10) }
                })
            }
            return stack
        }
        let together = try seeded(directories[0]), apart = try seeded(directories[1])
        func rows(_ stack: DataStack) throws -> [[Int]] {
            try stack.fetchAll(From<CfgItem>()).map { [$0.key, $0.rank, $0.objectID.configuration == nil ? 0 : 1] }
        }
        let held = try together.fetchAll(From<CfgItem>())
        for first in Change.allCases {
            let generations = try storeGenerations(together), apartGenerations = try storeGenerations(apart)
            try together.perform(synchronous: { tx in
                try apply(first, in: nil, tx)
                try apply(second, in: "Config1", tx)
            })
            try apart.perform(synchronous: { tx in try apply(first, in: nil, tx) })
            try apart.perform(synchronous: { tx in try apply(second, in: "Config1", tx) })
            #expect(try rows(together) == rows(apart), "\(first), \(second)")
            // A store commits when its changes are not nothing, as in separate transactions.
            let moved = zip(try storeGenerations(together), generations).map { $0 > $1 }
            #expect(moved == zip(try storeGenerations(apart), apartGenerations).map { $0 > $1 }, "\(first), \(second)")
            // The objects the main context holds follow both stores.
            let current = try together.fetchAll(From<CfgItem>())
            for object in held {
                let row = current.first { $0.objectID == object.objectID }
                #expect(object.isDeletedObject == (row == nil), "\(first), \(second): \(object.key)")
                #expect(row.map { $0.rank == object.rank } ?? true, "\(first), \(second): \(object.key)")
            }
        }
    }

    private func apply(_ change: Change, in configuration: String?, _ tx: BaseDataTransaction) throws {
        let query = From<CfgItem>(configuration)
        switch change {
        case .insert: tx.create(Into<CfgItem>(configuration)).key = 100
        case .update: try tx.fetchOne(query.orderBy(.ascending(\.$key)))?.rank = 7
        case .delete: tx.delete(try tx.fetchOne(query.orderBy(.ascending(\.$key))))
        case .bulkUpdate: try tx.updateAll(query.where(\.$key > 1), .set(\.$rank, to: 9))
        case .bulkDelete: try tx.deleteAll(query.where(\.$key > 1))
        }
    }

    /// The completion of a transaction over two stores runs once both
    /// stores' commits are merged, also when a read of the last store merges
    /// its part first.
    @Test(arguments: StoreKind.sqlite)
    func aCompletionOverTwoStoresSeesBothMergedEvenWhenTheLastIsReadFirst(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        let users = try stack.monitorList(From<CfgUser>())
        let log = CompletionLog()
        stack.perform(asynchronous: { tx in
            tx.create(Into<CfgUser>()).name = "u"
            tx.create(Into<CfgItem>("Config1")).key = 1
        }, completion: { result in
            log.seen.append("\(result.isSuccess ? "ok" : "failed"), \(users.numberOfObjects()) user")
        })
        // The main actor stays busy until it has committed, then reads the last store.
        stack.transactionQueue.sync {}
        #expect(try stack.fetchCount(From<CfgItem>("Config1")) == 1)
        try await log.wait(for: 1)
        #expect(log.seen == ["ok, 1 user"])
    }

    @Test(arguments: StoreKind.allCases)
    func aTransactionThatChangesOneStoreAndReadsOthersCommits(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>(nil)).key = 1 })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgNote>("Config2")).text = "note" })
        // Reads of every store, then a change in Config1.
        let tx = try stack.beginUnsafe()
        let seen = try tx.fetchAll(From<CfgItem>()).count + (try tx.fetchCount(From<CfgNote>()))
        #expect(tx.edit(try stack.fetchAll(From<CfgItem>())).count == 1)
        tx.create(Into<CfgItem>("Config1")).key = 10 + seen
        let changeSet = try tx.commitAndWait()
        #expect(changeSet?.configuration == "Config1")
        #expect(changeSet?.insertedIDs(entity: "CfgItem").map(\.configuration) == ["Config1"])
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [1, 12])
        // Generations count per store: this was Config1's first commit.
        #expect(changeSet?.generation == 1)
    }

    @Test(arguments: StoreKind.allCases)
    func bulkWritesOverEveryStoreCommitInEveryStoreAtOnce(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], kind, in: directory)
        for configuration in [nil, "Config1"] as [String?] {
            try stack.perform(synchronous: { tx in
                for key in 1...3 { tx.create(Into<CfgItem>(configuration)).key = key + (configuration == nil ? 0 : 10) }
            })
        }
        if kind == .postgreSQL {
            // A server store commits with no other store but in-memory ones: refused whole.
            #expect(performing: {
                try stack.perform(synchronous: { tx in
                    try tx.updateAll(From<CfgItem>().where(\.$key != 2 && \.$key != 12), .set(\.$rank, to: 3))
                })
            }, throws: { error in
                if case .crossStoreTransaction? = error as? StrataError { return true }
                return false
            })
            #expect(try stack.fetchAll(From<CfgItem>()).allSatisfy { $0.rank == 0 }, "nothing was saved")
            return
        }
        #expect(try stack.perform(synchronous: { tx in
            try tx.updateAll(From<CfgItem>().where(\.$key != 2 && \.$key != 12), .set(\.$rank, to: 3))
        }) == 4)
        #expect(try stack.fetchAll(From<CfgItem>()).map { [$0.key, $0.rank] }
            == [[1, 3], [2, 0], [3, 3], [11, 3], [12, 0], [13, 3]])
        #expect(try stack.perform(synchronous: { tx in try tx.deleteAll(From<CfgItem>().where(\.$rank == 3)) }) == 4)
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [2, 12])
        #expect(keys(try stack.fetchAll(From<CfgItem>("Config1"))) == [12])
    }

    @Test(arguments: StoreKind.allCases)
    func wipeAllDataClearsEveryStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1", "Config2"], kind, in: directory)
        try stack.perform(synchronous: { tx in for key in 1...2 { tx.create(Into<CfgItem>(nil)).key = key } })
        try stack.perform(synchronous: { tx in for key in 3...5 { tx.create(Into<CfgItem>("Config1")).key = key } })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgNote>("Config2")).text = "x" })
        try stack.perform(synchronous: { tx in tx.create(Into<CfgUser>()).name = "x" })
        let held = try stack.fetchAll(From<CfgItem>())
        #expect(try stack.wipeAllData() == 7)
        #expect(try stack.fetchCount(From<CfgItem>()) == 0)
        #expect(try stack.fetchCount(From<CfgNote>()) == 0)
        #expect(try stack.fetchCount(From<CfgUser>()) == 0)
        #expect(held.allSatisfy { $0.isDeletedObject })
        // Every store takes new objects afterwards.
        try stack.perform(synchronous: { tx in tx.create(Into<CfgItem>("Config1")).key = 6 })
        #expect(keys(try stack.fetchAll(From<CfgItem>())) == [6])
    }
}

/// The generation of each store of `stack`, in store order, read by a
/// connection of its own from the store's file.
func storeGenerations(_ stack: DataStack) throws -> [UInt64] {
    try stack.stores().map { store in
        let connection = try Connection(path: store.settings.openPath, readOnly: true, create: false)
        defer { connection.close() }
        return try CommitLog.generation(on: connection)
    }
}
