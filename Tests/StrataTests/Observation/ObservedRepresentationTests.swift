import Foundation
import Testing

@testable import Strata

/// CoreStore's `ObjectRepresentation` conversions on monitors, publishers and snapshots.
@MainActor
@Suite("ObjectRepresentation: monitors, publishers and snapshots read their object elsewhere")
struct ObservedRepresentationTests {
    /// Whatever stands for Ann reads her as the stack and a transaction have
    /// her, snapshots her there (pending changes included in the
    /// transaction), publishes her, and finds nothing once she is deleted.
    @Test(arguments: StoreKind.allCases)
    func everyRepresentationConvertsTheSameWay(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, ann, _) = try makeObservedPeople(kind, in: directory)
        let person = try #require(try stack.fetchExisting(ann))
        let monitor = try stack.monitorObject(person)
        let publisher = try stack.publishObject(ann)
        let representations: [any ObjectRepresentation<ObsPerson>] = [monitor, publisher, ObjectSnapshot(person)]
        for (number, representation) in representations.enumerated() {
            let age = 50 + number
            #expect(representation.objectID == ann)
            #expect(representation.asReadOnly(in: stack) === person, "\(kind), \(number)")
            let pending = try stack.perform(synchronous: { tx in
                let editable = try #require(representation.asEditable(in: tx))
                editable.age = age
                return representation.asSnapshot(in: tx)?.$age
            })
            #expect(pending == age, "\(kind), \(number): the transaction's snapshot has its change")
            #expect(representation.asSnapshot(in: stack)?.$age == age, "\(kind), \(number)")
            #expect(try representation.asPublisher(in: stack).objectID == ann)
        }
        try stack.perform(synchronous: { tx in tx.delete(tx.edit(ann)!) })
        for (number, representation) in representations.enumerated() {
            #expect(representation.asReadOnly(in: stack) == nil, "\(kind), \(number)")
            #expect(representation.asSnapshot(in: stack) == nil, "\(kind), \(number)")
            #expect(try stack.perform(synchronous: { tx in representation.asEditable(in: tx) == nil }))
        }
    }
}
