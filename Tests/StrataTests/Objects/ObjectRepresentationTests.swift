import Foundation
@testable import Strata
import Testing

/// CoreStore's per-object spellings (`asReadOnly`, `asEditable`,
/// `asSnapshot`, `asPublisher`) give what the stack's and transaction's own
/// calls give; without an argument, what the object's own context gives.
@MainActor
@Suite("ManagedObject: CoreStore's asReadOnly, asEditable, asSnapshot, asPublisher")
struct ObjectRepresentationTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func eachSpellingAgreesWithTheCallItNames(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        let ranks = (0..<20).map { _ in Int(random.next() % 100) }
        let ids = try stack.perform(synchronous: { tx in
            ranks.map { rank in
                let item = tx.create(Into<MonItem>())
                item.rank = rank
                return item.objectID
            }
        })
        let shown = try ids.map { try #require(try stack.fetchExisting($0)) }
        for (item, rank) in zip(shown, ranks) {
            #expect(item.asReadOnly(in: stack) === item)
            #expect(item.asSnapshot(in: stack) == ObjectSnapshot(item) && item.asSnapshot(in: stack)?.$rank == rank)
            #expect(item.asSnapshot() == ObjectSnapshot(item), "its own context's, the main context")
        }
        let publisher = try shown[0].asPublisher(in: stack)
        #expect(publisher.snapshot?.$rank == ranks[0])
        let ownPublisher = try #require(shown[1].asPublisher())
        #expect(ownPublisher.snapshot == ObjectSnapshot(shown[1]))
        let unsafe = try stack.beginUnsafe()
        #expect(unsafe.edit(shown[1])?.asPublisher() == nil, "a transaction's object: asPublisher(in:) names the stack")
        unsafe.rollback()
        // Each object raised or deleted at random, through its transaction instance.
        let deleted = Set(ids.indices.filter { _ in random.next() % 3 == 0 })
        try stack.perform(synchronous: { tx in
            for (index, item) in shown.enumerated() {
                let editable = try #require(item.asEditable(in: tx))
                #expect(editable === tx.edit(item) && editable !== item)
                if deleted.contains(index) {
                    tx.delete(editable)
                    #expect(item.asEditable(in: tx) == nil && item.asSnapshot(in: tx) == nil)
                    #expect(editable.asSnapshot() == nil, "deleted in its own context")
                } else {
                    editable.rank += 1
                    #expect(item.asSnapshot(in: tx)?.$rank == ranks[index] + 1, "the pending change")
                    #expect(editable.asSnapshot() == item.asSnapshot(in: tx), "its own context's, the transaction")
                    #expect(item.asSnapshot(in: stack)?.$rank == ranks[index], "not yet in the main context")
                }
            }
        })
        for (index, item) in shown.enumerated() {
            if deleted.contains(index) {
                #expect(item.asReadOnly(in: stack) == nil && item.asSnapshot(in: stack) == nil, "seed \(seed)")
                #expect(item.asSnapshot() == nil && item.asPublisher() == nil)
            } else {
                #expect(item.asReadOnly(in: stack) === item && item.asSnapshot(in: stack)?.$rank == ranks[index] + 1)
                #expect(item.asSnapshot()?.$rank == ranks[index] + 1)
                #expect(item.asPublisher()?.snapshot == item.asSnapshot())
            }
        }
        #expect(publisher.snapshot?.$rank == (deleted.contains(0) ? nil : ranks[0] + 1), "seed \(seed)")
        #expect(ownPublisher.snapshot?.$rank == (deleted.contains(1) ? nil : ranks[1] + 1), "seed \(seed)")
        withExtendedLifetime(directory) {}
    }
}
