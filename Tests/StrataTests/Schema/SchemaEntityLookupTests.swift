@testable import Strata
import Testing

// Twenty one-field entities: enough for schemas on both sides of the size up
// to which `Schema` finds a class's entity by scanning (16).

private final class Lookup00: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup01: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup02: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup03: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup04: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup05: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup06: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup07: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup08: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup09: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup10: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup11: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup12: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup13: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup14: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup15: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup16: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup17: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup18: ManagedObject { @Field.Stored("n") var n: Int = 0 }
private final class Lookup19: ManagedObject { @Field.Stored("n") var n: Int = 0 }

/// Each class with the entity that declares it, by index.
private func lookupEntities() -> [(type: ManagedObject.Type, entity: any AnyEntity)] { [
    (Lookup00.self, Entity<Lookup00>("Lookup00")), (Lookup01.self, Entity<Lookup01>("Lookup01")),
    (Lookup02.self, Entity<Lookup02>("Lookup02")), (Lookup03.self, Entity<Lookup03>("Lookup03")),
    (Lookup04.self, Entity<Lookup04>("Lookup04")), (Lookup05.self, Entity<Lookup05>("Lookup05")),
    (Lookup06.self, Entity<Lookup06>("Lookup06")), (Lookup07.self, Entity<Lookup07>("Lookup07")),
    (Lookup08.self, Entity<Lookup08>("Lookup08")), (Lookup09.self, Entity<Lookup09>("Lookup09")),
    (Lookup10.self, Entity<Lookup10>("Lookup10")), (Lookup11.self, Entity<Lookup11>("Lookup11")),
    (Lookup12.self, Entity<Lookup12>("Lookup12")), (Lookup13.self, Entity<Lookup13>("Lookup13")),
    (Lookup14.self, Entity<Lookup14>("Lookup14")), (Lookup15.self, Entity<Lookup15>("Lookup15")),
    (Lookup16.self, Entity<Lookup16>("Lookup16")), (Lookup17.self, Entity<Lookup17>("Lookup17")),
    (Lookup18.self, Entity<Lookup18>("Lookup18")), (Lookup19.self, Entity<Lookup19>("Lookup19")),
] }

@Suite("Schema: finding a class's entity")
struct SchemaEntityLookupTests {
    /// The unretained look-up `create` uses finds what `entity(for:)` finds,
    /// for every class in or outside schemas of 1 to 20 entities in random
    /// order (scanned up to 16, hashed past that).
    @Test(arguments: 0..<40)
    func theUnretainedLookUpFindsWhatEntityForFinds(seed: UInt64) throws {
        let lookupEntities = lookupEntities()
        var random = SplitMix64(seed: seed)
        let size = seed < 20
            ? Int(seed) + 1 : Int.random(in: 1...lookupEntities.count, using: &random)
        let chosen = Array(lookupEntities.indices.shuffled(using: &random).prefix(size))
        let schema = Schema("L\(seed)", entities: chosen.map { lookupEntities[$0].entity })
        for (index, (type, _)) in lookupEntities.enumerated() {
            let expected = schema.entity(for: type)
            let found = schema.unretainedEntity(for: type)?.takeUnretainedValue()
            #expect(found === expected, "seed \(seed): \(type) in a schema of \(size)")
            #expect((expected != nil) == chosen.contains(index), "seed \(seed): \(type)")
        }
    }
}
