import Foundation
@testable import Strata
import Testing

// V1 → V2 turns to-ones into to-manys, as Core Data's lightweight migration
// allows: Stray.shelter (one-to-many with Shelter.strays) becomes a
// many-to-many, Stray.shelters; Shelter.partner, a to-one with no inverse,
// becomes Shelter.partners, a to-many with no inverse.

final class ShelterV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("strays", inverse: \StrayV1.$shelter) var strays: Set<StrayV1>
    @Field.Relationship("partner") var partner: ShelterV1?
}

final class StrayV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("shelter") var shelter: ShelterV1?
}

final class ShelterV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("strays", inverse: \StrayV2.$shelters) var strays: Set<StrayV2>
    @Field.Relationship("partners", renamingIdentifier: "partner") var partners: Set<ShelterV2>
}

final class StrayV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("shelters", renamingIdentifier: "shelter") var shelters: Set<ShelterV2>
}

// An ordered one-to-many (Ranch.horses ↔ Horse.ranch) becomes an ordered
// many-to-many (Horse.ranches).

final class RanchV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("horses", inverse: \HorseV1.$ranch) var horses: [HorseV1]
}

final class HorseV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("ranch") var ranch: RanchV1?
}

final class RanchV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("horses", inverse: \HorseV2.$ranches) var horses: [HorseV2]
}

final class HorseV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("ranches", renamingIdentifier: "ranch") var ranches: Set<RanchV2>
}

private let ranchesV1 = Schema("V1", entities: [Entity<RanchV1>("Ranch"), Entity<HorseV1>("Horse")])
private let ranchesV2 = Schema("V2", entities: [Entity<RanchV2>("Ranch"), Entity<HorseV2>("Horse")])

private let sheltersV1 = Schema("V1", entities: [Entity<ShelterV1>("Shelter"), Entity<StrayV1>("Stray")])
private let sheltersV2 = Schema("V2", entities: [Entity<ShelterV2>("Shelter"), Entity<StrayV2>("Stray")])

@Suite("Migrating a to-one relationship to a to-many")
@MainActor
struct ToManyMigrationTests {
    /// Every link a to-one held is a member of the to-many it became, on
    /// both sides of a many-to-many and for a to-many without an inverse,
    /// instead of the relationship starting empty because its storage moved
    /// from a foreign-key column to a link table.
    @Test(arguments: migratingKinds)
    func everyToOneLinkBecomesAMember(kind: StoreKind) throws {
        for _ in 0..<4 {
            var random = SplitMix64.random()
            let directory = TemporaryDirectory()
            let shelterCount = Int.random(in: 1...5, using: &random)
            let strayCount = Int.random(in: 0...15, using: &random)
            let picks = (0..<(shelterCount + strayCount)).map { _ in Int.random(in: 0...7, using: &random) }
            var shelterOf: [String: String] = [:]
            var partnerOf: [String: String] = [:]
            do {
                let stack = DataStack(sheltersV1)
                try stack.addStorageAndWait(makeStorage(kind, in: directory))
                try stack.perform(synchronous: { tx in
                    var pick = picks.makeIterator()
                    let shelters = (0..<shelterCount).map { index in
                        let shelter = tx.create(Into<ShelterV1>())
                        shelter.name = "S\(index)"
                        return shelter
                    }
                    for shelter in shelters {
                        let choice = pick.next()!
                        shelter.partner = choice < shelterCount ? shelters[choice] : nil
                    }
                    for index in 0..<strayCount {
                        let stray = tx.create(Into<StrayV1>())
                        stray.name = "D\(index)"
                        let choice = pick.next()!
                        stray.shelter = choice < shelterCount ? shelters[choice] : nil
                    }
                })
                for stray in try stack.fetchAll(From<StrayV1>()) { shelterOf[stray.name] = stray.shelter?.name }
                for shelter in try stack.fetchAll(From<ShelterV1>()) {
                    partnerOf[shelter.name] = shelter.partner?.name
                }
                try stack.removeStorage()
            }
            let stack = DataStack(schemaHistory: SchemaHistory([sheltersV1, sheltersV2]))
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            for stray in try stack.fetchAll(From<StrayV2>()) {
                #expect(stray.shelters.map(\.name) == (shelterOf[stray.name].map { [$0] } ?? []),
                        "\(stray.name), seed \(random.seed)")
            }
            for shelter in try stack.fetchAll(From<ShelterV2>()) {
                let strays = Set(shelterOf.filter { $0.value == shelter.name }.keys)
                #expect(Set(shelter.strays.map(\.name)) == strays, "\(shelter.name), seed \(random.seed)")
                #expect(shelter.partners.map(\.name) == (partnerOf[shelter.name].map { [$0] } ?? []),
                        "\(shelter.name), seed \(random.seed)")
            }
        }
    }

    /// An ordered one-to-many made an ordered many-to-many keeps each
    /// owner's members in the order they had.
    @Test(arguments: migratingKinds)
    func anOrderedOneToManyKeepsItsOrderAsAManyToMany(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        var before: [String: [String]] = [:]
        do {
            let stack = DataStack(ranchesV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                let horses = (0..<12).map { index in
                    let horse = tx.create(Into<HorseV1>())
                    horse.name = "H\(index)"
                    return horse
                }.shuffled(using: &random)
                for index in 0..<3 {
                    let ranch = tx.create(Into<RanchV1>())
                    ranch.name = "R\(index)"
                    ranch.horses = Array(horses[(index * 4)..<(index * 4 + index + 2)])
                }
            })
            for ranch in try stack.fetchAll(From<RanchV1>()) { before[ranch.name] = ranch.horses.map(\.name) }
            try stack.removeStorage()
        }
        let stack = DataStack(schemaHistory: SchemaHistory([ranchesV1, ranchesV2]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        for ranch in try stack.fetchAll(From<RanchV2>()) {
            #expect(ranch.horses.map(\.name) == before[ranch.name], "\(ranch.name), seed \(random.seed)")
        }
    }
}
