import Foundation
import Testing

@testable import Strata

/// Transactions.md, Rule 12a, where undo meets the rest of a transaction:
/// values that cannot be stored, row IDs, and what other writers do
/// between commits.
@Suite("Unsafe transactions: undo and redo at the edges")
struct UndoEdgeTests {
    /// An invalid value assigned in the group that created the object goes
    /// with the creation an undo takes back: the deleted object is never
    /// written, so its value fails no flush and no commit. The same holds
    /// for an object deleted while it held one, undo or not.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anInvalidValueOfAnObjectNoLongerThereFailsNothing(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let rex = tx.create(Into<UndoPet>())
        rex.weight = .nan
        tx.undo()
        #expect(rex.isDeletedObject)
        #expect(try tx.fetchCount(From<UndoPet>()) == 0)
        #expect(try tx.commitAndWait() == nil)
        tx.redo()  // the creation, and its invalid value, again
        #expect(rex.weight.isNaN)
        #expect(throws: StrataError.self) { try tx.flush() }
        tx.delete(rex)
        try tx.flush()
        tx.undo()  // the deletion: the invalid value is back, and fails the commit
        #expect(throws: StrataError.self) { try tx.commitAndWait() }

        let plain = try stack.beginUnsafe()
        let fido = plain.create(Into<UndoPet>())
        try plain.commitAndWait()
        fido.weight = .nan
        plain.delete(fido)
        let changes = try #require(try plain.commitAndWait())
        #expect(changes.deletedRowIDs(entity: "UndoPet") == [fido.objectID.rowID])
        #expect(try stack.fetchCount(From<UndoPet>()) == 0)
    }

    /// A creation undone before any commit recorded its ID, then a commit
    /// that saves nothing: another transaction of the stack, committing
    /// before the redo, gives its object another ID, so the redone object
    /// keeps its own and both commits succeed.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anotherTransactionNeverTakesTheIDOfAnObjectARedoBringsBack(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<UndoPerson>())
        ann.name = "Ann"
        tx.undo()
        #expect(try tx.commitAndWait() == nil)  // saves nothing, records no row ID
        let bob = try stack.perform(synchronous: { other in
            let bob = other.create(Into<UndoPerson>())
            bob.name = "Bob"
            return bob.objectID
        })
        #expect(bob != ann.objectID)
        tx.redo()
        let changes = try #require(try tx.commitAndWait())
        #expect(changes.insertedRowIDs(entity: "UndoPerson") == [ann.objectID.rowID])
        #expect(try stack.fetchExisting(ann.objectID)?.name == "Ann")
        #expect(try stack.fetchExisting(bob)?.name == "Bob")
    }
}
