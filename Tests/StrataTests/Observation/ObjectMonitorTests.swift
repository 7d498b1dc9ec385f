import Foundation
import Testing

@testable import Strata

final class ObsPerson: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("email") var email: String? = nil
    @Field.Relationship("pets", inverse: \ObsPet.$owner, deleteRule: .cascade) var pets: Set<ObsPet>
    @Field.Relationship("tags", inverse: \ObsTag.$people) var tags: Set<ObsTag>
    @Field.Relationship("friend") var friend: ObsPerson?
}

final class ObsPet: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: ObsPerson?
}

final class ObsTag: ManagedObject {
    @Field.Stored("label") var label: String = ""
    @Field.Relationship("people") var people: Set<ObsPerson>
}

final class ObsOther: ManagedObject {
    @Field.Stored("value") var value: Int = 0
}

let observationSchema = Schema(
    "Obs1",
    entities: [
        Entity<ObsPerson>("ObsPerson"), Entity<ObsPet>("ObsPet"), Entity<ObsTag>("ObsTag"),
        Entity<ObsOther>("ObsOther"),
    ])

/// Ann (31, pets Rex and Tom, tag "red", friend Bob) and Bob (40, pet Kit).
@MainActor
func makeObservedPeople(_ kind: StoreKind, in directory: TemporaryDirectory) throws
    -> (DataStack, ann: ObjectID<ObsPerson>, bob: ObjectID<ObsPerson>)
{
    let stack = try makeStack(observationSchema, kind, in: directory)
    let (ann, bob) = try stack.perform(synchronous: { tx in
        let ann = tx.create(Into<ObsPerson>())
        ann.name = "Ann"
        ann.age = 31
        let bob = tx.create(Into<ObsPerson>())
        bob.name = "Bob"
        bob.age = 40
        ann.friend = bob
        for (name, owner) in [("Rex", ann), ("Tom", ann), ("Kit", bob)] {
            let pet = tx.create(Into<ObsPet>())
            pet.name = name
            pet.owner = owner
        }
        let red = tx.create(Into<ObsTag>())
        red.label = "red"
        ann.tags = [red]
        tx.create(Into<ObsTag>()).label = "blue"
        tx.create(Into<ObsOther>()).value = 1
        return (ann.objectID, bob.objectID)
    })
    return (stack, ann, bob)
}

/// Records an object monitor's callbacks as strings.
@MainActor
final class ObjectEventRecorder: ObjectObserver {
    typealias ObjectEntityType = ObsPerson
    var events: [String] = []

    func objectMonitor(_ monitor: ObjectMonitor<ObsPerson>, willUpdateObject object: ObsPerson) {
        events.append("will")
    }

    func objectMonitor(
        _ monitor: ObjectMonitor<ObsPerson>, didUpdateObject object: ObsPerson,
        changedPersistentKeys: Set<String>
    ) {
        events.append("did " + changedPersistentKeys.sorted().joined(separator: ","))
    }

    func objectMonitor(_ monitor: ObjectMonitor<ObsPerson>, didDeleteObject object: ObsPerson) {
        events.append("delete \(object.name)")
    }

    /// The events since the last call.
    func take() -> [String] {
        defer { events = [] }
        return events
    }
}

@MainActor
@Suite("ObjectMonitor: updates, deletion and related objects from change sets")
struct ObjectMonitorTests {
    @Test(arguments: StoreKind.allCases)
    func updatesReportExactlyTheChangedKeys(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(kind, in: directory)
        let monitor = try stack.monitorObject(ann)
        let recorder = ObjectEventRecorder()
        monitor.addObserver(recorder)

        try stack.perform(synchronous: { tx in tx.edit(ann)!.name = "Anne" })
        #expect(recorder.take() == ["will", "did name"])
        #expect(monitor.object?.name == "Anne")

        try stack.perform(synchronous: { tx in
            let person = tx.edit(ann)!
            person.age = 32
            person.score = 1.5
        })
        #expect(recorder.take() == ["will", "did age,score"])

        try stack.perform(synchronous: { tx in
            let person = tx.edit(ann)!
            person.age = 32  // the value it already holds
            person.name = "Anne"
        })
        #expect(recorder.take() == [])

        try stack.perform(synchronous: { tx in tx.edit(ann)!.friend = nil })
        #expect(recorder.take() == ["will", "did friend"])

        try stack.perform(synchronous: { tx in
            let pet = tx.create(Into<ObsPet>())
            pet.name = "Max"
            pet.owner = tx.edit(ann)
        })
        #expect(recorder.take() == ["will", "did pets"])

        try stack.perform(synchronous: { tx in
            tx.edit(ann)!.email = "ann@example.com"
            tx.edit(bob)!.age = 41
        })
        #expect(recorder.take() == ["will", "did email"])
    }

    @Test(arguments: StoreKind.allCases)
    func deletionEmptiesTheMonitorAndIsReportedOnce(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(kind, in: directory)
        let monitor = try stack.monitorObject(ann)
        let recorder = ObjectEventRecorder()
        monitor.addObserver(recorder)
        #expect(!monitor.isObjectDeleted)

        try stack.perform(synchronous: { tx in tx.delete(ann) })
        #expect(recorder.take() == ["delete Ann"])
        #expect(monitor.object == nil)
        #expect(monitor.isObjectDeleted)

        try stack.perform(synchronous: { tx in tx.create(Into<ObsPerson>()).name = "Cy" })
        #expect(recorder.take() == [])

        let gone = try stack.monitorObject(ann)
        #expect(gone.object == nil && gone.isObjectDeleted)
    }

    @Test func changesToOtherObjectsAndEntitiesSendNothing() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(.inMemory, in: directory)
        let monitor = try stack.monitorObject(ann)
        let recorder = ObjectEventRecorder()
        monitor.addObserver(recorder)

        try stack.perform(synchronous: { tx in
            tx.edit(bob)!.name = "Robert"
            try tx.fetchOne(From<ObsOther>())!.value = 2
            tx.create(Into<ObsTag>()).label = "green"
            try tx.fetchOne(From<ObsPet>().where(\.$name == "Kit"))!.name = "Kitty"
        })
        #expect(recorder.take() == [])
    }

    @Test func monitorIgnoresACommitItsObjectAlreadyReflects() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.file, in: directory)
        // Committed, but its change set still waits for the main actor.
        let before = stack.mergedGeneration
        stack.perform(asynchronous: { tx in tx.edit(ann)!.age = 50 }, completion: { _ in })
        stack.transactionQueue.sync {}
        #expect(stack.mergedGeneration == before)

        let monitor = try stack.monitorObject(ann)  // reads the committed row: age 50
        #expect(monitor.object?.age == 50)
        let recorder = ObjectEventRecorder()
        monitor.addObserver(recorder)
        stack.mergePendingChangeSets()
        #expect(recorder.take() == [])

        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 51 })
        #expect(recorder.take() == ["will", "did age"])
    }

    @Test func monitorCreatedAfterACommitDoesNotReportIt() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 60 })
        let monitor = try stack.monitorObject(ann)
        let recorder = ObjectEventRecorder()
        monitor.addObserver(recorder)
        // A change set at or below the monitor's generation is ignored, even replayed.
        let replay = ChangeSet(
            generation: monitor.generation, author: nil, date: Date(), isLocal: true,
            changes: [
                "ObsPerson": .init(updated: [
                    ann.rowID: .init(values: monitor.object!.values, changedFields: ["age"])
                ])
            ], configuration: nil)
        monitor.didMerge(replay)
        #expect(recorder.take() == [])
    }

    @Test func monitorHoldsTheMainContextInstance() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let transactionObject = try stack.perform(synchronous: { tx in tx.edit(ann)! })
        let monitor = try stack.monitorObject(transactionObject)
        let mainObject = try stack.fetchExisting(ann)
        #expect(monitor.object === mainObject)
        #expect(monitor.objectID == ann)
        #expect(try stack.monitorObject(ann).object === mainObject)
    }

    @Test func observersAreHeldWeaklyAndSeveralAreCalled() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let monitor = try stack.monitorObject(ann)
        let first = ObjectEventRecorder()
        var second: ObjectEventRecorder? = ObjectEventRecorder()
        weak let weakSecond = second
        monitor.addObserver(first)
        monitor.addObserver(second!)
        monitor.addObserver(first)  // once only

        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 1 })
        #expect(first.take() == ["will", "did age"])
        #expect(second!.take() == ["will", "did age"])

        second = nil
        #expect(weakSecond == nil)
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 2 })
        #expect(first.take() == ["will", "did age"])

        monitor.removeObserver(first)
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 3 })
        #expect(first.take() == [])
    }

    @Test func releasedMonitorStopsFollowing() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let recorder = ObjectEventRecorder()
        var monitor: ObjectMonitor<ObsPerson>? = try stack.monitorObject(ann)
        weak let weakMonitor = monitor
        monitor!.addObserver(recorder)
        monitor = nil
        #expect(weakMonitor == nil)
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 9 })
        #expect(recorder.take() == [])
    }

    // MARK: Related objects (opt-in)

    @Test(arguments: StoreKind.allCases)
    func relatedObjectsNotifyUnderTheRelationshipName(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(kind, in: directory)
        let monitor = try stack.monitorObject(ann, observingRelated: \.$pets, \.$tags, \.$friend)
        #expect(monitor.observedRelationships == ["pets", "tags", "friend"])
        let recorder = ObjectEventRecorder()
        monitor.addObserver(recorder)
        let plain = try stack.monitorObject(ann)
        let plainRecorder = ObjectEventRecorder()
        plain.addObserver(plainRecorder)

        func pet(_ name: String, _ tx: BaseDataTransaction) throws -> ObsPet {
            try tx.fetchOne(From<ObsPet>().where(\.$name == name))!
        }

        // A related object's update: only the opted-in monitor hears it.
        try stack.perform(synchronous: { tx in try pet("Rex", tx).name = "Rexy" })
        #expect(recorder.take() == ["will", "did pets"])
        #expect(plainRecorder.take() == [])

        // An unrelated pet.
        try stack.perform(synchronous: { tx in try pet("Kit", tx).name = "Kitty" })
        #expect(recorder.take() == [])

        // A pet joins: membership changes, and the new member is followed from then on.
        // It leaves Bob, Ann's friend, whose "pets" change: so "friend" is reported too.
        try stack.perform(synchronous: { tx in try pet("Kitty", tx).owner = tx.edit(ann) })
        #expect(recorder.take() == ["will", "did friend,pets"])
        try stack.perform(synchronous: { tx in try pet("Kitty", tx).name = "Kat" })
        #expect(recorder.take() == ["will", "did pets"])

        // A pet leaves (for Bob, the friend), and is no longer followed.
        try stack.perform(synchronous: { tx in try pet("Tom", tx).owner = tx.edit(bob) })
        #expect(recorder.take() == ["will", "did friend,pets"])
        try stack.perform(synchronous: { tx in try pet("Tom", tx).name = "Thomas" })
        #expect(recorder.take() == [])

        // A member deleted.
        try stack.perform(synchronous: { tx in tx.delete(try pet("Kat", tx)) })
        #expect(recorder.take() == ["will", "did pets"])

        // Many-to-many through a link table.
        try stack.perform(synchronous: { tx in
            try tx.fetchOne(From<ObsTag>().where(\.$label == "red"))!.label = "crimson"
        })
        #expect(recorder.take() == ["will", "did tags"])
        try stack.perform(synchronous: { tx in
            try tx.fetchOne(From<ObsTag>().where(\.$label == "blue"))!.label = "navy"
        })
        #expect(recorder.take() == [])
        try stack.perform(synchronous: { tx in
            let navy = try tx.fetchOne(From<ObsTag>().where(\.$label == "navy"))!
            tx.edit(ann)!.tags.insert(navy)
        })
        #expect(recorder.take() == ["will", "did tags"])
        try stack.perform(synchronous: { tx in
            try tx.fetchOne(From<ObsTag>().where(\.$label == "navy"))!.label = "blue"
        })
        #expect(recorder.take() == ["will", "did tags"])

        // To-one: the friend's own change, then a new friend.
        try stack.perform(synchronous: { tx in tx.edit(bob)!.age = 41 })
        #expect(recorder.take() == ["will", "did friend"])
        try stack.perform(synchronous: { tx in
            let cy = tx.create(Into<ObsPerson>())
            cy.name = "Cy"
            tx.edit(ann)!.friend = cy
        })
        #expect(recorder.take() == ["will", "did friend"])
        try stack.perform(synchronous: { tx in tx.edit(bob)!.age = 42 })
        #expect(recorder.take() == [])

        // The object's own change and a related one in one commit: one event, both keys.
        try stack.perform(synchronous: { tx in
            tx.edit(ann)!.age = 70
            try pet("Rexy", tx).name = "Rex"
        })
        #expect(recorder.take() == ["will", "did age,pets"])
    }

    /// An observer that removes itself in `willUpdateObject`, as a screen
    /// closing would: it gets no `didUpdateObject` for that commit, nor anything after.
    @Test(arguments: StoreKind.allCases)
    func anObserverRemovedInWillUpdateGetsNothingMore(_ kind: StoreKind) throws {
        @MainActor
        final class Remover: ObjectObserver {
            typealias ObjectEntityType = ObsPerson
            var events: [String] = []
            func objectMonitor(_ monitor: ObjectMonitor<ObsPerson>, willUpdateObject object: ObsPerson) {
                events.append("will")
                monitor.removeObserver(self)
            }
            func objectMonitor(
                _ monitor: ObjectMonitor<ObsPerson>, didUpdateObject object: ObsPerson, changedPersistentKeys: Set<String>
            ) {
                events.append("did")
            }
        }
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(kind, in: directory)
        let monitor = try stack.monitorObject(ann)
        let remover = Remover()
        let recorder = ObjectEventRecorder()
        monitor.addObserver(remover)
        monitor.addObserver(recorder)
        try stack.perform(synchronous: { tx in tx.edit(ann)?.age = 1 })
        #expect(remover.events == ["will"])
        #expect(recorder.take() == ["will", "did age"])
        try stack.perform(synchronous: { tx in tx.edit(ann)?.age = 2 })
        #expect(remover.events == ["will"])
    }
}
