import Foundation
import Testing

@testable import Strata

/// Generic code holds objects as `ManagedObject`: a monitor, a publisher and
/// `fetchExisting` of such an object, or of its `ObjectID<ManagedObject>`,
/// find it by its own entity, as they do when it is typed by its class.
@MainActor
@Suite("Observing an object seen as ManagedObject")
struct ObjectSeenAsSuperclassTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func monitorsAndPublishersFollowAnObjectSeenAsManagedObject(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try stack.perform(synchronous: { tx in ZooWorkload.createAnimals(8, in: tx, &random) })
        let shown: [ManagedObject] = try stack.fetchAll(From<ZooAnimal>().orderBy(.ascending(\.$name)))
        let monitors = try shown.map { try stack.monitorObject($0) }
        let publishers = try shown.map { try stack.publishObject($0) }
        let ids: [ObjectID<ManagedObject>] = shown.map { $0.objectID }
        for (index, object) in shown.enumerated() {
            #expect(monitors[index].object === object && !monitors[index].isObjectDeleted)
            #expect(publishers[index].snapshot?.storedValue(forField: "name") == .text("a\(index)"))
            #expect(try stack.fetchExisting(ids[index]) === object)
            #expect(try stack.fetchExisting(object) === object)
        }

        // Rename some, delete others; each monitor and publisher follows its object.
        let fates = shown.indices.map { _ in random.next() % 3 }
        try stack.perform(synchronous: { tx in
            for (index, fate) in fates.enumerated() {
                let animal = try #require(tx.edit(ids[index]) as? ZooAnimal)
                if fate == 1 { animal.name = "renamed\(index)" }
                if fate == 2 { tx.delete(animal) }
            }
        })
        for (index, fate) in fates.enumerated() {
            let name: StoredValue? = fate == 2 ? nil : .text(fate == 1 ? "renamed\(index)" : "a\(index)")
            #expect(monitors[index].isObjectDeleted == (fate == 2), "seed \(seed), animal \(index)")
            #expect(publishers[index].snapshot?.storedValue(forField: "name") == name, "seed \(seed)")
            #expect((try stack.fetchExisting(ids[index]) == nil) == (fate == 2))
        }
    }
}
