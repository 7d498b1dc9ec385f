import Foundation
import Observation
import Testing

@testable import Strata

/// A flag an `@Sendable` closure can set.
private final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

@MainActor
@Suite("ObjectSnapshot and ObjectPublisher")
struct ObjectPublisherTests {
    // MARK: Snapshots

    @Test func snapshotCopiesTheObjectsValues() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(.inMemory, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        let snapshot = ObjectSnapshot(person)
        #expect(snapshot.$name == "Ann")
        #expect(snapshot.$age == 31)
        #expect(snapshot.$email == nil)
        #expect(snapshot.objectID == ann)
        #expect(snapshot.entityName == "ObsPerson")
        #expect(snapshot.fieldNames.sorted() == ["age", "email", "friend", "name", "score"])
        #expect(snapshot.storedValue(forField: "friend") == .integer(bob.rowID))
        #expect(snapshot.storedValue(forField: "nope") == nil)
        let values = snapshot.dictionaryForValues()
        #expect(values.keys.sorted() == snapshot.fieldNames.sorted())
        #expect(values["name"] == .text("Ann") && values["age"] == .integer(31) && values["email"] == .null)
        #expect(values["friend"] == .integer(bob.rowID))
        #expect(snapshot == ObjectSnapshot(person))

        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 32 })
        #expect(snapshot.$age == 31)  // a value: unchanged by the commit
        #expect(snapshot != ObjectSnapshot(person))
        #expect(ObjectSnapshot(person).$age == 32)
        #expect(Set([snapshot, snapshot, ObjectSnapshot(person)]).count == 2)
    }

    /// A snapshot is a value, as CoreStore's is: random edits set on a `var`
    /// copy read back, leave the original and the object alone, and, made
    /// to the object too, give a copy equal to the object's new snapshot.
    @Test func aSnapshotCopyTakesEditsAndStaysAValue() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        var random = SplitMix64.random()
        for round in 0..<25 {
            let original = ObjectSnapshot(try #require(try stack.fetchExisting(ann)))
            var draft = original
            let name = ["Ann", "Anne", "Ana", "e\u{301}", ""].randomElement(using: &random)!
            let age = Int.random(in: -5...120, using: &random)
            let email = Bool.random(using: &random) ? nil : "a\(round)@example.com"
            draft.$name = name
            draft.$age = age
            draft.$email = email
            let context = "seed \(random.seed) round \(round)"
            #expect(draft.$name == name && draft.$age == age && draft.$email == email, "\(context)")
            #expect(draft.objectID == original.objectID, "\(context)")
            #expect(original == ObjectSnapshot(try #require(try stack.fetchExisting(ann))), "\(context)")
            #expect((draft == original) == (name == original.$name && age == original.$age
                && email == original.$email), "\(context)")
            try stack.perform(synchronous: { tx in
                let person = try #require(tx.edit(ann))
                person.name = name
                person.age = age
                person.email = email
            })
            #expect(draft == ObjectSnapshot(try #require(try stack.fetchExisting(ann))), "\(context)")
        }
    }

    @Test func snapshotCrossesIntoATask() async throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.file, in: directory)
        let snapshot = ObjectSnapshot(try #require(try stack.fetchExisting(ann)))
        let read = await Task.detached { "\(snapshot.$name) \(snapshot.$age) \(snapshot.objectID)" }
            .value
        #expect(read == "Ann 31 \(ann)")
    }

    // MARK: Publisher

    @Test(arguments: StoreKind.allCases)
    func publisherPublishesEachChangeToClosures(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(kind, in: directory)
        let publisher = try stack.publishObject(ann)
        #expect(publisher.snapshot?.$name == "Ann")
        #expect(publisher.objectID == ann)
        #expect(publisher.object === (try stack.fetchExisting(ann)))

        let owner = NSObject()
        var seen: [Int?] = []
        publisher.addObserver(owner, notifyInitial: true) { seen.append($0.snapshot?.$age) }
        #expect(seen == [31])

        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 32 })
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 32 })  // no change
        try stack.perform(synchronous: { tx in tx.edit(bob)!.age = 1 })  // another object
        try stack.perform(synchronous: { tx in tx.edit(ann)!.name = "Anne" })
        #expect(seen == [31, 32, 32])
        #expect(publisher.snapshot?.$name == "Anne")

        publisher.removeObserver(owner)
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 33 })
        #expect(seen == [31, 32, 32])
        #expect(publisher.snapshot?.$age == 33)
    }

    @Test func closureObserversEndWithTheirOwner() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let publisher = try stack.publishObject(ann)
        var owner: NSObject? = NSObject()
        var calls = 0
        publisher.addObserver(owner!) { _ in calls += 1 }
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 1 })
        owner = nil
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 2 })
        #expect(calls == 1)
    }

    @Test func deletionPublishesNilOnce() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let publisher = try stack.publishObject(ann)
        var seen: [String?] = []
        let owner = NSObject()
        publisher.addObserver(owner) { seen.append($0.snapshot?.$name) }
        try stack.perform(synchronous: { tx in tx.delete(ann) })
        try stack.perform(synchronous: { tx in tx.create(Into<ObsPerson>()).name = "Cy" })
        #expect(seen == [nil])
        #expect(publisher.snapshot == nil && publisher.isObjectDeleted && publisher.object == nil)
    }

    /// CoreStore's publisher reads a field as `publisher.$name`, `nil` once
    /// the object is deleted; each read is the current snapshot's, tracked
    /// as reading `snapshot` is.
    @Test(arguments: StoreKind.allCases)
    func fieldsReadThroughThePublisherAreTheSnapshotsThenNil(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(kind, in: directory)
        let publisher = try stack.publishObject(ann)
        var random = SplitMix64.random()
        for round in 0..<10 {
            let age = Int.random(in: 0...99, using: &random)
            let email = Bool.random(using: &random) ? nil : "a\(round)@example.com"
            let changed = Flag()
            let read = withObservationTracking { publisher.$age } onChange: { changed.set() }
            try stack.perform(synchronous: { tx in
                let person = tx.edit(ann)!
                person.age = age
                person.email = email
            })
            let context = "seed \(random.seed), round \(round)"
            #expect(read != nil && (changed.isSet || read == age), "\(context)")
            #expect(publisher.$age == age && publisher.$name == "Ann", "\(context)")
            #expect(publisher.$email == .some(email), "\(context)")
            #expect(publisher.$age == publisher.snapshot?.$age, "\(context)")
        }
        try stack.perform(synchronous: { tx in tx.delete(ann) })
        #expect(publisher.$age == nil && publisher.$name == nil)
        #expect(publisher.$email == nil)
    }

    /// A wipe lists only the objects the main context holds; a publisher
    /// holds its object's values, not the object, and must still end.
    @Test(arguments: StoreKind.allCases)
    func aWipeEndsAPublisherWhoseObjectNobodyHolds(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(kind, in: directory)
        let annPublisher = try stack.publishObject(ann)
        var seen: [String?] = []
        let owner = NSObject()
        annPublisher.addObserver(owner) { seen.append($0.snapshot?.$name) }
        try stack.wipeAllData()
        #expect(seen == [nil])
        #expect(annPublisher.snapshot == nil && annPublisher.isObjectDeleted)
        guard kind != .inMemory else { return }

        // Another stack's wipe, read from the commit log, ends it too.
        let other = try makeStack(observationSchema, kind, in: directory)
        let cy = try other.perform(synchronous: { tx in
            let cy = tx.create(Into<ObsPerson>())
            cy.name = "Cy"
            return cy.objectID
        })
        let cyPublisher = try stack.publishObject(cy)
        #expect(cyPublisher.snapshot?.$name == "Cy")
        try other.wipeAllData()
        _ = try stack.fetchCount(From<ObsPerson>())
        #expect(cyPublisher.isObjectDeleted)
    }

    // MARK: AsyncSequence

    @Test func snapshotsYieldTheCurrentValueThenEachCommit() async throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.file, in: directory)
        let publisher = try stack.publishObject(ann)
        let stream = publisher.snapshots
        let reader = Task { @MainActor in
            var ages: [Int?] = []
            for await snapshot in stream {
                ages.append(snapshot?.$age)
                if ages.count == 4 { break }
            }
            return ages
        }
        for age in 32...34 {
            try await stack.perform { tx in tx.edit(ann)!.age = age }
        }
        #expect(await reader.value == [31, 32, 33, 34])
    }

    @Test func snapshotsFinishAfterDeletion() async throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let publisher = try stack.publishObject(ann)
        let stream = publisher.snapshots
        try await stack.perform { tx in tx.edit(ann)!.name = "Anne" }
        try await stack.perform { tx in tx.delete(ann) }
        var names: [String?] = []
        for await snapshot in stream { names.append(snapshot?.$name) }
        #expect(names == ["Ann", "Anne", nil])

        // A sequence started after the deletion yields nil and ends.
        var late: [String?] = []
        for await snapshot in publisher.snapshots { late.append(snapshot?.$name) }
        #expect(late == [nil])
    }

    @Test func snapshotsFinishWhenThePublisherIsReleased() async throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        var publisher: ObjectPublisher<ObsPerson>? = try stack.publishObject(ann)
        let stream = publisher!.snapshots
        publisher = nil
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1)
    }

    // MARK: Observable

    @Test func readingTheSnapshotIsTrackedAndACommitTriggersOnChange() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(.inMemory, in: directory)
        let publisher = try stack.publishObject(ann)
        let changed = Flag()
        let name = withObservationTracking {
            publisher.snapshot?.$name
        } onChange: {
            changed.set()
        }
        #expect(name == "Ann")

        try stack.perform(synchronous: { tx in tx.edit(bob)!.name = "Robert" })
        #expect(!changed.isSet)
        try stack.perform(synchronous: { tx in tx.edit(ann)!.name = "Anne" })
        #expect(changed.isSet)
    }

    /// A commit that changes only a to-many relationship is a change of the
    /// object: the publisher publishes, as the object monitor reports it and
    /// CoreStore's publisher notifies, a snapshot whose stored values are
    /// the same and whose `$pets` are the new ones.
    @Test(arguments: StoreKind.allCases)
    func aToManyChangeAloneIsPublished(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(kind, in: directory)
        let publisher = try stack.publishObject(ann)
        let before = publisher.snapshot
        var published: [ObjectSnapshot<ObsPerson>?] = []
        publisher.addObserver(self.owner) { published.append($0.snapshot) }
        let changed = Flag()
        withObservationTracking { _ = publisher.snapshot } onChange: { changed.set() }

        let max = try stack.perform(synchronous: { tx in
            let pet = tx.create(Into<ObsPet>())
            pet.name = "Max"
            pet.owner = tx.edit(ann)
            return pet.objectID
        })
        #expect(published.count == 1 && published.last != before)
        #expect(published.last??.dictionaryForValues() == before?.dictionaryForValues())
        #expect(published.last??.$pets.count == 3 && publisher.$pets?.contains { $0.objectID == max } == true)
        #expect(changed.isSet)
        #expect(publisher.object?.pets.count == 3)

        try stack.perform(synchronous: { tx in tx.edit(max)?.owner = tx.edit(bob) })
        #expect(published.count == 2 && published.last == before)
        #expect(publisher.object?.pets.count == 2)

        // Bob's pets changed, not Ann's.
        try stack.perform(synchronous: { tx in tx.delete(max) })
        #expect(published.count == 2)
    }

    private let owner = NSObject()
}
