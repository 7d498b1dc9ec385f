import Foundation
import Testing

@testable import Strata

/// Transactions.md, Rule 12a, with the features the undo model does not
/// draw: entity inheritance, `dynamicInitialValue` and coded fields, unique
/// imports in batches, several stores, reads of the committed state, values
/// a flush refuses, failed bulk writes, and what other stacks and monitors
/// see of commits that undo earlier ones.
@Suite("Unsafe transactions: undo and redo with the rest of Strata")
struct UndoInterplayTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aCascadeThroughAnInheritanceTreeComesBackAfterItsCommit(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let keeper = tx.create(Into<ZooKeeper>())
        let dog = tx.create(Into<ZooDog>())
        let lion = tx.create(Into<ZooLion>())
        let toy = tx.create(Into<ZooToy>())
        dog.tag = "t1"
        toy.dog = dog
        keeper.animals = [lion, dog]  // ordered, to the base entity
        keeper.favorite = dog  // no inverse
        try tx.commitAndWait()
        tx.delete(keeper)  // cascades to both animals, and on to the dog's toys
        #expect(dog.isDeletedObject && lion.isDeletedObject && toy.isDeletedObject)
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<ZooAnimal>()) == 0)

        tx.undo()
        #expect(keeper.animals == [lion, dog] && keeper.favorite === dog && dog.toys == [toy])
        #expect(try tx.fetchCount(From<ZooAnimal>()) == 2 && tx.fetchCount(From<ZooCat>()) == 1)
        #expect(try tx.fetchOne(From<ZooAnimal>().where(\.$tag == "t1")) === dog)
        let changes = try #require(try tx.commitAndWait())
        #expect(changes.insertedRowIDs(entity: "ZooDog") == [dog.objectID.rowID])
        #expect(changes.insertedRowIDs(entity: "ZooLion") == [lion.objectID.rowID])
        let shown = try #require(try stack.fetchExisting(keeper.objectID))
        #expect(shown.animals.map(\.objectID.rowID) == [lion, dog].map(\.objectID.rowID))
        #expect(shown.favorite?.objectID.rowID == dog.objectID.rowID)
        #expect(try stack.fetchOne(From<ZooDog>())?.toys.map(\.objectID) == [toy.objectID])

        tx.redo()
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<ZooAnimal>()) == 0 && stack.fetchCount(From<ZooToy>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aRedoneCreationKeepsItsDynamicAndCodedValues(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ticketSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ticket = tx.create(Into<UrgentTicket>())
        let (identifier, serial, tags) = (ticket.identifier, ticket.serial, ticket.tags)
        try tx.flush()
        ticket.tags = ["changed"]
        ticket.level = 3
        tx.undo()
        #expect(ticket.tags == tags && ticket.level == 1)
        tx.undo()
        #expect(ticket.isDeletedObject)
        tx.redo()
        // The values it was made with, not new ones.
        #expect(ticket.identifier == identifier && ticket.serial == serial && ticket.tags == tags)
        tx.redo()
        try tx.commitAndWait()
        let shown = try #require(try stack.fetchOne(From<UrgentTicket>()))
        #expect(shown.identifier == identifier && shown.serial == serial)
        #expect(shown.tags == ["changed"] && shown.level == 3)
        // Its unique value is free for another ticket once its creation is undone.
        tx.undo()
        tx.undo()
        let other = tx.create(Into<Ticket>())
        other.identifier = identifier
        try tx.commitAndWait()
        #expect(try stack.fetchAll(From<Ticket>()).map(\.identifier) == [identifier])
        #expect(try stack.fetchCount(From<UrgentTicket>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aBatchOfUniqueImportsIsUndoneAndImportedAgain(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ImpSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        _ = try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: [ImpRecord(id: 1, name: "Ann")])
        try tx.commitAndWait()
        let batch = [ImpRecord(id: 1, name: "Annie"), ImpRecord(id: 2, name: "Bob"), ImpRecord(id: 3, name: "Cy")]
        let first = try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: batch)
        try tx.commitAndWait()
        tx.undo()  // after the commit: Ann's update, Bob's and Cy's creations
        #expect(try tx.fetchAll(From<ImpPerson>()).map(\.name) == ["Ann"])
        let second = try tx.importUniqueObjects(Into<ImpPerson>(), sourceArray: batch)
        #expect(second.map(\.name) == ["Annie", "Bob", "Cy"])
        #expect(second[0] === first[0] && second[1] !== first[1] && second[2] !== first[2])
        let changes = try #require(try tx.commitAndWait())
        #expect(changes.deletedRowIDs(entity: "ImpPerson") == Set(first[1...].map(\.objectID.rowID)))
        #expect(changes.insertedRowIDs(entity: "ImpPerson") == Set(second[1...].map(\.objectID.rowID)))
        #expect(changes.updatedRowIDs(entity: "ImpPerson").isEmpty)  // Ann is as committed
        let shown = try stack.fetchAll(From<ImpPerson>().orderBy(.ascending(\.$remoteID)))
        #expect(shown.map(\.name) == ["Annie", "Bob", "Cy"] && shown.map(\.inserts) == [1, 1, 1])
    }

    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func aDeletionInEachOfTwoStoresComesBackAfterItsCommit(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack(["Config1", "Config2"], kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let item = tx.create(Into<CfgItem>("Config1"))
        let tag = tx.create(Into<CfgTag>("Config1"))
        let note = tx.create(Into<CfgNote>("Config2"))
        tag.item = item
        note.text = "a"
        try tx.commitAndWait()
        tx.delete(item)
        tx.delete(note)
        try tx.commitAndWait()
        tx.undo()
        #expect(tag.item === item && item.tags == [tag] && note.text == "a")
        try tx.commitAndWait()
        #expect(try stack.fetchOne(From<CfgNote>("Config2"))?.text == "a")
        #expect(try stack.fetchOne(From<CfgTag>("Config1"))?.item?.objectID == item.objectID)
        #expect(tx.create(Into<CfgNote>("Config2")).objectID != note.objectID)
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<CfgNote>("Config2")) == 2)
    }

    /// Reads of the store as last committed (`includesPendingChanges =
    /// false`) are not moved by an undo; reads of the pending state,
    /// `fetchExisting` and `edit` follow it.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func readsOfPendingAndCommittedStateFollowAnUndo(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let committed = From<UndoPerson>().tweak { $0.includesPendingChanges = false }
        let ann = tx.create(Into<UndoPerson>())
        ann.name = "Ann"
        try tx.commitAndWait()
        let bob = tx.create(Into<UndoPerson>())
        tx.delete(ann)
        try tx.flush()
        #expect(try tx.fetchAll(From<UndoPerson>()) == [bob] && tx.fetchCount(committed) == 1)
        tx.undo()
        #expect(try tx.fetchAll(From<UndoPerson>()) == [ann] && tx.fetchCount(committed) == 1)
        #expect(try tx.fetchExisting(ann.objectID) === ann && tx.edit(ann.objectID) === ann)
        #expect(try tx.fetchExisting(bob.objectID) == nil && tx.edit(bob.objectID) == nil)
        tx.redo()
        try tx.commitAndWait()
        #expect(try tx.fetchExisting(ann.objectID) == nil && tx.edit(ann.objectID) == nil)
        tx.undo()  // the deletion, committed: ann comes back with her ID
        #expect(try tx.fetchExisting(ann.objectID) === ann && tx.edit(ann.objectID) === ann)
        #expect(try tx.fetchOne(From<UndoPerson>().where(\.$name == "Ann")) === ann)
        #expect(try tx.fetchCount(committed) == 1)  // bob, committed
        #expect(try tx.queryValue(From<UndoPerson>().select(Int.self, .count())) == 1)
        try tx.commitAndWait()
        #expect(try stack.fetchAll(From<UndoPerson>()).map(\.name) == ["Ann"])
    }

    /// Values a flush refuses (a unique clash, and text holding NUL where
    /// the store cannot keep it) go with the group that assigned them.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aValueTheFlushRefusedIsUndoneAndTheFlushGoesOn(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<TxPerson>())
        let bob = tx.create(Into<TxPerson>())
        ann.email = "a"
        bob.email = "b"
        try tx.commitAndWait()
        ann.name = "Ann"
        bob.email = "a"
        #expect(throws: StrataError.self) { try tx.flush() }
        tx.undo()
        #expect(bob.email == "b" && ann.name == "")
        try tx.flush()
        bob.name = "a\u{0}b"
        if kind == .postgreSQL {
            #expect(throws: StrataError.self) { try tx.flush() }
        }
        tx.undo()
        #expect(bob.name == "" && tx.canRedo)
        tx.redo()
        #expect(bob.name == "a\u{0}b")
        tx.undo()
        bob.email = "c"
        try tx.commitAndWait()
        let shown = try stack.fetchAll(From<TxPerson>().orderBy(.ascending(\.$email)))
        #expect(shown.map(\.email) == ["a", "c"] && shown.map(\.name) == ["", ""])
    }

    /// A failed bulk write changes nothing, and leaves the history as it was.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aFailedBulkWriteKeepsTheHistory(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let rex = tx.create(Into<UndoPet>())
        rex.name = "A"
        try tx.flush()
        rex.name = "B"
        #expect(throws: StrataError.self) {
            try tx.updateAll(From<UndoPet>(), .increment(\.$weight, by: .nan))
        }
        #expect(tx.canUndo)
        tx.undo()
        #expect(rex.name == "A")
        tx.undo()
        #expect(rex.isDeletedObject && !tx.canUndo)
        #expect(try tx.commitAndWait() == nil)
    }

    /// Commits that undo earlier ones reach the stack's monitors and a
    /// second stack following the log as what they are: a creation undone
    /// after its commit is deleted, redone it is inserted with its ID.
    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]))
    @MainActor
    func monitorsAndAFollowingStackSeeCommitsThatUndoEarlierOnes(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(undoSchema, kind, in: directory)
        let follower = try makeStack(undoSchema, kind, in: directory)
        let list = try follower.monitorList(From<UndoPerson>().orderBy(.ascending(\.$name)))
        let tx = try stack.beginUnsafe(supportsUndo: true)
        let ann = tx.create(Into<UndoPerson>())
        ann.name = "Ann"
        try tx.commitAndWait()
        let object = try stack.monitorObject(ann.objectID)
        let recorder = UndoObjectRecorder()
        object.addObserver(recorder)
        ann.age = 3
        try tx.commitAndWait()
        tx.undo()
        try tx.commitAndWait()
        #expect(try follower.fetchOne(From<UndoPerson>())?.age == 0 && list.numberOfObjects() == 1)
        tx.undo()
        let deletion = try #require(try tx.commitAndWait())
        #expect(deletion.deletedRowIDs(entity: "UndoPerson") == [ann.objectID.rowID])
        #expect(recorder.events == ["update age", "update age", "delete"] && object.isObjectDeleted)
        #expect(try follower.fetchCount(From<UndoPerson>()) == 0 && list.numberOfObjects() == 0)
        tx.redo()
        let insertion = try #require(try tx.commitAndWait())
        #expect(insertion.insertedRowIDs(entity: "UndoPerson") == [ann.objectID.rowID])
        #expect(try follower.fetchExisting(ann.objectID)?.name == "Ann" && list.numberOfObjects() == 1)
        #expect(try follower.history().map { $0.insertedRowIDs(entity: "UndoPerson").count } == [1, 0, 0, 0, 1])
    }
}

/// What an object monitor reported, in order.
final class UndoObjectRecorder: ObjectObserver {
    var events: [String] = []
    func objectMonitor(_ monitor: ObjectMonitor<UndoPerson>, willUpdateObject object: UndoPerson) {}
    func objectMonitor(
        _ monitor: ObjectMonitor<UndoPerson>, didUpdateObject object: UndoPerson, changedPersistentKeys: Set<String>
    ) {
        events.append("update " + changedPersistentKeys.sorted().joined(separator: ","))
    }
    func objectMonitor(_ monitor: ObjectMonitor<UndoPerson>, didDeleteObject object: UndoPerson) {
        events.append("delete")
    }
}
