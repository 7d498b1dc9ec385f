import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Bulk writes: deleteAll, updateAll, wipeAllData")
struct BulkWriteTests {
    /// Runs `body`, which must fail with a StrataError that `matches`.
    private func expectFailure(
        _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation,
        _ matches: (StrataError) -> Bool = { _ in true }
    ) {
        do {
            try body()
            Issue.record("no error was thrown", sourceLocation: sourceLocation)
        } catch let error as StrataError {
            #expect(matches(error), "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a StrataError: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Owners 0..<count with rank = index, each with `pets` pets of the same rank.
    private func makeOwners(_ stack: DataStack, count: Int, pets: Int = 0) throws {
        try stack.perform(synchronous: { tx in
            for index in 0..<count {
                let owner = tx.create(Into<BulkOwner>())
                owner.rank = index
                owner.label = "o\(index)"
                for _ in 0..<pets {
                    let pet = tx.create(Into<BulkPet>())
                    pet.rank = index
                    pet.owner = owner
                }
            }
        })
    }

    @Test(arguments: StoreKind.allCases)
    func aBulkWriteOfAFifthOfAMonitoredListUpdatesItInMemory(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try makeOwners(stack, count: 5_000)
        let monitor = try stack.monitorList(From<BulkOwner>().where(\.$rank < 4_000).orderBy(.ascending(\.$label)))
        let checker = ReplayChecker(monitor)
        let held = try stack.fetchAll(From<BulkOwner>().where(\.$rank < 10))
        let log = RecordedStatements()
        try stack.recordStatements { log.record($0) }
        let (deleted, updated) = try stack.perform(synchronous: { tx in
            (try tx.deleteAll(From<BulkOwner>().where(\.$rank >= 3_000)),
             try tx.updateAll(From<BulkOwner>().where(\.$rank < 1_000), .set(\.$label, to: "z")))
        })
        try stack.recordStatements(nil)
        #expect(deleted == 2_000)
        #expect(updated == 1_000)
        #expect(checker.failures.isEmpty, "\(checker.failures)")
        #expect(checker.batches == 1 && checker.refetches == 0)
        #expect(monitor.numberOfObjects() == 3_000)
        #expect(monitor.objectsInAllSections().map(\.rowID)
            == (try stack.fetchAll(From<BulkOwner>().where(\.$rank < 4_000).orderBy(.ascending(\.$label))).map(\.rowID)))
        #expect(held.allSatisfy { $0.label == "z" })
        // No statement loaded objects, and the list was not fetched again:
        // the main context read the values of the updated rows by ID.
        let selects = log.all.filter { $0.hasPrefix("SELECT") && $0.contains("FROM \"Owner\"") }
        #expect(selects.allSatisfy { $0.contains("json_each") && !$0.contains("ORDER BY") }, "\(log.all)")
    }

    @Test(arguments: StoreKind.allCases)
    func aDeniedBulkDeleteLeavesNothingOfTheTransactionSaved(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try makeOwners(stack, count: 4, pets: 2)
        try stack.perform(synchronous: { tx in
            let owner = try #require(try tx.fetchOne(From<BulkOwner>().where(\.$rank == 3)))
            tx.create(Into<BulkVault>()).keeper = owner
        })
        let tx = try stack.beginUnsafe()
        let kept = try #require(try tx.fetchOne(From<BulkOwner>().where(\.$rank == 3)))
        kept.label = "changed"
        let created = tx.create(Into<BulkOwner>())
        created.rank = 99
        #expect(try tx.deleteAll(From<BulkOwner>().where(\.$rank >= 2)) == 3)
        #expect(kept.isDeletedObject && created.isDeletedObject)
        #expect(try tx.fetchCount(From<BulkPet>()) == 4, "the cascade took the pets of both")
        expectFailure({ try tx.commitAndWait() }) {
            if case .deleteDenied("Owner", "vaults", 1) = $0 { true } else { false }
        }
        #expect(!kept.isDeletedObject && kept.label == "o3", "a rollback restores registered objects")
        #expect(try stack.fetchCount(From<BulkOwner>()) == 4)
        #expect(try stack.fetchCount(From<BulkPet>()) == 8)
        #expect(try stack.fetchCount(From<BulkVault>()) == 1)
        // Deleting the protected vaults too is allowed: deny is judged on the final state.
        try stack.perform(synchronous: { tx in
            try tx.deleteAll(From<BulkOwner>().where(\.$rank >= 2))
            try tx.deleteAll(From<BulkVault>())
        })
        #expect(try stack.fetchCount(From<BulkOwner>()) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aUniqueViolationChangesNothingAndTheTransactionGoesOn(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try makeOwners(stack, count: 3)
        try stack.perform(synchronous: { tx throws in
            expectFailure({ try tx.updateAll(From<BulkOwner>(), .set(\.$code, to: "same"), .set(\.$rank, to: 7)) }) {
                if case .uniqueConstraintViolation("Owner", ["code"]) = $0 { true } else { false }
            }
            #expect(try tx.fetchCount(From<BulkOwner>().where(\.$rank == 7)) == 0, "nothing of the call stays")
            #expect(try tx.updateAll(From<BulkOwner>().where(\.$rank == 0), .set(\.$code, to: "same")) == 1)
        })
        #expect(try stack.fetchAll(From<BulkOwner>().where(\.$code == "same")).map(\.rank) == [0])
        let tx = try stack.beginUnsafe()
        expectFailure({ try tx.updateAll(From<BulkOwner>().where(\.$rank == 1), .set(\.$code, to: "same")) }) {
            if case .uniqueConstraintViolation("Owner", ["code"]) = $0 { true } else { false }
        }
        #expect(try tx.commitAndWait() == nil, "the failed call left nothing to commit")
    }

    @Test(arguments: StoreKind.allCases)
    func registeredObjectsFollowBulkWrites(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try makeOwners(stack, count: 3, pets: 2)
        let changeSet = try stack.perform(synchronous: { tx -> (Int, [BulkPet]) in
            let pets = try tx.fetchAll(From<BulkPet>().orderBy(.ascending(\.$rank)))
            pets[0].label = "pending"           // unflushed: written before the bulk update
            pets[2].rank = 10                   // moves out of the update's query
            #expect(try tx.updateAll(From<BulkPet>().where(\.$rank < 2), .increment(\.$rank, by: 100)) == 3)
            #expect(pets[0].rank == 100 && pets[0].label == "pending")
            #expect(pets[2].rank == 10 && pets[3].rank == 101)
            let owner = try #require(try tx.fetchOne(From<BulkOwner>().where(\.$rank == 2)))
            #expect(try tx.deleteAll(From<BulkOwner>().where(\.$rank == 2)) == 1)
            #expect(owner.isDeletedObject && pets[4].isDeletedObject && pets[5].isDeletedObject)
            #expect(try tx.fetchCount(From<BulkPet>()) == 4)
            return (try tx.fetchCount(From<BulkPet>().where(\.$label == "pending")), pets)
        })
        #expect(changeSet.0 == 1)
        let pets = try stack.fetchAll(From<BulkPet>().orderBy(.ascending(\.$rank)))
        #expect(pets.map(\.rank) == [10, 100, 100, 101])
    }

    @Test(arguments: StoreKind.allCases)
    func updateAllCountsChangedObjectsAndRefusesWhatCannotBeStored(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try makeOwners(stack, count: 4, pets: 1)
        try stack.perform(synchronous: { tx in
            for rank in [Int8(100), 120, -128] { tx.create(Into<BulkToy>()).rank = rank }
            let pets = try tx.fetchAll(From<BulkPet>().orderBy(.ascending(\.$rank)))
            pets[0].weight = 1.5
        })
        try stack.perform(synchronous: { tx throws in
            #expect(try tx.updateAll(From<BulkOwner>(), .set(\.$label, to: "o1")) == 3, "o1 already is")
            #expect(try tx.updateAll(From<BulkOwner>(), .increment(\.$rank, by: 0)) == 0)
            #expect(try tx.updateAll(From<BulkPet>(), .increment(\.$weight, by: 0.25)) == 1, "nil stays nil")
            expectFailure { try tx.updateAll(From<BulkToy>(), .increment(\.$rank, by: 10)) }
            #expect(try tx.fetchAll(From<BulkToy>().orderBy(.ascending(\.$rank))).map(\.rank) == [-128, 100, 120])
            #expect(try tx.updateAll(From<BulkToy>().where(\.$rank < 110), .increment(\.$rank, by: 10)) == 2)
            do {
                try tx.updateAll(From<BulkToy>(), .increment(\.$rank, by: 10))
                Issue.record("an increment past Int8.max was stored")
            } catch StrataError.invalidValue(let entity, let field, _) {
                #expect(entity == "Toy" && field == "rank")
            } catch {
                // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
                // catch that lets other errors through.
                throw error
            }
            let invalid: (StrataError) -> Bool = { if case .invalidValue = $0 { true } else { false } }
            expectFailure({ try tx.updateAll(From<BulkOwner>(), .set(\.$rank, to: 1), .increment(\.$rank, by: 1)) }, invalid)
            expectFailure({
                try tx.updateAll(From<BulkPet>(), .set(\.$owner, to: ObjectID<BulkOwner>(entityName: "Owner", rowID: 999)))
            }, invalid)
            let owner = try #require(try tx.fetchOne(From<BulkOwner>()))
            expectFailure({ try tx.updateAll(From<BulkBadge>(), .set(\.$holder, to: owner)) }, invalid)
        })
        #expect(try stack.fetchAll(From<BulkToy>().orderBy(.ascending(\.$rank))).map(\.rank) == [-118, 110, 120])
        #expect(try stack.fetchAll(From<BulkPet>()).compactMap(\.weight) == [1.75])
    }

    /// SQLite stores a NaN as NULL, so a real increment that makes one (a NaN
    /// amount, or an infinity added to the opposite one) would change the
    /// field to its default; it fails instead, changing nothing.
    @Test(arguments: StoreKind.allCases)
    func anIncrementThatMakesNaNFailsAndChangesNothing(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for weight in [1.5, -.infinity, .infinity] { tx.create(Into<BulkPet>()).weight = weight }
        })
        let invalid: (StrataError) -> Bool = {
            if case .invalidValue(_, "weight", _) = $0 { true } else { false }
        }
        try stack.perform(synchronous: { tx throws in
            expectFailure({ try tx.updateAll(From<BulkPet>(), .increment(\.$weight, by: .nan)) }, invalid)
            expectFailure({ try tx.updateAll(From<BulkPet>(), .increment(\.$weight, by: .infinity)) }, invalid)
            expectFailure({
                try tx.updateAll(From<BulkPet>(), .set(\.$label, to: "x"), .increment(\.$weight, by: -.infinity))
            }, invalid)
            #expect(try tx.fetchCount(From<BulkPet>().where(\.$label == "x")) == 0, "the failed call changed nothing")
            #expect(try tx.updateAll(From<BulkPet>().where(\.$weight == 1.5), .increment(\.$weight, by: .infinity)) == 1)
        })
        let weights = try stack.fetchAll(From<BulkPet>()).compactMap(\.weight).sorted()
        #expect(weights == [-.infinity, .infinity, .infinity])
    }

    @Test(arguments: StoreKind.allCases)
    func relationshipsSetInBulkKeepTheirInverses(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try makeOwners(stack, count: 2, pets: 2)
        let ids = try stack.perform(synchronous: { tx in
            let owners = try tx.fetchAll(From<BulkOwner>().orderBy(.ascending(\.$rank)))
            for rank in 0..<6 {
                let item = tx.create(Into<BulkItem>())
                item.rank = rank
                if rank < 2 { item.list = owners[0] }
            }
            return owners.map(\.objectID)
        })
        let changeSet = try #require(try {
            let tx = try stack.beginUnsafe()
            // Appended to the ordered relationship in the query's order.
            #expect(try tx.updateAll(
                From<BulkItem>().where(\.$rank >= 1).orderBy(.descending(\.$rank)), .set(\.$list, to: ids[0])) == 4)
            #expect(try tx.updateAll(From<BulkPet>(), .set(\.$owner, to: ids[1])) == 2)
            return try tx.commitAndWait()
        }())
        let owners = try stack.fetchAll(From<BulkOwner>().orderBy(.ascending(\.$rank)))
        #expect(owners[0].items.map(\.rank) == [0, 1, 5, 4, 3, 2])
        #expect(owners[0].pets.isEmpty && owners[1].pets.count == 4)
        #expect(changeSet.changedFields(of: ids[0].erased) == ["items", "pets"])
        #expect(changeSet.changedFields(of: ids[1].erased) == ["pets"])
        #expect(changeSet.updatedRowIDs(entity: "Item").count == 4)
        try stack.perform(synchronous: { tx throws in
            #expect(try tx.updateAll(From<BulkItem>().where(\.$rank >= 4), .set(\.$list, to: nil)) == 2)
        })
        #expect(try stack.fetchAll(From<BulkOwner>().orderBy(.ascending(\.$rank)))[0].items.map(\.rank) == [0, 1, 3, 2])
    }

    /// Pending changes are written before the update, its check that the
    /// related object exists included: an owner created in the same
    /// transaction, not flushed yet, is one (found by the stack fuzz test).
    @Test(arguments: StoreKind.allCases)
    func anUpdateRelatesRowsToAnObjectCreatedInTheSameTransaction(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        try makeOwners(stack, count: 1, pets: 2)
        let newOwnerID = try stack.perform(synchronous: { tx throws in
            let owner = tx.create(Into<BulkOwner>())
            owner.rank = 7
            #expect(try tx.updateAll(From<BulkPet>(), .set(\.$owner, to: owner)) == 2)
            #expect(owner.pets.count == 2)
            return owner.objectID
        })
        let owners = try stack.fetchAll(From<BulkOwner>().orderBy(.ascending(\.$rank)))
        #expect(owners.map(\.objectID).last == newOwnerID)
        #expect(owners.map(\.pets.count) == [0, 2])
    }

    @Test
    func wipeAllDataClearsEveryEntityAndEveryFollowerResets() throws {
        let directory = TemporaryDirectory()
        let url = directory.file("wipe.sqlite")
        let writer = DataStack(bulkSchema)
        try writer.addStorageAndWait(SQLiteStore(fileURL: url))
        let follower = DataStack(bulkSchema)
        try follower.addStorageAndWait(SQLiteStore(fileURL: url))
        try makeOwners(writer, count: 50, pets: 2)
        try writer.perform(synchronous: { tx in
            let tag = tx.create(Into<BulkTag>())
            tag.owners = Set(try tx.fetchAll(From<BulkOwner>()))
        })
        let monitor = try follower.monitorList(From<BulkPet>().orderBy(.ascending(\.$rank)))
        let checker = ReplayChecker(monitor)
        let held = try follower.fetchAll(From<BulkOwner>())
        let local = try writer.monitorList(From<BulkOwner>().orderBy(.ascending(\.$rank)))
        let localChecker = ReplayChecker(local)
        let lastRowID = try #require(held.map(\.rowID).max())

        #expect(try writer.wipeAllData() == 151)
        #expect(try follower.fetchCount(From<BulkOwner>()) == 0)
        #expect(held.allSatisfy { $0.isDeletedObject })
        #expect(monitor.numberOfObjects() == 0 && local.numberOfObjects() == 0)
        #expect(checker.failures.isEmpty && localChecker.failures.isEmpty)
        let record = try #require(try writer.history(after: writer.currentGeneration() - 1).last)
        #expect(record.clearedEntityNames == ["Owner", "Pet", "Tag"])
        #expect(record.deletedRowIDs(entity: "Owner").isEmpty)
        let link = try Connection(path: url.path, readOnly: true)
        defer { link.close() }
        #expect(try link.scalar("SELECT count(*) FROM \"_strata_link_Owner_tags\"") == .integer(0))
        // Row IDs are not given out again.
        let next = try writer.perform(synchronous: { tx in tx.create(Into<BulkOwner>()).objectID })
        #expect(next.rowID > lastRowID)
        #expect(try writer.wipeAllData() == 1)
        #expect(try writer.wipeAllData() == 0)
    }
}
