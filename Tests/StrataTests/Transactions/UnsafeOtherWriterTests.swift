import Foundation
@testable import Strata
import Testing

/// Kept objects of an unsafe transaction that another writer deleted, and
/// undo reaching past commits, as a CoreStore user drives them.
@Suite("Unsafe transactions: kept objects another writer deleted, undo across commits")
struct UnsafeOtherWriterTests {
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeObjectDeletedByAnotherWriter(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, tx, ann) = try unsafeKeepingAnn(kind, in: directory)
        let id = ann.objectID
        try stack.perform(synchronous: { other in other.delete(id) })
        try tx.refreshAndMergeAllObjects()
        #expect(ann.isDeletedObject)
        #expect(try tx.fetchExisting(id) == nil)
        #expect(tx.edit(ann) == nil)
        #expect(!tx.hasChanges)
        #expect(tx.deletedObjectIDs().isEmpty)
        #expect(try tx.fetchCount(From<TxPerson>()) == 0)
        let changes = try tx.commitAndWait()
        #expect(changes == nil)
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeObjectChangedAfterAnotherWriterDeletedIt(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, tx, ann) = try unsafeKeepingAnn(kind, in: directory)
        let id = ann.objectID
        try stack.perform(synchronous: { other in other.delete(id) })
        ann.name = "Annie"
        let changes = try? tx.commitAndWait()
        #expect(changes?.updatedIDs(entity: "TxPerson").isEmpty ?? true)
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
        #expect(try stack.fetchExisting(id) == nil)
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func unsafeUndoAcrossCommitThenCommit(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<TxPerson>())
        ann.name = "Ann"
        try tx.commitAndWait()
        ann.name = "Annie"
        try tx.commitAndWait()
        #expect(!tx.hasChanges)
        tx.undo()
        #expect(ann.name == "Ann")
        #expect(tx.hasChanges)
        #expect(tx.updatedObjects(TxPerson.self) == [ann])
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<TxPerson>())?.name == "Ann")
        tx.redo()
        #expect(ann.name == "Annie")
        tx.rollback()
        #expect(ann.name == "Ann")
        #expect(!tx.hasChanges)
    }
}
