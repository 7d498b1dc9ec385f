import Foundation
import Testing

@testable import Strata

/// `Into` names the class a transaction creates and the store it goes to, as
/// CoreStore's does: `Into<Base>(Subclass.self)` creates a subentity's object
/// typed as its base entity.
@MainActor
@Suite("Into: the class and the store of a created object")
struct IntoTests {
    /// CoreStore's IntoTests: the class, the configuration, and equality.
    @Test func intoClausesNameTheirClassAndStore() {
        #expect(Into<ZooDog>().entityClass == ZooDog.self)
        #expect(Into<ZooDog>().configuration == nil)
        #expect(Into<ZooAnimal>(ZooDog.self).entityClass == ZooDog.self)
        #expect(Into<ZooDog>("Config1").configuration == "Config1")
        #expect(Into<ZooAnimal>(ZooCat.self, "Config1").entityClass == ZooCat.self)
        #expect(Into<ZooAnimal>(ZooCat.self, "Config1").configuration == "Config1")

        #expect(Into<ZooDog>() == Into<ZooDog>(ZooDog.self))
        #expect(Into<ZooDog>() != Into<ZooDog>("Config1"))
        #expect(Into<ZooDog>() != Into<ZooDog>(nil))
        #expect(Into<ZooDog>("Config1") == Into<ZooDog>(ZooDog.self, "Config1"))
        #expect(Into<ZooDog>("Config1") != Into<ZooDog>("Config2"))
        #expect(Into<ZooAnimal>() != Into<ZooAnimal>(ZooDog.self))
        #expect(Into<ZooAnimal>(ZooDog.self) != Into<ZooAnimal>(ZooCat.self))
        #expect(Set([Into<ZooAnimal>(), Into<ZooAnimal>(ZooAnimal.self), Into<ZooAnimal>(ZooLion.self)]).count == 2)
    }

    /// Seeded: objects created through `Into<ZooAnimal>(kind)` are of that
    /// kind's class, in the transaction and once committed, and a fetch of
    /// each entity counts exactly those of its subtree.
    @Test(arguments: StoreKind.allCases, [UInt64(0x1A70_0001), 0x1A70_0002])
    func intoABaseEntityCreatesTheNamedSubclass(_ kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        var random = SplitMix64(seed: seed)
        let classes: [ZooAnimal.Type] = [ZooAnimal.self, ZooDog.self, ZooCat.self, ZooLion.self]
        let picks = (0..<40).map { _ in Int(random.next() % 4) }
        let created: [String] = try stack.perform(synchronous: { tx in
            picks.enumerated().map { index, pick in
                let into = index % 2 == 0 ? Into<ZooAnimal>(classes[pick]) : Into<ZooAnimal>(classes[pick], nil)
                let animal = tx.create(into)
                animal.name = "a\(index)"
                #expect(type(of: animal) == classes[pick], "seed \(seed) #\(index)")
                return animal.objectID.description
            }
        })
        let fetched = try stack.fetchAll(From<ZooAnimal>().orderBy(.ascending(\.$name)))
        let byName = Dictionary(uniqueKeysWithValues: fetched.map { ($0.name, $0) })
        for (index, pick) in picks.enumerated() {
            let animal = try #require(byName["a\(index)"], "seed \(seed) #\(index)")
            #expect(type(of: animal) == classes[pick], "seed \(seed) #\(index)")
            #expect(animal.objectID.description == created[index], "seed \(seed) #\(index)")
        }
        #expect(try stack.fetchCount(From<ZooDog>()) == picks.filter { $0 == 1 }.count, "seed \(seed)")
        #expect(try stack.fetchCount(From<ZooCat>()) == picks.filter { $0 >= 2 }.count, "seed \(seed)")
        #expect(try stack.fetchCount(From<ZooLion>()) == picks.filter { $0 == 3 }.count, "seed \(seed)")
        #expect(try stack.fetchCount(From<ZooAnimal>()) == picks.count, "seed \(seed)")
    }
}
