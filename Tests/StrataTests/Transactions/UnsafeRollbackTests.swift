import Testing
@testable import Strata

// The model is `contextSchema` (Context/ContextModels.swift): owners with
// pets (one-to-many, cascade), a queue (ordered) and clubs (many-to-many).

/// Transactions.md, Rule 12: `rollback()` returns objects to their committed
/// values. For relationships that means both sides: whatever was set, unset,
/// reordered, nullified or cascaded since the last commit, by a setter, a
/// delete or a bulk delete, reads as committed again.
@Suite("Unsafe transactions: rollback restores the object graph")
struct UnsafeRollbackTests {
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func rollbackRestoresBothSidesOfEveryRelationship(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe()
        let ann = tx.create(Into<Owner>())
        let bob = tx.create(Into<Owner>())
        let rex = tx.create(Into<Animal>())
        let fido = tx.create(Into<Animal>())
        let club = tx.create(Into<Club>())
        ann.pets = [rex, fido]
        ann.queue = [rex, fido]
        club.members = [ann]
        try tx.commitAndWait()

        func expectCommittedGraph(_ step: String) {
            #expect(rex.owner === ann && fido.owner === ann, "\(step)")
            #expect(ann.pets == [rex, fido] && bob.pets.isEmpty, "\(step)")
            #expect(ann.queue == [rex, fido] && bob.queue.isEmpty, "\(step)")
            #expect(fido.queuedAt === ann, "\(step)")
            #expect(ann.clubs == [club] && bob.clubs.isEmpty && club.members == [ann], "\(step)")
            #expect(![ann, bob, rex, fido, club].contains { $0.isDeletedObject || $0.hasChanges }, "\(step)")
            #expect(!tx.hasChanges, "\(step)")
        }

        // Setters, on either side.
        rex.owner = bob
        fido.queuedAt = bob
        ann.queue = []
        club.members = [bob]
        #expect(ann.pets == [fido] && bob.queue == [fido] && bob.clubs == [club])
        tx.rollback()
        expectCommittedGraph("after setters")

        // A cascade and the nullified links of the deleted owner.
        tx.delete(ann)
        #expect(rex.isDeletedObject && fido.isDeletedObject && club.members.isEmpty)
        tx.rollback()
        expectCommittedGraph("after a cascading delete")

        // A bulk delete of the members.
        #expect(try tx.deleteAll(From<Animal>()) == 2)
        #expect(rex.isDeletedObject && ann.pets.isEmpty && ann.queue.isEmpty)
        tx.rollback()
        expectCommittedGraph("after deleteAll")
        #expect(try tx.fetchCount(From<Animal>()) == 2)

        // Nothing is left to save, and the store holds the committed graph.
        #expect(try tx.commitAndWait() == nil)
        let shown = try #require(try stack.fetchExisting(ann))
        #expect(shown.queue.map(\.objectID) == [rex.objectID, fido.objectID])
        #expect(shown.clubs.map(\.objectID) == [club.objectID])
    }
}
