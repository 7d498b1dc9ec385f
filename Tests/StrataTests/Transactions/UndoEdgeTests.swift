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

    /// A committed deletion that a `.deny` rule allowed only because the
    /// object it denies was deleted too: undoing that second deletion alone
    /// brings back an object holding the deleted one, which the commit
    /// refuses, as it would have before the first commit (and as Core Data
    /// refuses a save with a reference to a deleted object). Undoing both
    /// brings both back.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anObjectADenyRuleCoversComesBackOnlyWithTheObjectItDenies(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        ann.passport = tx.create(Into<Passport>())
        let bob = tx.create(Into<Owner>())
        bob.passport = tx.create(Into<Passport>())
        try tx.commitAndWait()
        for owner in [ann, bob] {
            tx.delete(owner)  // denied while the passport is there
            try tx.flush()
            tx.delete(owner.passport!)
            try tx.flush()
        }
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<Passport>()) == 0)

        tx.undo()  // bob's passport's deletion: bob stays deleted
        tx.undo()  // bob's deletion: both back
        tx.undo()  // ann's passport's deletion: ann stays deleted
        #expect(ann.isDeletedObject && !bob.isDeletedObject)
        let error = #expect(throws: StrataError.self) { try tx.commitAndWait() }
        guard case .deleteDenied(entity: "Owner", relationship: "passport", relatedCount: 1)? = error else {
            Issue.record("expected .deleteDenied of Owner.passport, got \(String(describing: error))")
            return
        }
        #expect(try stack.fetchCount(From<Passport>()) == 0)

        let again = try stack.beginUnsafe(supportsUndo: true)
        let cy = again.create(Into<Owner>())
        let passport = again.create(Into<Passport>())
        cy.passport = passport
        try again.commitAndWait()
        again.delete(cy)
        try again.flush()
        again.delete(passport)
        try again.commitAndWait()
        again.undo()
        again.undo()
        #expect(!cy.isDeletedObject && cy.passport === passport)
        try again.commitAndWait()
        #expect(try stack.fetchExisting(cy.objectID)?.passport?.objectID == passport.objectID)
    }

    /// The same when a bulk write ended the history between the two
    /// deletions: the first one's group is forgotten, but not its `.deny`
    /// check, so undoing the second deletion still fails the commit instead
    /// of saving a passport whose holder's row is gone.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aBulkWriteBetweenTwoDeletionsKeepsTheDenyRuleOfTheFirst(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        let passport = tx.create(Into<Passport>())
        ann.passport = passport
        _ = tx.create(Into<Club>())
        try tx.commitAndWait()
        tx.delete(ann)  // denied while the passport is there
        #expect(try tx.deleteAll(From<Club>()) == 1)  // ends the history
        tx.delete(passport)
        try tx.commitAndWait()
        tx.undo()  // the passport's deletion: ann stays deleted
        #expect(ann.isDeletedObject && !passport.isDeletedObject)
        #expect(throws: StrataError.deleteDenied(entity: "Owner", relationship: "passport", relatedCount: 1)) {
            try tx.commitAndWait()
        }
        #expect(try stack.fetchCount(From<Passport>()) == 0)
        #expect(try stack.fetchCount(From<Owner>()) == 0)
    }

    /// A bulk deletion has no undo group; its `.deny` check outlives the
    /// commit too, so that undoing the deletion of the object it denied
    /// fails the next commit.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aBulkDeletionsDenyRuleIsJudgedAgainAfterAnUndo(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let passport = tx.create(Into<Passport>())
        passport.holder = tx.create(Into<Owner>())
        try tx.commitAndWait()
        #expect(try tx.deleteAll(From<Owner>()) == 1)  // denied while the passport is there
        tx.delete(passport)
        try tx.commitAndWait()
        tx.undo()  // the passport's deletion
        #expect(!passport.isDeletedObject)
        #expect(throws: StrataError.deleteDenied(entity: "Owner", relationship: "passport", relatedCount: 1)) {
            try tx.commitAndWait()
        }
        #expect(try stack.fetchCount(From<Passport>()) == 0)
    }

    /// An undone creation reads as deleted, but was never deleted: the
    /// `.deny` check of its deletion, undone before it, is not judged.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func undoingTheDeletionAndTheCreationOfAnObjectLeavesNoDenyCheck(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(deleteRuleSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let vet = tx.create(Into<RuleVet>())
        try tx.commitAndWait()
        let pet = tx.create(Into<RulePet>())
        try tx.flush()
        pet.vet = vet
        tx.delete(pet)  // denied while the vet is there
        tx.undo()  // the link and the deletion
        tx.undo()  // the creation
        #expect(pet.isDeletedObject && !vet.isDeletedObject)
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<RulePet>()) == 0)
        #expect(try stack.fetchCount(From<RuleVet>()) == 1)
    }
}
