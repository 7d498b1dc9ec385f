import Foundation
import Testing

@testable import Strata

// The model is `contextSchema` (Context/ContextModels.swift): owners with
// pets (one-to-many, cascade), a queue (ordered), a passport (deny) and
// clubs (many-to-many); an animal's `favorite` is a to-one without inverse.

/// Transactions.md, Rule 12a: `beginUnsafe(supportsUndo: true)`
/// keeps the groups of a transaction's changes, which `undo()` takes back
/// and `redo()` puts back, exactly.
@Suite("Unsafe transactions: undo and redo")
struct UndoTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func undoAndRedoWalkFieldValuesGroupByGroup(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        #expect(!tx.canUndo && !tx.canRedo)
        let ann = tx.create(Into<Owner>())
        ann.name = "Ann"
        try tx.flush()
        ann.name = "Annie"
        ann.name = "Anne"
        #expect(tx.canUndo)
        tx.undo()  // the open group: both assignments
        #expect(ann.name == "Ann" && tx.canRedo)
        tx.redo()
        #expect(ann.name == "Anne" && !tx.canRedo)
        tx.undo()
        tx.undo()  // the creation
        #expect(ann.isDeletedObject && !tx.hasChanges && !tx.canUndo)
        #expect(try tx.fetchCount(From<Owner>()) == 0)
        #expect(tx.edit(ann.objectID) == nil)
        tx.undo()  // nothing left: nothing happens
        tx.redo()
        #expect(!ann.isDeletedObject && ann.name == "Ann")
        #expect(try tx.fetchOne(From<Owner>()) === ann)
        tx.redo()
        #expect(ann.name == "Anne")
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<Owner>())?.name == "Anne")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aDeletionOfAnUnwrittenObjectIsUndoneToo(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        ann.name = "Ann"
        tx.undo()
        tx.redo()  // back, and not yet written: nothing read or flushed since
        tx.delete(ann)
        tx.undo()
        #expect(!ann.isDeletedObject && ann.name == "Ann")
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<Owner>())?.name == "Ann")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anObjectBroughtBackKeepsAnIDNoLaterObjectGets(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        tx.undo()
        #expect(try tx.commitAndWait() == nil)  // saves nothing, records no row ID
        tx.redo()
        let bob = tx.create(Into<Owner>())
        #expect(bob.objectID != ann.objectID)
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<Owner>()) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aNewChangeAfterAnUndoEmptiesTheRedoStack(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        try tx.flush()
        ann.name = "Ann"
        tx.undo()
        #expect(tx.canRedo)
        ann.name = "Bea"
        #expect(!tx.canRedo)
        tx.redo()
        #expect(ann.name == "Bea")
        tx.undo()
        #expect(ann.name == "")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func undoingADeletionBringsBackTheGraphItsRulesChanged(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        let bob = tx.create(Into<Owner>())
        let rex = tx.create(Into<Animal>())
        let fido = tx.create(Into<Animal>())
        let tom = tx.create(Into<Animal>())
        let club = tx.create(Into<Club>())
        ann.name = "Ann"
        rex.name = "Rex"
        ann.pets = [rex, fido]
        bob.queue = [tom, rex, fido]
        club.members = [ann, bob]
        tom.favorite = ann
        try tx.commitAndWait()

        func expectGraph(_ step: String) throws {
            #expect(!ann.isDeletedObject && !rex.isDeletedObject && !fido.isDeletedObject, "\(step)")
            #expect(ann.pets == [rex, fido] && rex.owner === ann && fido.owner === ann, "\(step)")
            #expect(bob.queue == [tom, rex, fido] && rex.queuedAt === bob, "\(step)")
            #expect(club.members == [ann, bob] && ann.clubs == [club], "\(step)")
            #expect(tom.favorite === ann, "\(step)")
            #expect(rex.name == "Rex" && ann.name == "Ann", "\(step)")
            #expect(try tx.fetchCount(From<Animal>()) == 3, "\(step)")
        }

        tx.delete(ann)  // cascades to rex and fido; nullifies the club and tom's favorite
        #expect(rex.isDeletedObject && club.members == [bob] && tom.favorite == nil && bob.queue == [tom])
        tx.undo()
        try expectGraph("undone before the commit")
        #expect(!tx.hasChanges)
        #expect(try tx.commitAndWait() == nil)

        tx.delete(ann)
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<Animal>()) == 1)
        tx.undo()  // after the commit: the deletions become insertions, with their own IDs
        try expectGraph("undone after the commit")
        #expect(tx.insertedObjectIDs(Owner.self) == [ann.objectID])
        #expect(tx.insertedObjectIDs(Animal.self) == [rex.objectID, fido.objectID])
        try tx.commitAndWait()
        let shown = try #require(try stack.fetchExisting(ann.objectID))
        #expect(Set(shown.pets.map(\.objectID)) == [rex.objectID, fido.objectID])
        #expect(shown.clubs.map(\.objectID) == [club.objectID])
        #expect(try stack.fetchExisting(bob.objectID)?.queue.map(\.objectID) == [tom, rex, fido].map(\.objectID))
        #expect(try stack.fetchExisting(tom.objectID)?.favorite?.objectID == ann.objectID)

        tx.redo()  // the redo stack survives the commit: the deletion again
        #expect(ann.isDeletedObject && rex.isDeletedObject && bob.queue == [tom])
        try tx.commitAndWait()
        #expect(try stack.fetchExisting(ann.objectID) == nil)
        #expect(try stack.fetchCount(From<Animal>()) == 1)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anUndoneDeletionIsNoLongerDeniedAndARedoneOneIsAgain(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        ann.passport = tx.create(Into<Passport>())
        try tx.commitAndWait()
        tx.delete(ann)
        tx.undo()
        #expect(try tx.commitAndWait() == nil)
        tx.redo()
        #expect(throws: StrataError.self) { try tx.commitAndWait() }
        // The failed commit rolled back, and ended the history.
        #expect(!ann.isDeletedObject && !tx.canUndo && !tx.canRedo)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anUndoneCommittedRelationshipChangeListsBothSides(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        let rex = tx.create(Into<Animal>())
        let club = tx.create(Into<Club>())
        try tx.commitAndWait()
        ann.pets = [rex]
        club.members = [ann]
        try tx.commitAndWait()
        tx.undo()
        #expect(tx.updatedObjectIDs(Owner.self) == [ann.objectID])
        #expect(tx.updatedObjectIDs(Animal.self) == [rex.objectID])
        #expect(tx.updatedObjectIDs(Club.self) == [club.objectID])
        let changeSet = try #require(try tx.commitAndWait())
        #expect(changeSet.updatedRowIDs(entity: "Owner") == [ann.objectID.rowID])
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func linksBetweenTwoDeniedDeletionsComeBack(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoDenySchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let team = tx.create(Into<UndoTeam>())
        let player = tx.create(Into<UndoPlayer>())
        team.players = [player]
        try tx.commitAndWait()
        tx.delete(team)
        tx.delete(player)  // both sides deny: the commit removes the link rows between them
        try tx.commitAndWait()
        tx.undo()
        #expect(team.players == [player] && player.teams == [team])
        try tx.commitAndWait()
        let shown = try #require(try stack.fetchExisting(team.objectID))
        #expect(shown.players.map(\.objectID) == [player.objectID])
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func uniqueImportsAreUndoneLikeAnyChange(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = try #require(try tx.importUniqueObject(Into<ImpPerson>(), source: ImpRecord(id: 1, name: "Ann")))
        try tx.commitAndWait()
        _ = try tx.importUniqueObject(Into<ImpPerson>(), source: ImpRecord(id: 1, name: "Annie"))
        _ = try tx.importUniqueObject(Into<ImpPerson>(), source: ImpRecord(id: 2, name: "Bob"))
        #expect(ann.name == "Annie" && ann.updates == 1)
        tx.undo()
        #expect(ann.name == "Ann" && ann.updates == 0)
        #expect(try tx.fetchAll(From<ImpPerson>()).map(\.name) == ["Ann"])
        // Bob's ID is free again for a new import; the redo stack ends with it.
        let bob = try #require(try tx.importUniqueObject(Into<ImpPerson>(), source: ImpRecord(id: 2, name: "Bo")))
        #expect(bob.inserts == 1 && !tx.canRedo)
        try tx.commitAndWait()
        #expect(try stack.fetchAll(From<ImpPerson>().orderBy(.ascending(\.$remoteID))).map(\.name) == ["Ann", "Bo"])
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func undoTakesBackCommittedChangesAsPendingOnes(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        ann.name = "Ann"
        try tx.commitAndWait()
        ann.name = "Annie"
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<Owner>())?.name == "Annie")
        tx.undo()
        #expect(ann.name == "Ann" && ann.hasChanges)
        #expect(tx.updatedObjectIDs(Owner.self) == [ann.objectID])
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<Owner>())?.name == "Ann")
        tx.undo()  // the creation, committed two commits ago
        #expect(tx.deletedObjectIDs(Owner.self) == [ann.objectID])
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<Owner>()) == 0)
        tx.redo()  // the creation: the same object and ID, inserted again
        #expect(tx.insertedObjectIDs(Owner.self) == [ann.objectID] && ann.name == "Ann")
        tx.redo()  // and the rename
        try tx.commitAndWait()
        #expect(try stack.fetchExisting(ann.objectID)?.name == "Annie")
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func oneGroupSpansEveryStoreTheTransactionChanged(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack(["Config1", "Config2"], kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let item = tx.create(Into<CfgItem>("Config1"))
        let note = tx.create(Into<CfgNote>("Config2"))
        note.text = "a"
        try tx.commitAndWait()
        item.label = "changed"
        note.text = "b"
        let tag = tx.create(Into<CfgTag>("Config1"))
        tag.item = item
        tx.undo()
        #expect(item.label == "" && note.text == "a" && tag.isDeletedObject && item.tags.isEmpty)
        #expect(!tx.hasChanges)
        tx.redo()
        #expect(item.tags == [tag])
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<CfgNote>("Config2"))?.text == "b")
        #expect(try stack.fetchOne(From<CfgItem>("Config1"))?.tags.count == 1)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anInvalidValueComesAndGoesWithItsGroup(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let rex = tx.create(Into<UndoPet>())
        try tx.flush()
        rex.weight = .nan
        tx.undo()
        #expect(rex.weight == 0)
        try tx.commitAndWait()
        tx.redo()
        #expect(rex.weight.isNaN)
        #expect(throws: StrataError.self) { try tx.commitAndWait() }
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func rollbackAndBulkWritesEndTheHistory(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<Owner>())
        try tx.commitAndWait()
        ann.name = "Ann"
        tx.rollback()
        #expect(!tx.canUndo && !tx.canRedo && ann.name == "")

        ann.name = "Ann"
        try tx.flush()
        ann.name = "Bea"
        tx.undo()
        #expect(tx.canUndo && tx.canRedo)
        #expect(try tx.updateAll(From<Owner>(), .set(\.$name, to: "Cy")) == 1)
        #expect(!tx.canUndo && !tx.canRedo && ann.name == "Cy")
        tx.undo()
        #expect(ann.name == "Cy")
        ann.name = "Di"
        #expect(try tx.deleteAll(From<Animal>()) == 0)
        #expect(!tx.canUndo)
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<Owner>())?.name == "Di")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aTransactionWithoutUndoSupportKeepsNoHistory(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let tx = try stack.beginUnsafe()
        tx.create(Into<Owner>()).name = "Ann"
        #expect(!tx.canUndo && !tx.canRedo)
        let contexts = tx.contexts.all
        #expect(contexts.allSatisfy { $0.undoHistory == nil })
        tx.rollback()
        #expect(try tx.fetchCount(From<Owner>()) == 0)
    }

    @Test func undoWithoutUndoSupportTraps() async {
        let undo = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                try makeStack(contextSchema, .inMemory, in: directory).beginUnsafe().undo()
            }
        }
        let redo = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                try makeStack(contextSchema, .inMemory, in: directory).beginUnsafe().redo()
            }
        }
        for (call, result) in [("undo()", undo), ("redo()", redo)] {
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("\(call) needs an undo history"), "\(call)")
            #expect(message.contains("stack.beginUnsafe(supportsUndo: true)"), "\(call)")
        }
    }

    /// CoreStore's `test_ThatUnsafeTransactions_CanRollbackChanges`, which
    /// begins its transaction with `supportsUndo: true`.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func unsafeTransactionsCanRollbackChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let transaction = try stack.beginUnsafe(supportsUndo: true)
        do {
            let object = transaction.create(Into<TxPerson>())
            object.name = "string1"
            object.age = 100
            object.email = "1"
            transaction.rollback()
            #expect(try transaction.fetchCount(From<TxPerson>()) == 0)
            #expect(try transaction.fetchOne(From<TxPerson>()) == nil)
            #expect(try stack.fetchCount(From<TxPerson>()) == 0)
            #expect(try stack.fetchOne(From<TxPerson>()) == nil)
        }
        do {
            let object = transaction.create(Into<TxPerson>())
            object.name = "string1"
            object.age = 100
            object.email = "1"
            #expect(transaction.hasChanges)
            try transaction.commitAndWait()
        }
        func expectCommitted() throws {
            #expect(try transaction.fetchCount(From<TxPerson>()) == 1)
            let mine = try #require(try transaction.fetchOne(From<TxPerson>()))
            #expect(mine.name == "string1" && mine.age == 100 && mine.email == "1")
            #expect(try stack.fetchCount(From<TxPerson>()) == 1)
            let shown = try #require(try stack.fetchOne(From<TxPerson>()))
            #expect(shown.name == "string1" && shown.age == 100 && shown.email == "1")
        }
        do {
            let object = try #require(try transaction.fetchOne(From<TxPerson>()))
            object.name = "string1_edit"
            object.age = 200
            object.email = "2"
            transaction.rollback()
            try expectCommitted()
        }
        do {
            let object = try #require(try transaction.fetchOne(From<TxPerson>()))
            transaction.delete(object)
            transaction.rollback()
            try expectCommitted()
        }
    }
}
