import Foundation
import Testing

@testable import Strata

/// Rule 9 of Docs/Observing.md over random commits: what an `ObjectMonitor`
/// (plain, and following related objects) reports, and what an
/// `ObjectPublisher` of the same object publishes, against a model made by
/// fetching the object and its neighbours before and after each commit.
@MainActor
@Suite("Observing.md Rule 9: object monitors and publishers against a model")
struct ObjectObservingRulesTests {
    /// What the model knows of a person: its stored fields and whom it relates to.
    struct PersonState: Equatable {
        var fields: [String: String]
        var pets: Set<Int64>
        var tags: Set<Int64>
        var friend: Int64?

        init(_ person: ObsPerson) {
            fields = [
                "name": person.name, "age": "\(person.age)", "score": "\(person.score)",
                "email": person.email ?? "nil",
            ]
            pets = Set(person.pets.map(\.rowID))
            tags = Set(person.tags.map(\.rowID))
            friend = person.friend?.rowID
        }

        /// The changed fields and relationships, as `changedPersistentKeys` names them.
        func changedKeys(to next: PersonState) -> Set<String> {
            var keys = Set(fields.keys.filter { fields[$0] != next.fields[$0] })
            if pets != next.pets { keys.insert("pets") }
            if tags != next.tags { keys.insert("tags") }
            if friend != next.friend { keys.insert("friend") }
            return keys
        }
    }

    struct World {
        var people: [Int64: PersonState]
        var pets: [Int64: String]
        /// Each tag's label and people: a tag whose people change is updated too.
        var tags: [Int64: String]
    }

    static func world(_ stack: DataStack) throws -> World {
        World(
            people: Dictionary(
                uniqueKeysWithValues: try stack.fetchAll(From<ObsPerson>()).map {
                    ($0.rowID, PersonState($0))
                }),
            pets: Dictionary(
                uniqueKeysWithValues: try stack.fetchAll(From<ObsPet>()).map { ($0.rowID, $0.name) }
            ),
            tags: Dictionary(
                uniqueKeysWithValues: try stack.fetchAll(From<ObsTag>()).map {
                    ($0.rowID, "\($0.label) \($0.people.map(\.rowID).sorted())")
                }))
    }

    @MainActor
    final class Recorder: ObjectObserver {
        typealias ObjectEntityType = ObsPerson
        var events: [String] = []
        var keys: [Set<String>] = []
        var sawNewValues = true
        var expectedAge: Int?

        func objectMonitor(_ monitor: ObjectMonitor<ObsPerson>, willUpdateObject object: ObsPerson)
        {
            events.append("will")
            if let expectedAge, object.age != expectedAge { sawNewValues = false }
        }
        func objectMonitor(
            _ monitor: ObjectMonitor<ObsPerson>, didUpdateObject object: ObsPerson,
            changedPersistentKeys: Set<String>
        ) {
            events.append("did")
            keys.append(changedPersistentKeys)
        }
        func objectMonitor(_ monitor: ObjectMonitor<ObsPerson>, didDeleteObject object: ObsPerson) {
            events.append("delete")
        }
    }

    /// One random change to the people, pets and tags.
    nonisolated static func change(_ tx: BaseDataTransaction, _ random: inout SplitMix64) throws {
        let people = try tx.fetchAll(From<ObsPerson>())
        let pets = try tx.fetchAll(From<ObsPet>())
        let tags = try tx.fetchAll(From<ObsTag>())
        func any<T: ManagedObject>(_ items: [T]) -> T? {
            let live = items.filter { !$0.isDeletedObject }
            return live.isEmpty ? nil : live[Int(random.next() % UInt64(live.count))]
        }
        for _ in 0..<(1 + Int(random.next() % 3)) {
            switch random.next() % 12 {
            case 0: any(people)?.age = Int(random.next() % 5)
            case 1: any(people)?.email = random.next() % 2 == 0 ? nil : "e\(random.next() % 3)"
            case 2: any(pets)?.name = "p\(random.next() % 4)"
            case 3: any(pets)?.owner = random.next() % 4 == 0 ? nil : any(people)
            case 4:
                let pet = tx.create(Into<ObsPet>())
                pet.name = "new"
                pet.owner = any(people)
            case 5: if let pet = any(pets) { tx.delete(pet) }
            case 6: any(tags)?.label = "t\(random.next() % 4)"
            case 7: if let tag = any(tags), let person = any(people) { tag.people.insert(person) }
            case 8: if let tag = any(tags), let person = any(people) { person.tags.remove(tag) }
            case 9:
                if let person = any(people) {
                    person.friend = random.next() % 3 == 0 ? nil : any(people)
                }
            case 10:
                let person = tx.create(Into<ObsPerson>())
                person.name = "n\(random.next() % 10)"
                if random.next() % 2 == 0 { tx.create(Into<ObsTag>()).people = [person] }
            default: if let tag = any(tags), random.next() % 3 == 0 { tx.delete(tag) }
            }
        }
    }

    @Test(arguments: [UInt64(201), 202, 203, 204])
    func monitorsAndPublishersReportWhatTheModelSays(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.file, in: directory)
        let plain = try stack.monitorObject(ann)
        let related = try stack.monitorObject(ann, observingRelated: \.$pets, \.$tags, \.$friend)
        let publisher = try stack.publishObject(ann)
        let plainRecorder = Recorder()
        let relatedRecorder = Recorder()
        plain.addObserver(plainRecorder)
        related.addObserver(relatedRecorder)
        var publishes = 0
        publisher.addObserver(plainRecorder) { _ in publishes += 1 }
        for commit in 0..<150 {
            let before = try Self.world(stack)
            guard let annBefore = before.people[ann.rowID] else { break }
            plainRecorder.events = []
            relatedRecorder.events = []
            plainRecorder.keys = []
            relatedRecorder.keys = []
            publishes = 0
            // Ann goes late in the run, so that most commits find her.
            try stack.perform(synchronous: { tx in
                try Self.change(tx, &random)
                if commit > 120, random.next() % 10 == 0 { tx.delete(ann) }
            })
            let after = try Self.world(stack)
            let context = "seed \(seed), commit \(commit)"
            guard let annAfter = after.people[ann.rowID] else {
                #expect(
                    plainRecorder.events == ["delete"] && relatedRecorder.events == ["delete"],
                    "\(context)")
                #expect(
                    publishes == 1 && publisher.snapshot == nil && plain.object == nil, "\(context)"
                )
                break
            }
            let own = annBefore.changedKeys(to: annAfter)
            var followed = own
            if !annAfter.pets.allSatisfy({ before.pets[$0] == after.pets[$0] }) {
                followed.insert("pets")
            }
            if !annAfter.tags.allSatisfy({ before.tags[$0] == after.tags[$0] }) {
                followed.insert("tags")
            }
            if let friend = annAfter.friend, before.people[friend] != after.people[friend] {
                followed.insert("friend")
            }
            #expect(
                plainRecorder.events == (own.isEmpty ? [] : ["will", "did"]), "\(context): \(own)")
            #expect(plainRecorder.keys == (own.isEmpty ? [] : [own]), "\(context)")
            #expect(
                relatedRecorder.events == (followed.isEmpty ? [] : ["will", "did"]),
                "\(context): \(followed)")
            #expect(relatedRecorder.keys == (followed.isEmpty ? [] : [followed]), "\(context)")
            // The publisher publishes for the commits the plain monitor reports, with the new values.
            #expect(publishes == (own.isEmpty ? 0 : 1), "\(context): \(own)")
            let snapshot = try #require(publisher.snapshot, "\(context)")
            #expect(
                snapshot.$age == Int(annAfter.fields["age"]!)
                    && snapshot.$email == plain.object?.email, "\(context)")
            #expect(
                Set((publisher.$pets ?? []).map(\.objectID.rowID)) == annAfter.pets, "\(context)")
            #expect(
                Set((publisher.$tags ?? []).map(\.objectID.rowID)) == annAfter.tags, "\(context)")
            #expect(publisher.$friend?.objectID.rowID == annAfter.friend, "\(context)")
        }
    }

    /// Rule 9's field observations over random commits, this stack's and a
    /// second stack's on the same file: each call reports one commit's old
    /// and new value of a field that changed, every such change is reported
    /// once, and a deleted object's observation stops (`isActive` false).
    @Test(arguments: [(UInt64(211), false), (212, false), (213, true), (214, true)])
    func fieldObservationsReportEachChangeOnce(seed: UInt64, foreign: Bool) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        let writer = foreign ? try makeStack(monitorSchema, .file, in: directory) : stack
        try MonWorkload.seed(writer, count: 12, random: &random)
        let items = try stack.fetchAll(From<MonItem>())
        var reports: [Int64: [String]] = [:]
        var tokens: [Int64: (FieldObservation, FieldObservation)] = [:]
        for item in items {
            let rowID = item.rowID
            tokens[rowID] = (
                item.$rank.observe { old, new in
                    reports[rowID, default: []].append("rank \(old) \(new)")
                },
                item.$label.observe { old, new in
                    reports[rowID, default: []].append("label \(old ?? "nil") \(new ?? "nil")")
                }
            )
        }
        for commit in 0..<60 {
            let before = Dictionary(
                uniqueKeysWithValues: try stack.fetchAll(From<MonItem>()).map {
                    ($0.rowID, ItemValues($0))
                })
            reports = [:]
            try writer.perform(synchronous: { tx in try randomCommit(tx, &random) })
            let after = Dictionary(
                uniqueKeysWithValues: try stack.fetchAll(From<MonItem>()).map {
                    ($0.rowID, ItemValues($0))
                })
            for item in items {
                let context =
                    "seed \(seed)\(foreign ? " foreign" : ""), commit \(commit), row \(item.rowID)"
                guard let old = before[item.rowID] else { continue }
                guard let new = after[item.rowID] else {
                    #expect(reports[item.rowID] == nil, "\(context): deleted")
                    #expect(
                        tokens[item.rowID].map { !$0.0.isActive && !$0.1.isActive } == true,
                        "\(context)")
                    continue
                }
                var expected: [String] = []
                if old.rank != new.rank { expected.append("rank \(old.rank) \(new.rank)") }
                if old.label != new.label {
                    expected.append("label \(old.label ?? "nil") \(new.label ?? "nil")")
                }
                #expect((reports[item.rowID] ?? []).sorted() == expected.sorted(), "\(context)")
            }
        }
    }
}
