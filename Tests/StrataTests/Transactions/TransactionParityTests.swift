import Foundation
@testable import Strata
import Testing

/// Behaviour a CoreStore user relies on in transactions, checked one case at a time.
@Suite("Transactions: what a CoreStore user expects")
struct TransactionParityTests {
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func fetchExistingFindsAnObjectCreatedInTheSameTransaction(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let report = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<TxPerson>())
            ann.name = "Ann"
            let byObject = try tx.fetchExisting(ann)
            let byID = try tx.fetchExisting(ann.objectID)
            let edited = tx.edit(ann)
            let editedByID = tx.edit(ann.objectID)
            return [byObject === ann, byID === ann, edited === ann, editedByID === ann]
        })
        #expect(report == [true, true, true, true])
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeFlushKeepsChangesPendingUntilTheCommit(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe()
        let ann = tx.create(Into<TxPerson>())
        ann.name = "Ann"
        try tx.flush()
        #expect(tx.hasChanges)
        #expect(tx.insertedObjects(TxPerson.self) == [ann])
        ann.age = 3
        #expect(tx.insertedObjects(TxPerson.self) == [ann])
        #expect(tx.updatedObjects(TxPerson.self).isEmpty)
        #expect(tx.insertedObjectIDs() == [ann.objectID.erased])
        try tx.commitAndWait()
        #expect(!tx.hasChanges)
        #expect(tx.insertedObjects(TxPerson.self).isEmpty)
        ann.age = 4
        #expect(tx.hasChanges)
        #expect(tx.updatedObjects(TxPerson.self) == [ann])
        #expect(tx.insertedObjects(TxPerson.self).isEmpty)
        try tx.flush()
        #expect(tx.hasChanges)
        #expect(tx.updatedObjects(TxPerson.self) == [ann])
        try tx.commitAndWait()
        #expect(!tx.hasChanges)
        #expect(tx.updatedObjects(TxPerson.self).isEmpty)
        #expect(try stack.fetchExisting(ann.objectID)?.age == 4)
        tx.delete(ann)
        #expect(tx.hasChanges)
        #expect(tx.deletedObjects(TxPerson.self) == [ann])
        try tx.flush()
        #expect(tx.deletedObjects(TxPerson.self) == [ann])
        #expect(tx.hasChanges)
        try tx.commitAndWait()
        #expect(!tx.hasChanges)
        #expect(tx.deletedObjects(TxPerson.self).isEmpty)
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeRollbackAfterFlushDiscardsTheFlushedChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, tx, ann) = try unsafeKeepingAnn(kind, in: directory, age: 1)
        ann.age = 2
        let bob = tx.create(Into<TxPerson>())
        bob.name = "Bob"
        try tx.flush()
        tx.rollback()
        #expect(!tx.hasChanges)
        #expect(ann.age == 1)
        #expect(tx.insertedObjects(TxPerson.self).isEmpty)
        #expect(tx.updatedObjects(TxPerson.self).isEmpty)
        #expect(try tx.fetchCount(From<TxPerson>()) == 1)
        #expect(try tx.fetchOne(From<TxPerson>())?.age == 1)
        ann.age = 5
        try tx.commitAndWait()
        #expect(try stack.fetchAll(From<TxPerson>()).map(\.age) == [5])
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func deleteAllAndUpdateAllAreChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 0..<3 { tx.create(Into<TxItem>()).rank = index }
        })
        let deleted = try stack.perform(synchronous: { tx in
            let count = try tx.deleteAll(From<TxItem>().where(\.$rank == 0))
            return (count, tx.hasChanges)
        })
        #expect(deleted.0 == 1)
        #expect(deleted.1)
        let updated = try stack.perform(synchronous: { tx in
            let count = try tx.updateAll(From<TxItem>(), .set(\.$label, to: "x"))
            return (count, tx.hasChanges)
        })
        #expect(updated.0 == 2)
        #expect(updated.1)
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func fetchWithoutPendingChangesSeesTheStoreAsCommitted(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 0..<3 { tx.create(Into<TxItem>()).rank = index }
        })
        let counts = try stack.perform(synchronous: { tx in
            tx.create(Into<TxItem>()).rank = 10
            let first = try #require(try tx.fetchOne(From<TxItem>().where(\.$rank == 0)))
            first.rank = 20
            let committed = From<TxItem>().tweak { $0.includesPendingChanges = false }
            let pending = From<TxItem>()
            return [
                try tx.fetchCount(committed), try tx.fetchCount(pending),
                try tx.fetchCount(committed.where(\.$rank == 0)),
                try tx.fetchCount(pending.where(\.$rank == 0)),
                try tx.fetchAll(committed.where(\.$rank == 0)).count,
                try tx.fetchCount(committed.where(\.$rank >= 10)),
            ]
        })
        #expect(counts == [3, 4, 1, 0, 1, 0])
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeCommitWithNothingToSaveSucceeds(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe()
        #expect(try tx.commitAndWait() == nil)
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            tx.commit { error in continuation.resume(returning: error.map { "\($0)" }) }
        }
        #expect(error == nil)
        #expect(!tx.hasChanges)
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeRefreshTakesAnotherWritersValuesAndKeepsLocalOnes(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, tx, ann) = try unsafeKeepingAnn(kind, in: directory, age: 1)
        let id = ann.objectID
        try stack.perform(synchronous: { other in
            other.edit(id)?.age = 7
            other.edit(id)?.email = "ann@example.com"
        })
        ann.name = "Annie"
        try tx.refreshAndMergeAllObjects()
        #expect(ann.age == 7)
        #expect(ann.email == "ann@example.com")
        #expect(ann.name == "Annie")
        try tx.commitAndWait()
        let shown = try #require(try stack.fetchExisting(id))
        #expect(shown.name == "Annie")
        #expect(shown.age == 7)
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func deletingAnObjectItCreatedLeavesNoChange(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let report = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<TxPerson>())
            ann.name = "Ann"
            tx.delete(ann)
            return [
                tx.hasChanges, tx.insertedObjects(TxPerson.self).isEmpty,
                tx.deletedObjects(TxPerson.self).isEmpty, tx.edit(ann) == nil,
                try tx.fetchExisting(ann.objectID) == nil, try tx.fetchCount(From<TxPerson>()) == 0,
            ]
        })
        #expect(report == [false, true, true, true, true, true])
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func objectsReturnedFromATransactionAreFoundOnTheStack(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let created = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<TxPerson>())
            ann.name = "Ann"
            return ann
        })
        let shown = try #require(try stack.fetchExisting(created))
        #expect(shown.name == "Ann")
        #expect(shown.objectID == created.objectID)
        let many = try stack.fetchExisting([created])
        #expect(many.map(\.name) == ["Ann"])
    }

    /// CoreStore's `delete(objectIDs:)` takes any sequence: a set, made in
    /// the call (`Set(ids)`) or held, such as the one `insertedObjectIDs(_:)`
    /// returns, or a lazy filter.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func deleteByObjectIDsTakesAnySequence(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            (0..<4).map { index -> ObjectID<TxItem> in
                let item = tx.create(Into<TxItem>())
                item.rank = index
                return item.objectID
            }
        })
        try stack.perform(synchronous: { tx in tx.delete(objectIDs: Set(ids.prefix(1))) })
        #expect(try stack.fetchAll(From<TxItem>()).map(\.rank).sorted() == [1, 2, 3])
        let second: Set<ObjectID<TxItem>> = [ids[1]]
        try stack.perform(synchronous: { tx in tx.delete(objectIDs: second) })
        #expect(try stack.fetchAll(From<TxItem>()).map(\.rank).sorted() == [2, 3])
        try stack.perform(synchronous: { tx in tx.delete(objectIDs: ids.lazy.filter { $0.rowID > 0 }) })
        #expect(try stack.fetchCount(From<TxItem>()) == 0)
        let pending = try stack.perform(synchronous: { tx in
            for index in 0..<3 { tx.create(Into<TxItem>()).rank = index }
            tx.delete(objectIDs: tx.insertedObjectIDs(TxItem.self))
            return tx.hasChanges
        })
        #expect(!pending)
        #expect(try stack.fetchCount(From<TxItem>()) == 0)
    }

    /// CoreStore's `flush(closure:)`: the changes the closure makes, then a
    /// flush, which ends the undo group; an error of the closure comes out
    /// and nothing is flushed.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeFlushWithAClosureFlushesWhatItChanged(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<TxPerson>())
        try tx.flush { ann.name = "Ann" }
        ann.name = "Annie"
        tx.undo()
        #expect(ann.name == "Ann", "the flush ended the group the closure's change was in")
        #expect(tx.hasChanges)
        #expect(try tx.fetchCount(From<TxPerson>().where(\.$name == "Ann")) == 1)
        do {
            try tx.flush { ann.age = 9; throw TxValueError(code: 3) }
            Issue.record("expected the closure's error")
        } catch let error as TxValueError {
            #expect(error == TxValueError(code: 3))
        }
        #expect(ann.age == 9, "the closure's change is kept, unflushed, as CoreStore leaves it")
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<TxPerson>())?.age == 9)
    }

    /// CoreStore has `refreshAndMergeAllObjects()` on every transaction.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func everyTransactionCanRefreshAndMergeItsObjects(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let name = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<TxPerson>())
            ann.name = "Ann"
            try tx.refreshAndMergeAllObjects()
            return ann.name
        })
        #expect(name == "Ann", "a refresh keeps the transaction's own changes")
        let age = try await stack.perform { tx in
            let ann = try #require(try tx.fetchOne(From<TxPerson>()))
            ann.age = 4
            try tx.refreshAndMergeAllObjects()
            return ann.age
        }
        #expect(age == 4)
        #expect(try stack.fetchOne(From<TxPerson>())?.age == 4)
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func asynchronousFailureRunsOnMainAndSavesNothing(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            stack.perform(
                asynchronous: { tx -> Int in
                    tx.create(Into<TxPerson>()).name = "Ann"
                    try tx.cancel()
                },
                success: { _ in continuation.resume(returning: "success") },
                failure: { error in
                    MainActor.assertIsolated()
                    continuation.resume(returning: error == .userCancelled ? "cancelled" : "\(error)")
                })
        }
        #expect(outcome == "cancelled")
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
    }
}

/// One unsafe transaction driven at random through creates, edits, deletes,
/// flushes, commits, rollbacks and refreshes, against a model of what it
/// should hold.
@Suite("Unsafe transactions: several commits in a row, against a model")
struct UnsafeSequenceModelTests {
    private struct Model {
        var committed: [Int64: Int] = [:]
        var pending: [Int64: Int] = [:]
        var created: Set<Int64> = []
        var deleted: Set<Int64> = []

        var inserted: Set<Int64> { created.subtracting(deleted) }
        var updated: Set<Int64> {
            Set(pending.keys.filter { committed[$0] != nil && !deleted.contains($0) && pending[$0] != committed[$0] })
        }
        var removed: Set<Int64> { deleted.subtracting(created) }
        var live: [Int64: Int] {
            var result = committed
            for (row, age) in pending { result[row] = age }
            for row in deleted { result[row] = nil }
            return result
        }
    }

    @Test(arguments: [UInt64(11), 12, 13, 14])
    @MainActor
    func pendingSetsAndStoreFollowTheModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, seed % 2 == 0 ? .file : .inMemory, in: directory)
        let tx = try stack.beginUnsafe()
        var model = Model()
        var held: [Int64: TxPerson] = [:]
        for step in 0..<200 {
            let note = Comment(rawValue: "seed \(seed), step \(step)")
            let live = model.live.keys.sorted()
            switch random.next() % 10 {
            case 0, 1:
                let person = tx.create(Into<TxPerson>())
                person.age = Int(random.next() % 5)
                held[person.objectID.rowID] = person
                model.created.insert(person.objectID.rowID)
                model.pending[person.objectID.rowID] = person.age
            case 2, 3, 4:
                guard let row = live.randomElement(using: &random) else { continue }
                let person = try #require(held[row], note)
                person.age = Int(random.next() % 5)
                model.pending[row] = person.age
            case 5:
                guard let row = live.randomElement(using: &random) else { continue }
                tx.delete(held[row])
                model.deleted.insert(row)
            case 6:
                try tx.flush()
            case 7:
                try tx.commitAndWait()
                model.committed = model.live
                model = Model(committed: model.committed)
                held = held.filter { model.committed[$0.key] != nil }
            case 8:
                tx.rollback()
                for row in model.created { held[row] = nil }
                model = Model(committed: model.committed)
            default:
                try tx.refreshAndMergeAllObjects()
            }
            let ids = { (rows: Set<Int64>) in Set(rows.map { AnyObjectID(entityName: "TxPerson", rowID: $0) }) }
            #expect(tx.hasChanges == !(model.inserted.isEmpty && model.updated.isEmpty && model.removed.isEmpty), note)
            #expect(tx.insertedObjectIDs() == ids(model.inserted), note)
            #expect(tx.updatedObjectIDs() == ids(model.updated), note)
            #expect(tx.deletedObjectIDs() == ids(model.removed), note)
            #expect(Set(tx.insertedObjects(TxPerson.self).map(\.objectID.rowID)) == model.inserted, note)
            let fetched = try tx.fetchAll(From<TxPerson>())
            #expect(Dictionary(uniqueKeysWithValues: fetched.map { ($0.objectID.rowID, $0.age) }) == model.live, note)
            let saved = try tx.fetchCount(From<TxPerson>().tweak { $0.includesPendingChanges = false })
            #expect(saved == model.committed.count, note)
            let shown = try stack.fetchAll(From<TxPerson>())
            #expect(
                Dictionary(uniqueKeysWithValues: shown.map { ($0.objectID.rowID, $0.age) }) == model.committed, note)
        }
    }
}

/// A stack on a new store of `kind` in `directory`, and an unsafe
/// transaction on it that has committed one person, Ann (aged `age`), whom it keeps.
@MainActor
func unsafeKeepingAnn(
    _ kind: StoreKind, in directory: TemporaryDirectory, age: Int? = nil
) throws -> (DataStack, UnsafeDataTransaction, TxPerson) {
    let stack = try makeStack(TxSchema.schema, kind, in: directory)
    let tx = try stack.beginUnsafe()
    let ann = tx.create(Into<TxPerson>())
    ann.name = "Ann"
    if let age { ann.age = age }
    try tx.commitAndWait()
    return (stack, tx, ann)
}
