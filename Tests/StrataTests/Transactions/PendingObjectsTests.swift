import Testing
@testable import Strata

// The model is `contextSchema` (Context/ContextModels.swift): owners with
// pets (one-to-many, cascade), a queue (ordered) and clubs (many-to-many).

/// The IDs a change set lists as inserted, updated or deleted, over every entity.
private func ids(_ changes: ChangeSet?, _ kind: (ChangeSet, String) -> Set<AnyObjectID>) -> Set<AnyObjectID> {
    guard let changes else { return [] }
    return changes.entityNames.reduce(into: []) { $0.formUnion(kind(changes, $1)) }
}

/// CoreStore's "inspecting pending objects": what a transaction created,
/// changed and deleted before it commits.
@Suite("Transactions: inserted, updated and deleted objects before the commit")
struct PendingObjectsTests {
    /// Random commits touching objects the transaction holds and objects it
    /// only reaches through an inverse (a pet's old owner, a club's member):
    /// before each commit, the pending sets are exactly what the commit's
    /// change set then lists, the typed calls are the untyped ones filtered
    /// by entity, an object has changes exactly when it is in a set, and
    /// after the commit every set is empty and no object has changes.
    @Test(arguments: [UInt64(1), 2, 3])
    @MainActor
    func pendingSetsAreWhatTheCommitThenReports(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, seed == 2 ? .file : .inMemory, in: directory)
        var owners: [ObjectID<Owner>] = []
        var animals: [ObjectID<Animal>] = []
        var clubs: [ObjectID<Club>] = []
        try stack.perform(synchronous: { tx in
            let made = (0..<6).map { index -> Owner in
                let owner = tx.create(Into<Owner>())
                owner.name = "o\(index)"
                return owner
            }
            for index in 0..<30 {
                let animal = tx.create(Into<Animal>())
                animal.name = "a\(index)"
                animal.owner = made[index % made.count]
            }
            for index in 0..<3 {
                let club = tx.create(Into<Club>())
                club.title = "c\(index)"
                club.members = Set(made.filter { _ in random.next() % 2 == 0 })
            }
        })
        let tx = try stack.beginUnsafe()
        for _ in 0..<40 {
            owners = try stack.fetchObjectIDs(From<Owner>())
            animals = try stack.fetchObjectIDs(From<Animal>())
            clubs = try stack.fetchObjectIDs(From<Club>())
            // The main context's objects, some of which the round deletes.
            let shown: [ManagedObject] = try stack.fetchAll(From<Animal>()) + stack.fetchAll(From<Owner>())
            for _ in 0..<Int(1 + random.next() % 5) {
                let animal = animals.randomElement(using: &random).flatMap { tx.edit($0) }
                let owner = owners.randomElement(using: &random).flatMap { tx.edit($0) }
                switch random.next() % 11 {
                case 0:
                    let fresh = tx.create(Into<Animal>())
                    fresh.owner = owner
                case 1:
                    tx.delete(animal)
                case 2:
                    animal?.owner = random.next() % 4 == 0 ? nil : owner
                case 3:
                    owner?.name = "o\(random.next() % 4)"
                case 4:
                    // Set, then set back: no change.
                    if let animal {
                        let name = animal.name
                        animal.name = "changing"
                        animal.name = name
                    }
                case 5:
                    if let club = clubs.randomElement(using: &random).flatMap({ tx.edit($0) }), let owner {
                        if club.members.contains(owner) { club.members.remove(owner) } else { club.members.insert(owner) }
                    }
                case 6:
                    // Created and deleted again: in no set.
                    let brief = tx.create(Into<Animal>())
                    brief.owner = owner
                    tx.delete(brief)
                case 7 where random.next() % 3 == 0:
                    tx.delete(owner)  // its pets go with it
                    if owner != nil {
                        let fresh = tx.create(Into<Owner>())
                        fresh.name = "new"
                    }
                case 9:
                    // Bulk: held objects whose rows change are updated.
                    _ = try tx.deleteAll(From<Animal>().where(\.$name == "a\(random.next() % 30)"))
                case 10:
                    if let owner {
                        _ = try tx.updateAll(
                            From<Animal>().where(\.$name == "a\(random.next() % 30)"), .set(\.$owner, to: owner))
                    }
                default:
                    if let animal, let owner { owner.queue.append(animal) }
                }
            }
            let inserted = tx.insertedObjectIDs()
            let updated = tx.updatedObjectIDs()
            let deleted = tx.deletedObjectIDs()
            #expect(inserted.isDisjoint(with: updated) && inserted.isDisjoint(with: deleted))
            #expect(updated.isDisjoint(with: deleted))
            let typed = tx.insertedObjectIDs(Animal.self).map(\.erased) + tx.insertedObjectIDs(Owner.self).map(\.erased)
                + tx.insertedObjectIDs(Club.self).map(\.erased)
            #expect(Set(typed) == inserted)
            #expect(Set(tx.updatedObjectIDs(Owner.self).map(\.erased))
                == updated.filter { $0.entityName == "Owner" })
            #expect(Set(tx.deletedObjectIDs(Animal.self).map(\.erased))
                == deleted.filter { $0.entityName == "Animal" })
            #expect(Set(tx.updatedObjects(Owner.self).map { $0.objectID.erased })
                == updated.filter { $0.entityName == "Owner" })
            #expect(Set(tx.deletedObjects(Animal.self).map { $0.objectID.erased })
                == deleted.filter { $0.entityName == "Animal" })
            for object in tx.updatedObjects(Owner.self) { #expect(tx.objectHasPersistentChangedValues(object)) }
            #expect(tx.hasChanges == !(inserted.isEmpty && updated.isEmpty && deleted.isEmpty))

            // An object has changes exactly when it is in a set (one created and
            // deleted again, in none, has none).
            let heldObjects = tx.contexts.all.flatMap(\.registeredObjects)
            let pending = inserted.union(updated).union(deleted)
            for object in heldObjects {
                #expect(object.hasChanges == pending.contains(object.objectID.erased), "seed \(seed): \(object)")
            }

            // A bulk write also lists rows no held object stands for; the sets hold objects only.
            let held = Set(heldObjects.map { $0.objectID.erased })
            let changes = try tx.commitAndWait()
            // Committed, nothing is pending: not a deletion either, nor in the main context.
            for object in heldObjects where object.hasChanges { Issue.record("seed \(seed): \(object) after the commit") }
            for object in shown where object.hasChanges { Issue.record("seed \(seed): main context's \(object)") }
            #expect(inserted == ids(changes) { $0.insertedIDs(entity: $1) })
            #expect(updated == ids(changes) { $0.updatedIDs(entity: $1) }.intersection(held))
            #expect(deleted == ids(changes) { $0.deletedIDs(entity: $1) }.intersection(held))
            #expect(tx.insertedObjectIDs().isEmpty && tx.updatedObjectIDs().isEmpty && tx.deletedObjectIDs().isEmpty)
        }
    }

    /// The typed sets hold the transaction's own instances; an object set
    /// back to its old values is not updated; a pet's old owner, never read
    /// in the transaction, is updated (it lost a pet), as Core Data faults it
    /// in to keep the inverse.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func theSetsHoldTheTransactionsInstances(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let (ann, bob, rex) = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            ann.name = "Ann"
            let bob = tx.create(Into<Owner>())
            bob.name = "Bob"
            let rex = tx.create(Into<Animal>())
            rex.owner = ann
            return (ann.objectID, bob.objectID, rex.objectID)
        })
        try stack.perform(synchronous: { tx in
            let rexHere = try #require(tx.edit(rex))
            let bobHere = try #require(tx.edit(bob))
            rexHere.owner = bobHere  // Ann, not read here, loses Rex
            bobHere.name = "Robert"
            bobHere.name = "Bob"
            let tom = tx.create(Into<Animal>())
            #expect(tx.insertedObjects(Animal.self) == [tom])
            #expect(tx.insertedObjects(Owner.self).isEmpty)
            #expect(tx.updatedObjectIDs() == [rex.erased, bob.erased, ann.erased])
            let updatedOwners = tx.updatedObjects(Owner.self)
            #expect(updatedOwners.contains(bobHere))
            #expect(updatedOwners.allSatisfy { tx.edit($0) === $0 }, "the transaction's own instances")
            #expect(tx.objectHasPersistentChangedValues(bobHere), "Bob gained Rex")
            tx.delete(tom, rexHere)
            #expect(tx.insertedObjectIDs().isEmpty)
            #expect(tx.deletedObjectIDs() == [rex.erased])
            #expect(tx.deletedObjects(Animal.self) == [rexHere])
            #expect(tx.updatedObjectIDs() == [bob.erased, ann.erased], "Rex's old and new owners")
        })
        #expect(try stack.fetchExisting(rex) == nil)
        #expect(try stack.fetchExisting(bob)?.name == "Bob")
    }

    /// A deletion is a change only while it is pending, as in Core Data: once
    /// committed, or rolled back (an insert), or merged into the main
    /// context, the deleted object has no changes, though it stays deleted.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func aDeletedObjectHasNoChangesOnceCommittedOrRolledBack(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let ann = try stack.perform(synchronous: { tx in tx.create(Into<Owner>()).objectID })
        let shown = try #require(try stack.fetchExisting(ann))
        let tx = try stack.beginUnsafe()
        let annHere = try #require(tx.edit(ann))
        tx.delete(annHere)
        #expect(annHere.hasChanges && tx.hasChanges)
        try tx.commitAndWait()
        #expect(annHere.isDeletedObject && !annHere.hasChanges, "a committed delete")
        #expect(shown.isDeletedObject && !shown.hasChanges, "the main context's, deleted by the merge")
        #expect(!tx.hasChanges)

        let brief = tx.create(Into<Owner>())
        #expect(brief.hasChanges)
        tx.rollback()
        #expect(brief.isDeletedObject && !brief.hasChanges, "a rolled-back insert")
        #expect(!tx.hasChanges)
    }

    /// Bulk writes over rows the transaction created itself: deleting them
    /// leaves nothing to commit, as deleting them one by one does, while
    /// changing them leaves them inserted. Random rounds of creates (owners
    /// with pets, in new and older clubs), bulk deletes and updates of the
    /// round's rows and sometimes of older ones: `hasChanges` is true
    /// exactly when the commit then reports a change set.
    @Test(arguments: [UInt64(7), 8, 9])
    @MainActor
    func hasChangesIsWhetherTheCommitChangesAnything(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, seed == 8 ? .file : .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 0..<6 { tx.create(Into<Owner>()).name = "old\(index)" }
            tx.create(Into<Club>()).title = "old"
        })
        let tx = try stack.beginUnsafe()
        var seen: Set<Bool> = []
        for round in 0..<60 {
            let tag = "new\(round)"
            let club = tx.create(Into<Club>())
            club.title = tag
            for _ in 0..<Int(1 + random.next() % 3) {
                let owner = tx.create(Into<Owner>())
                owner.name = tag
                tx.create(Into<Animal>()).owner = owner
                club.members.insert(owner)
            }
            _ = try tx.deleteAll(From<Club>().where(\.$title == tag))
            switch random.next() % 6 {
            case 0, 1, 2:
                _ = try tx.deleteAll(From<Owner>().where(\.$name == tag))  // their pets go with them
            case 3:
                _ = try tx.updateAll(From<Owner>().where(\.$name == tag), .set(\.$name, to: tag + "x"))
            case 4:
                _ = try tx.deleteAll(From<Owner>().where(\.$name == tag))
                _ = try tx.updateAll(From<Owner>().where(\.$name == "old\(random.next() % 8)"), .set(\.$name, to: "older"))
            default:
                _ = try tx.deleteAll(From<Owner>().where(\.$name == tag || \.$name == "old\(random.next() % 8)"))
            }
            let expected = tx.hasChanges
            seen.insert(expected)
            let changes = try tx.commitAndWait()
            #expect(expected == (changes != nil), "seed \(seed), round \(round): hasChanges \(expected)")
            #expect(!tx.hasChanges)
        }
        #expect(seen == [true, false], "the rounds met both cases")
    }

    /// `delete(objectIDs:)` deletes those that exist, and `fetchObjectID`
    /// returns the first match's ID in the query's order.
    @Test(arguments: StoreKind.sqlite)
    @MainActor
    func deletingByIDsAndFetchingOneID(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let names = ["d", "a", "c", "b"]
        let ids = try stack.perform(synchronous: { tx in
            names.map { name -> ObjectID<Owner> in
                let owner = tx.create(Into<Owner>())
                owner.name = name
                return owner.objectID
            }
        })
        #expect(try stack.fetchObjectID(From<Owner>().orderBy(.ascending(\.$name))) == ids[1])
        #expect(try stack.fetchObjectID(From<Owner>().where(\.$name == "c")) == ids[2])
        #expect(try stack.fetchObjectID(From<Owner>().where(\.$name == "z")) == nil)
        try stack.perform(synchronous: { tx in
            tx.delete(objectIDs: [ids[0], ids[2]])
            #expect(tx.deletedObjectIDs(Owner.self) == [ids[0], ids[2]])
            let last = try tx.fetchObjectID(From<Owner>().orderBy(.descending(\.$name)))
            #expect(last == ids[3], "the deleted d and c are gone from the transaction's reads")
        })
        try stack.perform(synchronous: { tx in tx.delete(objectIDs: ids) })
        #expect(try stack.fetchCount(From<Owner>()) == 0)
    }
}
