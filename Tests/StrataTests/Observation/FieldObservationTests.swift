import Foundation
import Testing

@testable import Strata

@MainActor
@Suite("Field observation: object.$field.observe { old, new in }")
struct FieldObservationTests {
    @Test(arguments: StoreKind.allCases)
    func observerGetsOldAndNewValuesOfItsFieldOnly(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(kind, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        var ages: [[Int]] = []
        let token = person.$age.observe { old, new in ages.append([old, new]) }

        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 32 })
        try stack.perform(synchronous: { tx in tx.edit(ann)!.name = "Anne" })  // another field
        try stack.perform(synchronous: { tx in tx.edit(bob)!.age = 50 })  // another object
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 32 })  // no change
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 40 })
        #expect(ages == [[31, 32], [32, 40]])
        #expect(token.isActive)
    }

    @Test func optionalFieldsReportNil() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        var emails: [String] = []
        let token = person.$email.observe { old, new in
            emails.append("\(old ?? "nil")->\(new ?? "nil")")
        }
        try stack.perform(synchronous: { tx in tx.edit(ann)!.email = "a@b.c" })
        try stack.perform(synchronous: { tx in tx.edit(ann)!.email = nil })
        #expect(emails == ["nil->a@b.c", "a@b.c->nil"])
        token.cancel()
    }

    @Test func releasingOrCancellingTheTokenStopsTheObservation() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        var released: [Int] = []
        var cancelled: [Int] = []
        var token: FieldObservation? = person.$age.observe { _, new in released.append(new) }
        let other = person.$age.observe { _, new in cancelled.append(new) }

        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 1 })
        token = nil
        other.cancel()
        #expect(!other.isActive)
        try stack.perform(synchronous: { tx in tx.edit(ann)!.age = 2 })
        #expect(released == [1])
        #expect(cancelled == [1])
        #expect(token == nil)
    }

    @Test func deletionEndsTheObservation() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        var calls = 0
        let token = person.$name.observe { _, _ in calls += 1 }
        try stack.perform(synchronous: { tx in tx.delete(ann) })
        #expect(calls == 0)
        #expect(!token.isActive)
    }

    /// A wipe or a bulk delete that empties the entity lists only the rows
    /// the main context holds; an observation does not hold its object, and
    /// still ends.
    @Test(arguments: StoreKind.allCases)
    func emptyingTheEntityEndsTheObservationOfAnObjectNoLongerHeld(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, bob) = try makeObservedPeople(kind, in: directory)
        var tokens: [FieldObservation] = []
        for id in [ann, bob] {
            tokens.append(try #require(try stack.fetchExisting(id)).$age.observe { _, _ in })
        }
        #expect(try stack.fetchCount(From<ObsPerson>()) == 2)  // the objects are released
        let deleted = try stack.perform(synchronous: { tx in
            try tx.deleteAll(From<ObsPerson>().where(\.$name == "Bob"))
        })
        #expect(deleted == 1)
        #expect(tokens.map(\.isActive) == [true, false])
        try stack.wipeAllData()
        #expect(tokens.map(\.isActive) == [false, false])
    }

    @Test func projectedValueStillNamesTheFieldInQueries() throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(.inMemory, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        #expect(person.$age.name == "age")
        #expect(person.$age.enclosingObject === person)
        let keyPath: KeyPath<ObsPerson, Field.Stored<Int>> = \.$age
        #expect(person[keyPath: keyPath].enclosingObject === person)
        let adults = try stack.fetchAll(
            From<ObsPerson>().where(\.$age > 35).orderBy(.ascending(\.$name)))
        #expect(adults.map(\.name) == ["Bob"])
    }

    @Test func observingAnObjectNotOfTheMainContextTraps() async {
        let detached = await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            await MainActor.run {
                _ = ObsPerson().$age.observe { _, _ in }
            }
        }
        let transaction = await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            try await MainActor.run {
                let directory = TemporaryDirectory()
                let stack = try makeStack(observationSchema, .inMemory, in: directory)
                let person = try stack.perform(synchronous: { tx in tx.create(Into<ObsPerson>()) })
                _ = person.$age.observe { _, _ in }
            }
        }
        for result in [detached, transaction] {
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("observe 'age' on an object of the stack's main context"))
        }
    }
}
