import Foundation
import Testing
@testable import Strata

/// The `SELECT`s of whole `TxItem` or `TxPerson` rows among recorded statements.
private func rowReads(_ log: RecordedStatements, of table: String) -> [String] {
    log.all.filter { $0.hasPrefix("SELECT") && $0.contains("\"\(table)\"") && !$0.contains("max(") }
}

/// A stack of `kind` with `count` committed items numbered by rank, labelled
/// "item <rank>", and their IDs.
@MainActor
private func stackWithItems(
    _ kind: StoreKind, count: Int, in directory: TemporaryDirectory
) throws -> (DataStack, [ObjectID<TxItem>]) {
    let stack = try makeStack(TxSchema.schema, kind, in: directory)
    let ids = try stack.perform(synchronous: { tx in
        (0..<count).map { rank in
            let item = tx.create(Into<TxItem>())
            item.rank = rank
            item.label = "item \(rank)"
            return item.objectID
        }
    })
    return (stack, ids)
}

/// Starts recording the statements `stack` runs; `recordStatements(nil)` stops.
@MainActor
private func recordingStatements(of stack: DataStack) throws -> RecordedStatements {
    let log = RecordedStatements()
    try stack.recordStatements { log.record($0) }
    return log
}

/// An item's ID that no row has ever had.
private func missingItemID(_ rowID: Int64) -> ObjectID<TxItem> {
    ObjectID(entityName: "TxItem", rowID: rowID)
}

/// What a random case asks for, and what it expects back for each ID.
private struct EditCase {
    var ids: [ObjectID<TxItem>] = []
    /// Per row ID: the label the object should have, or `nil` when it should be left out.
    var expected: [Int64: String?] = [:]
}

@Suite("Editing many objects at once: tx.edit(ids), tx.edit(objects), fetchExisting(ids)")
struct EditManyTests {
    /// Random mixes of IDs — held with pending changes, deleted in the
    /// transaction, deleted in the store, created in the transaction, never
    /// used, repeated, not held at all — give exactly what `edit(id)` gives
    /// for each, in order, with one read of the rows not held.
    @Test(arguments: [UInt64(11), 12, 13, 14, 15, 16])
    @MainActor
    func editOfIDsGivesWhatEditOfEachIDGives(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let kind: StoreKind = seed % 2 == 0 ? .file : .inMemory
        let (stack, seeded) = try stackWithItems(kind, count: 120, in: directory)
        // Some rows are gone from the store before the transaction starts.
        let goneInStore = Set(seeded.filter { _ in random.next() % 6 == 0 })
        try stack.perform(synchronous: { tx in for id in goneInStore { tx.delete(id) } })

        let log = try recordingStatements(of: stack)
        try stack.perform(synchronous: { tx in
            var plan = EditCase()
            for id in seeded {
                let label = "item \(id.rowID - 1)"
                if goneInStore.contains(id) {
                    plan.expected[id.rowID] = .some(nil)
                    continue
                }
                switch random.next() % 5 {
                case 0:  // held, with a pending change
                    tx.edit(id)!.label = "pending \(id.rowID)"
                    plan.expected[id.rowID] = "pending \(id.rowID)"
                case 1:  // deleted in this transaction
                    tx.delete(id)
                    plan.expected[id.rowID] = .some(nil)
                default:  // not held
                    plan.expected[id.rowID] = label
                }
            }
            for _ in 0..<5 {
                let created = tx.create(Into<TxItem>())
                created.label = "new \(created.objectID.rowID)"
                plan.expected[created.objectID.rowID] = "new \(created.objectID.rowID)"
                plan.ids.append(created.objectID)
            }
            plan.expected[10_000] = .some(nil)
            plan.ids.append(missingItemID(10_000))
            // Every seeded ID, some twice, in random order, with the created and the missing ones.
            plan.ids += seeded + seeded.filter { _ in random.next() % 4 == 0 }
            plan.ids.shuffle(using: &random)

            let readsBefore = rowReads(log, of: "TxItem").count
            let edited = tx.edit(plan.ids)
            let reads = rowReads(log, of: "TxItem").dropFirst(readsBefore)
            #expect(reads.count == 1, "seed \(seed): \(Array(reads))")
            #expect(reads.allSatisfy { $0.contains("strata_values(?)") }, "seed \(seed)")

            let expected = plan.ids.filter { plan.expected[$0.rowID]! != nil }
            #expect(edited.map(\.objectID) == expected, "seed \(seed)")
            for item in edited {
                #expect(item.label == plan.expected[item.objectID.rowID]!, "seed \(seed): \(item)")
            }
            // Each object is the very one `edit(id)` gives, now and after the batch.
            let oneByOne = plan.ids.compactMap { tx.edit($0) }
            #expect(oneByOne.count == edited.count, "seed \(seed)")
            #expect(zip(oneByOne, edited).allSatisfy { $0 === $1 }, "seed \(seed)")
            // Only rows that do not exist are read again, one by one.
            let absent = plan.ids.filter { goneInStore.contains($0) || $0.rowID == 10_000 }.count
            #expect(rowReads(log, of: "TxItem").count == readsBefore + 1 + absent, "seed \(seed)")

            // The objects can be changed, and the commit saves them.
            for item in edited { item.rank += 1_000 }
        })
        try stack.recordStatements(nil)
        let kept = try stack.fetchAll(From<TxItem>().where(\.$rank >= 1_000))
        #expect(kept.count == Set(try stack.fetchObjectIDs(From<TxItem>())).count, "seed \(seed)")
    }

    /// `edit(ids)` reads nothing when the transaction holds every object, and
    /// reads one row with the point read when it holds all but one.
    // SQLite only: statements are recorded by SQLite's trace hook, which a
    // PostgreSQL connection does not have yet (issue #16).
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func editOfIDsReadsOnlyWhatTheTransactionDoesNotHold(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ids) = try stackWithItems(kind, count: 40, in: directory)
        let log = try recordingStatements(of: stack)
        try stack.perform(synchronous: { tx in
            let held = try tx.fetchAll(From<TxItem>().where(\.$rank < 39))
            #expect(held.count == 39)
            let before = rowReads(log, of: "TxItem").count
            #expect(tx.edit(ids.dropLast()).count == 39)
            #expect(rowReads(log, of: "TxItem").count == before, "everything was held")
            #expect(tx.edit(ids).map(\.rank) == Array(0..<40))
            let reads = rowReads(log, of: "TxItem").dropFirst(before)
            #expect(Array(reads) == [#"SELECT _pk, "rank", "label" FROM "TxItem" WHERE _pk = ?"#])
            let none: [ObjectID<TxItem>] = []
            #expect(tx.edit(none).isEmpty)
        })
        try stack.recordStatements(nil)
    }

    /// Objects of the main context, of two entities, come back as the
    /// transaction's instances in the same order, with one read per entity;
    /// objects deleted since, and detached ones, are left out.
    // SQLite only: statements are recorded by SQLite's trace hook, which a
    // PostgreSQL connection does not have yet (issue #16).
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func editOfMainContextObjectsReadsOncePerEntity(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, _) = try stackWithItems(kind, count: 30, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 0..<20 {
                let person = tx.create(Into<TxPerson>())
                person.name = "person \(index)"
                person.age = index
            }
        })
        let items = try stack.fetchAll(From<TxItem>())
        let people = try stack.fetchAll(From<TxPerson>())
        var random = SplitMix64(seed: 7)
        var mixed: [ManagedObject] = items + people
        mixed.shuffle(using: &random)
        let gone = Set(mixed.indices.filter { $0 % 7 == 3 }.map { ObjectIdentifier(mixed[$0]) })
        try stack.perform(synchronous: { tx in
            for object in mixed where gone.contains(ObjectIdentifier(object)) { tx.delete(object) }
        })
        mixed.insert(TxItem(), at: 5)  // detached: never in a store

        let log = try recordingStatements(of: stack)
        let described: [String] = try stack.perform(synchronous: { tx in
            let edited = tx.edit(mixed)
            #expect(edited.allSatisfy { $0.hasChanges == false })
            return edited.map { object in
                if let item = object as? TxItem { return "item \(item.rank)" }
                return "person \((object as! TxPerson).age)"
            }
        })
        try stack.recordStatements(nil)
        let expected = mixed.compactMap { object -> String? in
            guard object.context != nil, !gone.contains(ObjectIdentifier(object)) else {
                return nil
            }
            if let item = object as? TxItem { return "item \(item.rank)" }
            return "person \((object as! TxPerson).age)"
        }
        #expect(described == expected)
        #expect(rowReads(log, of: "TxItem").count == 1, "\(log.all)")
        #expect(rowReads(log, of: "TxPerson").count == 1, "\(log.all)")
    }

    /// Typed main-context objects come back typed, and a transaction's own
    /// objects come back as they are, unless deleted in it.
    @Test
    @MainActor
    func editOfObjectsKeepsTheTransactionsOwnObjects() throws {
        let directory = TemporaryDirectory()
        let (stack, _) = try stackWithItems(.inMemory, count: 10, in: directory)
        let main = try stack.fetchAll(From<TxItem>().orderBy(.descending(\.$rank)))
        try stack.perform(synchronous: { tx in
            let first: [TxItem] = tx.edit(main)
            #expect(first.map(\.rank) == Array((0..<10).reversed()))
            first[0].label = "changed"
            tx.delete(first[1])
            let again = tx.edit(first)
            #expect(again.count == 9)
            #expect(zip(again, first.filter { !$0.isDeletedObject }).allSatisfy { $0 === $1 })
            #expect(again[0].label == "changed")
            let fetched = try tx.fetchExisting(main)
            #expect(fetched.map(\.rank) == again.map(\.rank))
        })
    }

    /// An object typed by a superclass (`ManagedObject`) is found by its own
    /// entity, alone as in a batch, and can be deleted so.
    @Test
    @MainActor
    func anObjectTypedAsManagedObjectIsFoundByItsEntity() throws {
        let directory = TemporaryDirectory()
        let (stack, _) = try stackWithItems(.inMemory, count: 3, in: directory)
        let erased: [ManagedObject] = try stack.fetchAll(From<TxItem>())
        try stack.perform(synchronous: { tx in
            let one = try #require(tx.edit(erased[0]) as? TxItem)
            #expect(one.rank == 0)
            #expect(tx.edit(erased).compactMap { ($0 as? TxItem)?.rank } == [0, 1, 2])
            tx.delete(erased[2])
        })
        #expect(try stack.fetchCount(From<TxItem>()) == 2)
    }

    /// `tx.fetchExisting(ids)` and `stack.fetchExisting(ids)` read once, and
    /// agree with looking up each ID.
    // SQLite only: statements are recorded by SQLite's trace hook, which a
    // PostgreSQL connection does not have yet (issue #16).
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func fetchExistingOfIDsReadsOnce(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, seeded) = try stackWithItems(kind, count: 60, in: directory)
        try stack.perform(synchronous: { tx in
            for id in seeded where id.rowID % 5 == 0 { tx.delete(id) }
        })
        var random = SplitMix64(seed: 3)
        let ids = (seeded + [missingItemID(999)] + seeded.prefix(10)).shuffled(using: &random)
        let expected = ids.filter { $0.rowID % 5 != 0 && $0.rowID != 999 }

        let log = try recordingStatements(of: stack)
        let inTransaction = try stack.perform(synchronous: { tx in
            try tx.fetchExisting(ids).map(\.objectID)
        })
        #expect(inTransaction == expected)
        #expect(rowReads(log, of: "TxItem").count == 1, "\(log.all)")

        let onMain = try stack.fetchExisting(ids)
        #expect(onMain.map(\.objectID) == expected)
        #expect(rowReads(log, of: "TxItem").count == 2, "\(log.all)")
        let oneByOne = try ids.compactMap { try stack.fetchExisting($0) }
        #expect(onMain.map(\.objectID) == oneByOne.map(\.objectID))
        try stack.recordStatements(nil)
    }

    /// `edit` cannot throw: a failed read returns nothing and fails the
    /// commit with its error; `fetchExisting` throws it at once.
    @Test
    @MainActor
    func aFailedReadFailsTheCommitOrThrows() throws {
        let directory = TemporaryDirectory()
        let (_, ids) = try stackWithItems(.file, count: 5, in: directory)
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory), isReadOnly: true))
        let failed = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                #expect(tx.edit(ids).isEmpty)
            })
        }
        if case .readOnlyStore? = failed {} else {
            Issue.record("expected .readOnlyStore, got \(String(describing: failed))")
        }
        let thrown = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in _ = try tx.fetchExisting(ids) })
        }
        if case .readOnlyStore? = thrown {} else {
            Issue.record("expected .readOnlyStore, got \(String(describing: thrown))")
        }
        #expect(try stack.fetchExisting(ids).count == 5, "the main context still reads")
    }
}
