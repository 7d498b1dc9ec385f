import Foundation
@testable import Strata
import Testing

// V1 → V2 makes two to-many relationships ordered (`Set` → `Array`): a
// one-to-many kept by the members' to-one (Keeper.pets ↔ Critter.keeper) and
// a many-to-many kept in a link table (Team.players ↔ Player.teams).

final class KeeperV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("pets", inverse: \CritterV1.$keeper) var pets: Set<CritterV1>
}

final class CritterV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("keeper") var keeper: KeeperV1?
}

final class TeamV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("players", inverse: \PlayerV1.$teams) var players: Set<PlayerV1>
}

final class PlayerV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("teams") var teams: Set<TeamV1>
}

final class KeeperV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("pets", inverse: \CritterV2.$keeper) var pets: [CritterV2]
}

final class CritterV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("keeper") var keeper: KeeperV2?
}

final class TeamV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("players", inverse: \PlayerV2.$teams) var players: [PlayerV2]
}

final class PlayerV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("teams") var teams: Set<TeamV2>
}

private let orderingV1 = Schema("V1", entities: [
    Entity<KeeperV1>("Keeper"), Entity<CritterV1>("Critter"), Entity<TeamV1>("Team"),
    Entity<PlayerV1>("Player"),
])
private let orderingV2 = Schema("V2", entities: [
    Entity<KeeperV2>("Keeper"), Entity<CritterV2>("Critter"), Entity<TeamV2>("Team"),
    Entity<PlayerV2>("Player"),
])

@Suite("Migrating a to-many relationship to an ordered one")
@MainActor
struct OrderedRelationshipMigrationTests {
    /// Writes a random V1 store: keepers with random critters (some with
    /// none), teams with random players. Returns each keeper's and team's
    /// members' names, by name.
    private func writeV1Store(
        _ kind: StoreKind, in directory: TemporaryDirectory, random: inout SplitMix64
    ) throws -> (pets: [String: Set<String>], players: [String: Set<String>]) {
        let stack = DataStack(orderingV1)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let keepers = Int.random(in: 1...4, using: &random)
        let critters = Int.random(in: 0...12, using: &random)
        let teams = Int.random(in: 1...4, using: &random)
        let players = Int.random(in: 0...12, using: &random)
        let choices = (0..<(critters + players * teams)).map { _ in Int.random(in: 0...9, using: &random) }
        try stack.perform(synchronous: { tx in
            var choice = choices.makeIterator()
            let keeperObjects = (0..<keepers).map { index in
                let keeper = tx.create(Into<KeeperV1>())
                keeper.name = "K\(index)"
                return keeper
            }
            for index in 0..<critters {
                let critter = tx.create(Into<CritterV1>())
                critter.name = "C\(index)"
                let pick = choice.next()!
                critter.keeper = pick < keepers ? keeperObjects[pick] : nil
            }
            let teamObjects = (0..<teams).map { index in
                let team = tx.create(Into<TeamV1>())
                team.name = "T\(index)"
                return team
            }
            for index in 0..<players {
                let player = tx.create(Into<PlayerV1>())
                player.name = "P\(index)"
                for team in teamObjects where choice.next()! < 5 { player.teams.insert(team) }
            }
        })
        let pets = Dictionary(uniqueKeysWithValues: try stack.fetchAll(From<KeeperV1>()).map {
            ($0.name, Set($0.pets.map(\.name)))
        })
        let members = Dictionary(uniqueKeysWithValues: try stack.fetchAll(From<TeamV1>()).map {
            ($0.name, Set($0.players.map(\.name)))
        })
        try stack.removeStorage()
        return (pets, members)
    }

    /// The members a relationship held before it became ordered keep their
    /// place in row-ID order, on every engine, and a member added afterwards
    /// from the other side (a critter's keeper set, a player joining a team)
    /// goes last — where SQLite's and PostgreSQL's sort of the `NULL`
    /// positions the migration left put it first on PostgreSQL.
    @Test(arguments: migratingKinds)
    func membersKeepRowIDOrderAndNewMembersGoLast(kind: StoreKind) throws {
        for _ in 0..<4 {
            var random = SplitMix64.random()
            let directory = TemporaryDirectory()
            let before = try writeV1Store(kind, in: directory, random: &random)
            let stack = DataStack(schemaHistory: SchemaHistory([orderingV1, orderingV2]))
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            for keeper in try stack.fetchAll(From<KeeperV2>()) {
                #expect(Set(keeper.pets.map(\.name)) == before.pets[keeper.name], "seed \(random.seed)")
                #expect(keeper.pets.map(\.objectID.rowID) == keeper.pets.map(\.objectID.rowID).sorted(),
                        "\(keeper.name)'s pets in row-ID order, seed \(random.seed)")
            }
            for team in try stack.fetchAll(From<TeamV2>()) {
                #expect(Set(team.players.map(\.name)) == before.players[team.name], "seed \(random.seed)")
                #expect(team.players.map(\.objectID.rowID) == team.players.map(\.objectID.rowID).sorted(),
                        "\(team.name)'s players in row-ID order, seed \(random.seed)")
            }
            try stack.perform(synchronous: { tx in
                for keeper in try tx.fetchAll(From<KeeperV2>()) {
                    let critter = tx.create(Into<CritterV2>())
                    critter.name = "new " + keeper.name
                    critter.keeper = keeper
                }
                for team in try tx.fetchAll(From<TeamV2>()) {
                    let player = tx.create(Into<PlayerV2>())
                    player.name = "new " + team.name
                    player.teams.insert(team)
                }
            })
            for keeper in try stack.fetchAll(From<KeeperV2>()) {
                #expect(keeper.pets.last?.name == "new " + keeper.name, "seed \(random.seed)")
                #expect(keeper.pets.count == (before.pets[keeper.name]?.count ?? 0) + 1)
            }
            for team in try stack.fetchAll(From<TeamV2>()) {
                #expect(team.players.last?.name == "new " + team.name, "seed \(random.seed)")
                #expect(team.players.count == (before.players[team.name]?.count ?? 0) + 1)
            }
        }
    }
}
