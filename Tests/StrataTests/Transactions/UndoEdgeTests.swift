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
}
