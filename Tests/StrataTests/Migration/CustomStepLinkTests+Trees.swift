import Foundation
@testable import Strata
import Testing

// Links to and from the objects of a subentity that a custom step transforms,
// where the relationships are declared on, or point at, its base entity:
// Kennel.residents ↔ Creature.kennels (a many-to-many), Kennel.favorite (a
// to-one without inverse) and Kennel.lineup (an ordered to-many without
// inverse) all reach Whelps through Creature.

class LinkCreatureV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("kennels", inverse: \LinkKennelV1.$residents) var kennels: Set<LinkKennelV1>
}

final class LinkWhelpV1: LinkCreatureV1 {
    @Field.Stored("age") var age: Int = 0
}

final class LinkKennelV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("residents") var residents: Set<LinkCreatureV1>
    @Field.Relationship("favorite") var favorite: LinkCreatureV1?
    @Field.Relationship("lineup") var lineup: [LinkCreatureV1]
}

class LinkCreatureV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("kennels", inverse: \LinkKennelV2.$residents) var kennels: Set<LinkKennelV2>
}

final class LinkWhelpV2: LinkCreatureV2 {
    @Field.Stored("age") var age: Int = 0
}

final class LinkKennelV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("residents") var residents: Set<LinkCreatureV2>
    @Field.Relationship("favorite") var favorite: LinkCreatureV2?
    @Field.Relationship("lineup") var lineup: [LinkCreatureV2]
}

private let kennelsV1 = Schema("V1", entities: [
    Entity<LinkCreatureV1>("Creature"), Entity<LinkWhelpV1>("Whelp"),
    Entity<LinkKennelV1>("Kennel"),
])
private let kennelsV2 = Schema("V2", entities: [
    Entity<LinkCreatureV2>("Creature"), Entity<LinkWhelpV2>("Whelp"),
    Entity<LinkKennelV2>("Kennel"),
])

extension CustomStepLinkTests {
    /// A transformer that drops some objects of a subentity takes their
    /// links with them, also those of relationships declared on, or
    /// pointing at, its base entity; every other link stays, in its order.
    @Test(arguments: migratingKinds)
    func linksOfDroppedSubentityObjectsGoThroughTheirBase(kind: StoreKind) throws {
        for _ in 0..<4 {
            let random = SplitMix64.random()
            try checkKennels(kind: kind, seed: random.seed)
        }
    }

    private func checkKennels(kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let creatureCount = Int.random(in: 0...6, using: &random)
        let whelpCount = Int.random(in: 0...6, using: &random)
        let kennelCount = Int.random(in: 0...4, using: &random)
        let keep = (0..<whelpCount).map { _ in Bool.random(using: &random) }
        let animals = creatureCount + whelpCount  // creatures first, then whelps
        let residents = (0..<kennelCount).map { _ in
            (0..<animals).filter { _ in Bool.random(using: &random) }
        }
        let favorites = (0..<kennelCount).map { _ -> Int? in
            guard animals > 0, Bool.random(using: &random) else { return nil }
            return Int.random(in: 0..<animals, using: &random)
        }
        let lineups = (0..<kennelCount).map { _ in
            (0..<animals).filter { _ in Bool.random(using: &random) }.shuffled(using: &random)
        }
        do {
            let stack = DataStack(kennelsV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                let creatures: [LinkCreatureV1] = (0..<creatureCount).map { index in
                    let creature = tx.create(Into<LinkCreatureV1>())
                    creature.name = "C\(index)"
                    return creature
                } + (0..<whelpCount).map { index in
                    let whelp = tx.create(Into<LinkWhelpV1>())
                    whelp.name = "W\(index)"
                    whelp.keep = keep[index]
                    return whelp
                }
                for index in 0..<kennelCount {
                    let kennel = tx.create(Into<LinkKennelV1>())
                    kennel.name = "K\(index)"
                    kennel.residents = Set(residents[index].map { creatures[$0] })
                    kennel.favorite = favorites[index].map { creatures[$0] }
                    kennel.lineup = lineups[index].map { creatures[$0] }
                }
            })
            try stack.removeStorage()
        }
        func name(_ animal: Int) -> String {
            animal < creatureCount ? "C\(animal)" : "W\(animal - creatureCount)"
        }
        func kept(_ animal: Int) -> Bool { animal < creatureCount || keep[animal - creatureCount] }
        let provider = CustomSchemaMappingProvider(
            from: "V1", to: "V2", entityMappings: [stamping("Whelp", "Whelp", dropping: true)])
        let stack = DataStack(schemaHistory: SchemaHistory(
            [kennelsV1, kennelsV2], chain: ["V1", "V2"], mappingProviders: [provider]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let context = "\(kind), seed \(seed)"
        var expectedLinks: Int64 = 0
        for kennel in try stack.fetchAll(From<LinkKennelV2>()) {
            let index = Int(kennel.name.dropFirst())!
            let expected = Set(residents[index].filter(kept).map(name))
            #expect(Set(kennel.residents.map(\.name)) == expected, "\(kennel.name): \(context)")
            #expect(kennel.favorite?.name == favorites[index].flatMap { kept($0) ? name($0) : nil },
                    "\(kennel.name): \(context)")
            #expect(kennel.lineup.map(\.name) == lineups[index].filter(kept).map(name),
                    "\(kennel.name): \(context)")
            expectedLinks += Int64(expected.count)
        }
        // Queries over the relationships count in the tables, and agree with the objects.
        let kennels = try stack.fetchAll(From<LinkKennelV2>())
        let favored = try stack.fetchAll(From<LinkKennelV2>().where(\.$favorite != nil))
        #expect(Set(favored.map(\.name)) == Set(kennels.filter { $0.favorite != nil }.map(\.name)),
                "Kennel.favorite != nil: \(context)")
        let lined = try stack.fetchAll(
            From<LinkKennelV2>().where(Where<LinkKennelV2>.count(\.$lineup) > 0))
        #expect(Set(lined.map(\.name)) == Set(kennels.filter { !$0.lineup.isEmpty }.map(\.name)),
                "Kennel.lineup.@count > 0: \(context)")
        for creature in try stack.fetchAll(From<LinkCreatureV2>()) {
            let expected = (0..<kennelCount).filter { kennel in
                residents[kennel].contains { name($0) == creature.name }
            }
            #expect(Set(creature.kennels.map(\.name)) == Set(expected.map { "K\($0)" }),
                    "\(creature.name): \(context)")
        }
        let connection = kind == .postgreSQL
            ? try postgreSQLStore(in: directory).settings.openConnection(.inspector)
            : try Connection(path: storeURL(in: directory).path, readOnly: true)
        defer { connection.close() }
        let stored = [
            try connection.scalar("SELECT count(*) FROM \"_strata_link_Creature_kennels\""),
            try connection.scalar("SELECT count(*) FROM \"Kennel\" WHERE \"favorite\" IS NOT NULL"),
            try connection.scalar("SELECT count(*) FROM \"_strata_link_Kennel_lineup\""),
        ]
        let favoritesKept = Int64(favorites.compactMap { $0 }.filter(kept).count)
        let lineupsKept = Int64(lineups.map { $0.filter(kept).count }.reduce(0, +))
        #expect(stored == [.integer(expectedLinks), .integer(favoritesKept), .integer(lineupsKept)],
                "no link is left to an object that is gone: \(context)")
    }
}
