import Foundation
import Testing

@testable import Strata

// A transaction lets go of the objects it created once they are written and
// nobody else holds them (Sources/Strata/Context/ObjectContext+Retiring.swift).
// These tests lower the threshold to a few objects, so that retiring happens
// all the time, and check that nothing a user can see changes.

/// What one random transaction did and saw, and what the store holds after it.
private struct Outcome: Equatable {
    var transcript: [String] = []
    var changeSets: [String] = []
    var store: [String] = []
}

/// Listens to a list of animals; records each change set the main context merges.
@MainActor
private final class RetirementChangeLog: ListObserver {
    typealias ListEntityType = Animal
    let stack: DataStack
    var changeSets: [String] = []

    init(_ stack: DataStack) { self.stack = stack }

    func listMonitorDidChange(_ monitor: ListMonitor<Animal>) {
        guard let changeSet = stack.mergingChangeSet else { return }
        for entity in ["Owner", "Animal", "Club"] {
            changeSets.append(
                "\(entity) inserted \(changeSet.insertedRowIDs(entity: entity).sorted()) "
                    + "updated \(changeSet.updatedRowIDs(entity: entity).sorted()) "
                    + "deleted \(changeSet.deletedRowIDs(entity: entity).sorted())")
        }
    }
}

@Suite("Transactions let go of the objects they created once written")
@MainActor
struct InsertRetirementTests {
    /// The same random transaction (creates, objects held and dropped, edits
    /// and deletions of objects read back, relationships, bulk deletes and
    /// updates, reads) run twice on fresh stores: once holding every object,
    /// once retiring them every few objects. Every read in the transaction,
    /// the change set merged, a live list and the committed rows agree.
    @Test(arguments: StoreKind.allCases)
    func retiringChangesNothingATransactionOrItsCommitShows(kind: StoreKind) throws {
        for _ in 0..<4 {
            var seeds = SplitMix64.random()
            let seed = seeds.next()
            let held = try run(seed: seed, kind: kind, threshold: .max)
            let threshold = 2 + Int(seed % 5)
            let retired = try run(seed: seed, kind: kind, threshold: threshold)
            #expect(
                held.transcript == retired.transcript, "seed \(seeds.seed), threshold \(threshold)")
            #expect(
                held.changeSets == retired.changeSets, "seed \(seeds.seed), threshold \(threshold)")
            #expect(held.store == retired.store, "seed \(seeds.seed), threshold \(threshold)")
            #expect(!held.store.isEmpty)
        }
    }

    private func run(seed: UInt64, kind: StoreKind, threshold: Int) throws -> Outcome {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 0..<3 { tx.create(Into<Club>()).title = "club \(index)" }
            for index in 0..<4 { tx.create(Into<Owner>()).name = "o\(index)" }
        })
        let monitor = try stack.monitorList(From<Animal>().orderBy(.ascending(\.$name)))
        let recorder = RetirementChangeLog(stack)
        monitor.addObserver(recorder)
        var outcome = Outcome()
        var random = SplitMix64(seed: seed)
        try stack.perform(synchronous: { tx in
            tx.contexts.primary.insertRetirementThreshold = threshold
            outcome.transcript = try Self.randomSteps(in: tx, &random)
        })
        outcome.changeSets = recorder.changeSets
        let listed = monitor.objectsInAllSections().map(\.objectID)
        let fetched = try stack.fetchAll(From<Animal>().orderBy(.ascending(\.$name))).map(
            \.objectID)
        #expect(listed == fetched, "seed \(seed), threshold \(threshold): the live list")
        outcome.store = try Self.dump(stack)
        return outcome
    }

    private static func randomSteps(in tx: BaseDataTransaction, _ random: inout SplitMix64) throws
        -> [String]
    {
        var transcript: [String] = []
        var held: [ManagedObject] = []
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        func name() -> String {
            "\(["a", "b", "c", "d"][Int(random.next() % 4)])\(random.next() % 50)"
        }
        func any<T: ManagedObject>(_ type: T.Type) throws -> T? {
            let ids = try tx.fetchObjectIDs(From<T>()).sorted { $0.rowID < $1.rowID }
            return ids.isEmpty ? nil : tx.edit(ids[Int(random.next() % UInt64(ids.count))])
        }
        for step in 0..<120 {
            switch random.next() % 14 {
            case 0, 1, 2, 3:
                let animal = tx.create(Into<Animal>())
                animal.name = name()
                if chance(40) { animal.owner = try any(Owner.self) }
                if chance(20) { held.append(animal) }
            case 4:
                let owner = tx.create(Into<Owner>())
                owner.name = name()
                if chance(50), let club = try any(Club.self) { owner.clubs.insert(club) }
                if chance(30) { held.append(owner) }
            case 5:
                try any(Animal.self)?.name = name()
            case 6:
                if let animal = try any(Animal.self), let owner = try any(Owner.self) {
                    owner.queue = owner.queue + [animal]
                }
            case 7:
                if let animal = try any(Animal.self) { tx.delete(animal) }
            case 8:
                if chance(30), let owner = try any(Owner.self) { tx.delete(owner) }
            case 9:
                let prefix = name()
                let count = try tx.deleteAll(
                    From<Animal>().where(\.$name < prefix && \.$name >= String(prefix.prefix(1))))
                transcript.append("\(step) deleteAll \(prefix): \(count)")
            case 10:
                let count = try tx.updateAll(
                    From<Animal>().where(\.$name > name()), .set(\.$name, to: "z\(step)"))
                transcript.append("\(step) updateAll: \(count)")
            case 11:
                held.removeAll { _ in chance(50) }
                for object in held where chance(30) {
                    if let animal = object as? Animal, !animal.isDeletedObject {
                        animal.name = name()
                    }
                }
            case 12:
                transcript.append(
                    "\(step) inserted \(tx.insertedObjectIDs().count) updated \(tx.updatedObjectIDs().count) "
                        + "deleted \(tx.deletedObjectIDs().count) changes \(tx.hasChanges)")
            default:
                let names = try tx.fetchAll(From<Animal>())
                    .sorted { ($0.name, $0.objectID.rowID) < ($1.name, $1.objectID.rowID) }
                    .map { "\($0.name)@\($0.owner?.name ?? "-")" }
                transcript.append("\(step) animals \(names)")
                transcript.append("\(step) owners \(try tx.fetchCount(From<Owner>()))")
            }
        }
        transcript.append("held \(held.filter { !$0.isDeletedObject }.count)")
        return transcript
    }

    /// Every committed row, with its relationships by row ID.
    private static func dump(_ stack: DataStack) throws -> [String] {
        let owners = try stack.fetchAll(From<Owner>()).sorted {
            $0.objectID.rowID < $1.objectID.rowID
        }.map { owner in
            "owner \(owner.objectID.rowID) \(owner.name) queue \(owner.queue.map(\.objectID.rowID)) "
                + "clubs \(owner.clubs.map(\.objectID.rowID).sorted())"
        }
        let animals = try stack.fetchAll(From<Animal>()).sorted {
            $0.objectID.rowID < $1.objectID.rowID
        }.map { animal in
            "animal \(animal.objectID.rowID) \(animal.name) owner \(animal.owner?.objectID.rowID ?? 0) "
                + "queued \(animal.queuedAt?.objectID.rowID ?? 0)"
        }
        return owners + animals
    }

    /// With no one holding them, created objects do not pile up in the
    /// transaction; an object its caller holds stays the very object the
    /// transaction reads, and a retired one comes back as an insert.
    @Test(arguments: StoreKind.allCases)
    func droppedObjectsAreReleasedAndHeldOnesKept(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        weak var firstDropped: Animal?
        try stack.perform(synchronous: { tx in
            let context = tx.contexts.primary
            context.insertRetirementThreshold = 8
            let kept = tx.create(Into<Animal>())
            kept.name = "kept"
            for index in 0..<200 {
                let animal = tx.create(Into<Animal>())
                animal.name = "dropped \(index)"
                if index == 0 { firstDropped = animal }
                #expect(
                    context.registeredCount <= 10,
                    "at \(index): \(context.registeredCount) objects held")
            }
            #expect(firstDropped == nil, "a dropped object, written, is let go of")
            #expect(try tx.fetchOne(From<Animal>().where(\.$name == "kept")) === kept)
            let again = try #require(try tx.fetchOne(From<Animal>().where(\.$name == "dropped 0")))
            again.name = "renamed"
            #expect(tx.insertedObjects(Animal.self).contains(again))
            #expect(tx.updatedObjects(Animal.self).isEmpty)
            #expect(tx.insertedObjectIDs(Animal.self).count == 201)
            #expect(try tx.fetchCount(From<Animal>()) == 201)
        })
        #expect(try stack.fetchCount(From<Animal>()) == 201)
        #expect(try stack.fetchCount(From<Animal>().where(\.$name == "renamed")) == 1)
        #expect(try stack.fetchCount(From<Animal>().where(\.$name == "dropped 0")) == 0)
    }

    /// A transaction that retired objects and is then cancelled leaves
    /// nothing, and one whose flush for retiring meets a unique clash
    /// fails at the commit, as without retiring, with nothing committed.
    @Test(arguments: StoreKind.allCases)
    func cancelledOrFailedTransactionsLeaveNothing(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                tx.contexts.primary.insertRetirementThreshold = 4
                for index in 0..<50 { tx.create(Into<TxPerson>()).name = "p\(index)" }
                #expect(try tx.fetchCount(From<TxPerson>()) == 50)
                try tx.cancel()
            })
        }
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
        let failure = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                tx.contexts.primary.insertRetirementThreshold = 4
                for index in 0..<50 {
                    let person = tx.create(Into<TxPerson>())
                    person.email =
                        index == 1 || index == 2 ? "same@example.com" : "p\(index)@example.com"
                }
            })
        }
        #expect(failure.map { "\($0)".contains("email") } == true, "\(String(describing: failure))")
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
        // The transaction after the failure retires and commits as usual.
        try stack.perform(synchronous: { tx in
            tx.contexts.primary.insertRetirementThreshold = 4
            for index in 0..<50 { tx.create(Into<TxPerson>()).email = "p\(index)@example.com" }
        })
        #expect(try stack.fetchCount(From<TxPerson>()) == 50)
    }
}
