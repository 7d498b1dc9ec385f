import Foundation
import Testing

@testable import Strata

final class SnapOwner: ManagedObject {
    @Field.Stored("name") var name: String = ""
    /// One-to-many: the foreign key is the pet's `owner`.
    @Field.Relationship("pets", inverse: \SnapPet.$owner) var pets: Set<SnapPet>
    /// Ordered one-to-many: the pet's `queuedBy` and a position column.
    @Field.Relationship("queue", inverse: \SnapPet.$queuedBy) var queue: [SnapPet]
    /// Many-to-many: a link table.
    @Field.Relationship("tags", inverse: \SnapTag.$owners) var tags: Set<SnapTag>
    /// A to-one without inverse: a foreign key in the owner's row.
    @Field.Relationship("best") var best: SnapPet?
    /// One-to-one: a foreign key on each side, kept in step.
    @Field.Relationship("badge", inverse: \SnapBadge.$holder) var badge: SnapBadge?
}

final class SnapPet: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: SnapOwner?
    @Field.Relationship("queuedBy") var queuedBy: SnapOwner?
}

final class SnapTag: ManagedObject {
    @Field.Stored("label") var label: String = ""
    @Field.Relationship("owners") var owners: Set<SnapOwner>
}

final class SnapBadge: ManagedObject {
    @Field.Stored("number") var number: Int = 0
    @Field.Relationship("holder") var holder: SnapOwner?
}

let snapshotRelationshipSchema = Schema(
    "Snap1",
    entities: [
        Entity<SnapOwner>("SnapOwner"), Entity<SnapPet>("SnapPet"), Entity<SnapTag>("SnapTag"),
        Entity<SnapBadge>("SnapBadge"),
    ])

/// What an owner's relationships hold, as IDs, read from a fresh fetch.
private struct OwnerRelations: Equatable, CustomStringConvertible {
    var pets: Set<ObjectID<SnapPet>>
    var queue: [ObjectID<SnapPet>]
    var tags: Set<ObjectID<SnapTag>>
    var best: ObjectID<SnapPet>?
    var badge: ObjectID<SnapBadge>?

    /// Read from the main context's object.
    @MainActor init(_ owner: SnapOwner) {
        pets = Set(owner.pets.map(\.objectID))
        queue = owner.queue.map(\.objectID)
        tags = Set(owner.tags.map(\.objectID))
        best = owner.best?.objectID
        badge = owner.badge?.objectID
    }

    /// Read from a snapshot's relationship publishers.
    @MainActor init(_ snapshot: ObjectSnapshot<SnapOwner>) {
        pets = Set(snapshot.$pets.map(\.objectID))
        queue = snapshot.$queue.map(\.objectID)
        tags = Set(snapshot.$tags.map(\.objectID))
        best = snapshot.$best?.objectID
        badge = snapshot.$badge?.objectID
    }

    var description: String {
        "pets \(pets.map(\.rowID).sorted()), queue \(queue.map(\.rowID)), tags \(tags.map(\.rowID).sorted()), "
            + "best \(best.map { "\($0.rowID)" } ?? "nil"), badge \(badge.map { "\($0.rowID)" } ?? "nil")"
    }
}

@MainActor
@Suite("ObjectSnapshot: relationships as publishers, as they were when the snapshot was made")
struct ObjectSnapshotRelationshipTests {
    /// An owner and a pet that is its own, committed.
    @MainActor
    static func ownerWithPet(in stack: DataStack) throws -> (ObjectID<SnapOwner>, ObjectID<SnapPet>) {
        try stack.perform(synchronous: { tx in
            let owner = tx.create(Into<SnapOwner>())
            let pet = tx.create(Into<SnapPet>())
            pet.owner = owner
            return (owner.objectID, pet.objectID)
        })
    }

    /// Random commits change every kind of relationship from either side.
    /// After each, a snapshot of each owner (made with `ObjectSnapshot(_:)`,
    /// and the one its publisher published) reads, as IDs, what a fresh
    /// fetch reads; every snapshot kept from earlier rounds still reads what
    /// the fetch read then, whatever commits came after.
    @Test(arguments: StoreKind.allCases, [UInt64(0x5A01), 0x5A02, 0x5A03])
    func relationshipsReadAsTheyWereWhenTheSnapshotWasMade(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(snapshotRelationshipSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for number in 0..<3 { tx.create(Into<SnapOwner>()).name = "owner \(number)" }
            for number in 0..<6 { tx.create(Into<SnapPet>()).name = "pet \(number)" }
            for number in 0..<4 { tx.create(Into<SnapTag>()).label = "tag \(number)" }
            for number in 0..<3 { tx.create(Into<SnapBadge>()).number = number }
        })
        let owners = try stack.fetchObjectIDs(From<SnapOwner>())
        let publishers = try owners.map { try stack.publishObject($0) }
        var kept: [(round: Int, snapshot: ObjectSnapshot<SnapOwner>, relations: OwnerRelations)] =
            []
        for round in 0..<30 {
            let choice = random.next() % 7
            let pick = random.next()
            try stack.perform(synchronous: { tx in
                let owners = try tx.fetchAll(From<SnapOwner>())
                let pets = try tx.fetchAll(From<SnapPet>())
                let tags = try tx.fetchAll(From<SnapTag>())
                let badges = try tx.fetchAll(From<SnapBadge>())
                var local = SplitMix64(seed: pick)
                let owner = owners.randomElement(using: &local)!
                let someOwner =
                    Bool.random(using: &local) ? nil : owners.randomElement(using: &local)
                switch choice {
                case 0: pets.randomElement(using: &local)!.owner = someOwner
                case 1:
                    owner.queue = Array(pets.shuffled(using: &local).prefix(Int(local.next() % 4)))
                case 2: owner.tags = Set(tags.filter { _ in Bool.random(using: &local) })
                case 3:
                    tags.randomElement(using: &local)!.owners = Set(
                        owners.filter { _ in Bool.random(using: &local) })
                case 4:
                    owner.best =
                        Bool.random(using: &local) ? nil : pets.randomElement(using: &local)
                case 5: badges.randomElement(using: &local)!.holder = someOwner
                default:
                    // A pet goes and another comes: kept snapshots still name the deleted one.
                    tx.delete(pets.randomElement(using: &local)!)
                    tx.create(Into<SnapPet>()).name = "pet \(round)"
                }
            })
            for (index, id) in owners.enumerated() {
                let owner = try #require(try stack.fetchExisting(id))
                let fresh = OwnerRelations(owner)
                let snapshot = ObjectSnapshot(owner)
                let context = "\(kind), seed \(seed), round \(round), \(id)"
                #expect(OwnerRelations(snapshot) == fresh, "\(context)")
                #expect(
                    publishers[index].snapshot == snapshot, "\(context): the publisher's snapshot")
                kept.append((round, snapshot, fresh))
            }
            // Every fifth round and the last: each kept snapshot is read after
            // many commits either way, at a fraction of the quadratic cost.
            for old in kept where round % 5 == 4 {
                #expect(
                    OwnerRelations(old.snapshot) == old.relations,
                    "\(kind), seed \(seed): a snapshot of round \(old.round) read in round \(round)"
                )
            }
        }
    }

    /// A pet's to-one relationships are in its row: a snapshot of it reads
    /// them without a query, and a publisher of it costs no statement per
    /// commit; an owner's to-many relationships (pets, queue, tags; every
    /// to-one, the one-to-one `badge` too, is a foreign key in the row) cost
    /// one query each, per snapshot and per published commit.
    // SQLite only: statements are recorded by SQLite's trace hook.
    @Test(arguments: StoreKind.sqlite)
    func onlyRelationshipsOutsideTheRowCostAQuery(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(snapshotRelationshipSchema, kind, in: directory)
        let (ownerID, petID) = try Self.ownerWithPet(in: stack)
        let ownerEntity = try #require(snapshotRelationshipSchema.entity(named: "SnapOwner"))
        let outsideTheRow = ownerEntity.relationships.values.filter {
            if case .foreignKey = $0.storage { return false } else { return true }
        }
        #expect(Set(outsideTheRow.map(\.name)) == ["pets", "queue", "tags"])
        let pet = try #require(try stack.fetchExisting(petID))
        let owner = try #require(try stack.fetchExisting(ownerID))
        let log = RecordedStatements()
        try stack.recordStatements { log.record($0) }
        defer { try? stack.recordStatements(nil) }

        let petSnapshot = ObjectSnapshot(pet)
        #expect(log.all.isEmpty, "\(log.all)")
        #expect(petSnapshot.linked.isEmpty)
        _ = ObjectSnapshot(owner)
        #expect(log.all.count == 3, "\(log.all)")
        // Only the related objects' IDs are read: no object is made for them.
        #expect(log.all.allSatisfy { $0.hasPrefix("SELECT _pk FROM") }, "\(log.all)")

        /// The rows a commit renaming the pet and the owner reads, and the
        /// merge after it (the transaction reads the two it edits).
        func statementsOfACommit(_ number: Int) throws -> Int {
            let before = log.all.count
            try stack.perform(synchronous: { tx in
                tx.edit(petID)!.name = "pet \(number)"
                tx.edit(ownerID)!.name = "owner \(number)"
            })
            return log.all[before...].filter { $0.hasPrefix("SELECT _pk") }.count
        }
        let unobserved = try statementsOfACommit(0)
        let petPublisher = try stack.publishObject(petID)
        #expect(try statementsOfACommit(1) == unobserved)
        #expect(petPublisher.snapshot?.$name == "pet 1")
        let ownerPublisher = try stack.publishObject(ownerID)
        let observed = try statementsOfACommit(2)
        #expect(observed == unobserved + 3, "\(unobserved) + 3: \(log.all.suffix(16))")
        #expect(ownerPublisher.snapshot?.$name == "owner 2")
        #expect(petSnapshot.$owner?.objectID == ownerID)
    }

    /// Publishers compare by object and stack, as in CoreStore: two
    /// publishers of one object are equal (and hash alike) though they are
    /// two instances; another object's, or another stack's, differ.
    @Test(arguments: StoreKind.allCases)
    func publishersAreEqualByObjectAndStack(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(snapshotRelationshipSchema, kind, in: directory)
        let (first, second) = try stack.perform(synchronous: { tx in
            (tx.create(Into<SnapPet>()).objectID, tx.create(Into<SnapPet>()).objectID)
        })
        let one = try stack.publishObject(first)
        let again = try stack.publishObject(try #require(try stack.fetchExisting(first)))
        let other = try stack.publishObject(second)
        #expect(one == again && one.hashValue == again.hashValue)
        #expect(one !== again)
        #expect(one != other)
        #expect(Set([one, again, other]).count == 2)

        let otherDirectory = TemporaryDirectory()
        let otherStack = try makeStack(snapshotRelationshipSchema, .inMemory, in: otherDirectory)
        let sameIDs = try otherStack.perform(synchronous: { tx in
            tx.create(Into<SnapPet>()).objectID
        })
        // The same ID in another stack (row 1 of each) is another object.
        let elsewhere = try otherStack.publishObject(sameIDs)
        #expect(elsewhere != one)
        #expect(sameIDs.rowID != first.rowID || elsewhere.objectID == one.objectID)
    }

    /// A snapshot crosses to another task and back; its relationships still
    /// read through the stack it came from, and a deleted owner's pet reads
    /// the owner's publisher, whose snapshot is then `nil`.
    @Test(arguments: StoreKind.allCases)
    func aSnapshotSentAwayReadsItsRelationshipsOnTheMainActor(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(snapshotRelationshipSchema, kind, in: directory)
        let (ownerID, petID) = try stack.perform(synchronous: { tx in
            let owner = tx.create(Into<SnapOwner>())
            owner.name = "Ann"
            let pet = tx.create(Into<SnapPet>())
            pet.owner = owner
            owner.queue = [pet]
            return (owner.objectID, pet.objectID)
        })
        let snapshot = ObjectSnapshot(try #require(try stack.fetchExisting(petID)))
        let returned = await Task.detached { snapshot }.value
        #expect(returned.$owner?.$name == "Ann")
        #expect(returned.$queuedBy?.objectID == ownerID)

        let ownerSnapshot = try #require(try stack.publishObject(ownerID).snapshot)
        try stack.perform(synchronous: { tx in tx.delete(tx.edit(ownerID)!) })
        let owner = try #require(returned.$owner)
        #expect(owner.objectID == ownerID)
        #expect(owner.snapshot == nil && owner.isObjectDeleted)
        #expect(ownerSnapshot.$pets.map(\.objectID) == [petID])
        #expect(ownerSnapshot.$queue.map(\.objectID) == [petID])
    }

    /// A publisher reads relationships from its current snapshot, `nil` once
    /// the object is deleted.
    @Test(arguments: StoreKind.allCases)
    func aPublisherReadsRelationshipsOfItsSnapshot(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(snapshotRelationshipSchema, kind, in: directory)
        let (ownerID, petID) = try Self.ownerWithPet(in: stack)
        let owner = try stack.publishObject(ownerID)
        let pet = try stack.publishObject(petID)
        #expect(owner.$pets?.map(\.objectID) == [petID])
        #expect(owner.$queue?.isEmpty == true)
        #expect(pet.$owner?.objectID == ownerID)
        try stack.perform(synchronous: { tx in tx.edit(petID)!.queuedBy = tx.edit(ownerID) })
        #expect(owner.$queue?.map(\.objectID) == [petID])
        try stack.perform(synchronous: { tx in tx.delete(tx.edit(ownerID)!) })
        #expect(owner.$pets == nil && owner.$best == nil)
        #expect(pet.$owner == nil)
    }

    /// Related objects of subentities are published by their own entity's
    /// ID, as a fetch names them: a keeper's ordered animals and its
    /// favorite (a foreign key to the base entity), also once deleted.
    @Test(arguments: StoreKind.allCases)
    func relatedSubentityObjectsKeepTheirOwnEntity(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        let keeperID = try stack.perform(synchronous: { tx in
            let keeper = tx.create(Into<ZooKeeper>())
            let dog = tx.create(Into<ZooDog>())
            let lion = tx.create(Into<ZooLion>())
            let animal = tx.create(Into<ZooAnimal>())
            keeper.animals = [lion, animal, dog]
            keeper.favorite = lion
            return keeper.objectID
        })
        let keeper = try #require(try stack.fetchExisting(keeperID))
        let animals = keeper.animals.map(\.objectID)
        let favorite = try #require(keeper.favorite?.objectID)
        #expect(animals.map(\.entityName) == ["ZooLion", "ZooAnimal", "ZooDog"])
        let snapshot = ObjectSnapshot(keeper)
        #expect(snapshot.$animals.map(\.objectID) == animals)
        #expect(snapshot.$favorite?.objectID == favorite)
        #expect(snapshot.$favorite?.snapshot?.$name == "")

        try stack.perform(synchronous: { tx in tx.delete(tx.edit(favorite)!) })
        #expect(snapshot.$animals.map(\.objectID) == animals)
        #expect(snapshot.$animals.map(\.isObjectDeleted) == [true, false, false])
        // Deleted, the favorite is named by the relationship's target entity.
        #expect(snapshot.$favorite?.objectID.rowID == favorite.rowID)
        #expect(snapshot.$favorite?.isObjectDeleted == true)
    }

    /// A snapshot kept after its stack is gone has no stack to publish
    /// through: its relationships read as empty, its stored values as ever.
    @Test func aSnapshotOutlivingItsStackReadsNoRelationships() throws {
        var snapshot: ObjectSnapshot<SnapOwner>?
        do {
            let directory = TemporaryDirectory()
            let stack = try makeStack(snapshotRelationshipSchema, .inMemory, in: directory)
            let ownerID = try stack.perform(synchronous: { tx in
                let owner = tx.create(Into<SnapOwner>())
                owner.name = "Ann"
                let pet = tx.create(Into<SnapPet>())
                pet.owner = owner
                owner.best = pet
                return owner.objectID
            })
            snapshot = ObjectSnapshot(try #require(try stack.fetchExisting(ownerID)))
            #expect(snapshot?.$pets.count == 1 && snapshot?.$best != nil)
        }
        let kept = try #require(snapshot)
        #expect(kept.$name == "Ann")
        #expect(kept.$pets.isEmpty && kept.$best == nil)
    }
}
