import Foundation
import Testing
@testable import Strata

// `Entity(indexes:uniqueConstraints:)`: indexes and unique constraints over
// several fields, as CoreStore declares them.

final class Player: ManagedObject {
    @Field.Stored("team") var team: String? = nil
    @Field.Stored("number") var number: Int? = nil
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("club") var club: PlayerClub?
}

final class PlayerClub: ManagedObject {
    @Field.Stored("title") var title: String = ""
    @Field.Relationship("players", inverse: \Player.$club) var players: Set<Player>
}

func playerSchema(_ version: String = "P1", unique: Bool = true) -> Schema {
    Schema(version, entities: [
        Entity<Player>(
            "Player", indexes: [[\.$name, \.$club]],
            uniqueConstraints: unique ? [[\.$team, \.$number]] : []),
        Entity<PlayerClub>("PlayerClub"),
    ])
}

/// Names long enough that PostgreSQL, which cuts identifiers at 63 bytes,
/// would make two of its indexes one.
final class AnEntityWithANameLongEnoughForPostgreSQLToCutIt: ManagedObject {
    @Field.Stored("aFieldWithALongishNameNumberOne") var first: String? = nil
    @Field.Stored("aFieldWithALongishNameNumberTwo") var second: String? = nil
    @Field.Stored("aFieldWithALongishNameNumberThree") var third: String? = nil
}

let longNamesSchema = Schema("L1", entities: [
    Entity<AnEntityWithANameLongEnoughForPostgreSQLToCutIt>(
        "AnEntityWithANameLongEnoughForPostgreSQLToCutIt",
        indexes: [[\.$first, \.$second], [\.$first, \.$third]], uniqueConstraints: [[\.$second, \.$third]]),
])

/// A base with a constraint, and a subentity that one configuration holds without it.
class ConstrainedBase: ManagedObject {
    @Field.Stored("a") var a: String? = nil
    @Field.Stored("b") var b: String? = nil
}

final class ConstrainedSub: ConstrainedBase {}

/// A subentity with constraints of its own, over an inherited field and its own.
final class ConstrainedLeaf: ConstrainedBase {
    @Field.Stored("c") var c: String? = nil
    @Field.Stored("serial", .unique) var serial: Int? = nil
}

/// A player's team and number.
private struct Pair: Hashable, Sendable {
    var team: String?
    var number: Int?
}

/// The state a refused transaction tried to reach, told by its closure.
private let attemptedState = Locked<[Int64: Pair]>([:])

/// Whether the players' (team, number) pairs with no `nil` are all different.
private func isValid(_ pairs: [Int64: Pair]) -> Bool {
    let full = pairs.values.filter { $0.team != nil && $0.number != nil }
    return Set(full).count == full.count
}

@Suite("Indexes and unique constraints over several fields")
struct CompoundIndexTests {
    /// Random transactions of inserts, updates (swaps included) and deletes:
    /// each commits exactly when its final state has no two players sharing
    /// a team and a number (a `nil` never clashes), and the store then
    /// holds exactly the model's players; a refused one changes nothing and
    /// names both fields.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aTransactionCommitsExactlyWhenItsFinalStateIsUnique(_ kind: StoreKind) throws {
        var random = SplitMix64(seed: 7)
        let directory = TemporaryDirectory()
        let stack = try makeStack(playerSchema(), kind, in: directory)
        var model: [Int64: Pair] = [:]
        var commits = 0, refusals = 0
        for _ in 0..<60 {
            let ids = Array(model.keys).sorted()
            var operations: [(kind: UInt64, pick: UInt64, pair: Pair)] = []
            for _ in 0..<Int(1 + random.next() % 4) {
                let kind = random.next() % 5, pick = random.next()
                let team = random.next() % 6 == 0 ? nil : ["red", "blue"][Int(random.next() % 2)]
                let number = random.next() % 6 == 0 ? nil : Int(random.next() % 4)
                operations.append((kind, pick, Pair(team: team, number: number)))
            }
            let before = model
            var attempted = model
            do {
                attempted = try stack.perform(synchronous: { tx in
                    var next = before
                    for operation in operations {
                        let picked = ids.isEmpty ? nil : ids[Int(operation.pick % UInt64(ids.count))]
                        switch operation.kind {
                        case 0, 1:
                            let player = tx.create(Into<Player>())
                            player.team = operation.pair.team
                            player.number = operation.pair.number
                            next[player.objectID.rowID] = operation.pair
                        case 2:
                            guard let picked, next[picked] != nil,
                                  let player = tx.edit(ObjectID<Player>(entityName: "Player", rowID: picked))
                            else { continue }
                            player.team = operation.pair.team
                            player.number = operation.pair.number
                            next[picked] = operation.pair
                        case 3:
                            // Two players swap their pairs: valid before and after.
                            let other = ids.isEmpty ? nil : ids[Int(operation.pick / 7 % UInt64(ids.count))]
                            guard let picked, let other, picked != other,
                                  let first = next[picked], let second = next[other],
                                  let a = tx.edit(ObjectID<Player>(entityName: "Player", rowID: picked)),
                                  let b = tx.edit(ObjectID<Player>(entityName: "Player", rowID: other))
                            else { continue }
                            (a.team, a.number, b.team, b.number) = (second.team, second.number, first.team, first.number)
                            (next[picked], next[other]) = (second, first)
                        default:
                            guard let picked, next[picked] != nil else { continue }
                            tx.delete(ObjectID<Player>(entityName: "Player", rowID: picked))
                            next[picked] = nil
                        }
                    }
                    attemptedState.withLock { $0 = next }
                    return next
                })
                #expect(isValid(attempted), "committed a clash")
                model = attempted
                commits += 1
            } catch {
                guard case .uniqueConstraintViolation(let entity, let fields) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(!isValid(attemptedState.withLock { $0 }), "refused a state without a clash")
                #expect(entity == "Player" && Set(fields) == ["team", "number"])
                refusals += 1
            }
            let stored = try stack.fetchAll(From<Player>())
            #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.objectID.rowID, Pair(team: $0.team, number: $0.number)) })
                == model)
        }
        #expect(commits > 10 && refusals > 5, "both outcomes were exercised")
        // A swap alone, where each update on its own would clash.
        let pair = try stack.perform(synchronous: { tx in
            _ = try tx.deleteAll(From<Player>())
            let a = tx.create(Into<Player>()), b = tx.create(Into<Player>())
            (a.team, a.number, b.team, b.number) = ("red", 1, "red", 2)
            return (a.objectID, b.objectID)
        })
        try stack.perform(synchronous: { tx in
            tx.edit(pair.0)?.number = 2
            tx.edit(pair.1)?.number = 1
        })
        #expect(try stack.fetchExisting(pair.0)?.number == 2)
    }

    /// The indexes are in the store under their own names, the unique one
    /// unique; a migration that adds the constraint builds it when the rows
    /// allow it, and fails leaving the old version when two rows clash.
    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]))
    @MainActor
    func aMigrationAddsTheConstraintOnlyWhenTheRowsAllowIt(_ kind: StoreKind) throws {
        for clashing in [false, true] {
            let directory = TemporaryDirectory()
            do {
                let old = try makeStack(playerSchema("P1", unique: false), kind, in: directory)
                try old.perform(synchronous: { tx in
                    for number in 0..<5 {
                        let player = tx.create(Into<Player>())
                        player.team = "red"
                        player.number = clashing && number == 4 ? 3 : number
                    }
                })
            }
            let stack = DataStack(schemaHistory: SchemaHistory(
                [playerSchema("P1", unique: false), playerSchema("P2")], chain: ["P1", "P2"]))
            if clashing {
                #expect(performing: { try stack.addStorageAndWait(makeStorage(kind, in: directory)) }, throws: { error in
                    guard case .migrationFailed("P1", "P2", "Player", nil, let reason)? = error as? StrataError
                    else { return false }
                    return reason.contains("(team, number)")
                })
                let reopened = try makeStack(playerSchema("P1", unique: false), kind, in: directory)
                #expect(try reopened.fetchCount(From<Player>()) == 5, "the old version, untouched")
                continue
            }
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            #expect(try stack.fetchCount(From<Player>()) == 5)
            let storage = try makeStorage(kind, in: directory)
            let connection = try storage.settings.openConnection(.inspector)
            defer { connection.close() }
            let indexes = try connection.indexes(of: "Player")
            #expect(indexes["Player__team__number_unique"] == true)
            #expect(indexes["Player__name__club_index"] == false)
            #expect(throws: StrataError.self) {
                try stack.perform(synchronous: { tx in
                    let player = tx.create(Into<Player>())
                    player.team = "red"
                    player.number = 2
                })
            }
        }
    }

    /// What cannot be indexed is a typed schema error, not a trap.
    @Test
    @MainActor
    func whatCannotBeIndexedIsRefused() throws {
        let schemas = [
            Schema("X", entities: [
                Entity<PlayerClub>("PlayerClub", uniqueConstraints: [[\.$players]]), Entity<Player>("Player"),
            ]),
            Schema("X", entities: [Entity<Player>("Player", indexes: [[]]), Entity<PlayerClub>("PlayerClub")]),
            Schema("X", entities: [
                Entity<Player>("Player", uniqueConstraints: [[\.$team, \.$team]]), Entity<PlayerClub>("PlayerClub"),
            ]),
        ]
        for schema in schemas {
            #expect(performing: { try makeStack(schema, .inMemory, in: TemporaryDirectory()) }, throws: { error in
                if case .invalidSchema(entity: _, field: _, reason: _)? = error as? StrataError { return true }
                return false
            })
        }
    }

    /// Index names past PostgreSQL's 63 bytes are shortened with a hash of
    /// the whole name, so two of them stay two and the store opens again.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func longIndexNamesStayDistinctAndAreFoundAgain(_ kind: StoreKind) throws {
        typealias Long = AnEntityWithANameLongEnoughForPostgreSQLToCutIt
        let directory = TemporaryDirectory()
        do {
            let stack = try makeStack(longNamesSchema, kind, in: directory)
            try stack.perform(synchronous: { tx in
                let object = tx.create(Into<Long>())
                (object.first, object.second, object.third) = ("1", "2", "3")
            })
            #expect(throws: StrataError.self) {
                try stack.perform(synchronous: { tx in
                    let object = tx.create(Into<Long>())
                    (object.second, object.third) = ("2", "3")
                })
            }
            if kind == .inMemory { return }
            try stack.removeStorage()
        }
        let reopened = try makeStack(longNamesSchema, kind, in: directory)
        #expect(try reopened.fetchCount(From<Long>()) == 1)
    }

    /// A unique violation names the entity that declares the violated
    /// fields, where the engine names only the tree's table (the root's).
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aViolationNamesTheEntityThatDeclaresTheConstraint(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let schema = Schema("CL1", entities: [
            Entity<ConstrainedBase>("ConstrainedBase", uniqueConstraints: [[\.$a, \.$b]]),
            Entity<ConstrainedLeaf>("ConstrainedLeaf", uniqueConstraints: [[\.$b, \.$c]]),
        ])
        let stack = try makeStack(schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let leaf = tx.create(Into<ConstrainedLeaf>())
            (leaf.a, leaf.b, leaf.c, leaf.serial) = ("a", "b", "c", 1)
        })
        let clashes: [(entity: String, fields: [String], set: @Sendable (ConstrainedLeaf) -> Void)] = [
            ("ConstrainedBase", ["a", "b"], { ($0.a, $0.b) = ("a", "b") }),
            ("ConstrainedLeaf", ["b", "c"], { ($0.b, $0.c) = ("b", "c") }),
            ("ConstrainedLeaf", ["serial"], { $0.serial = 1 }),
        ]
        for clash in clashes {
            let error = #expect(throws: StrataError.self) {
                try stack.perform(synchronous: { tx in clash.set(tx.create(Into<ConstrainedLeaf>())) })
            }
            guard case .uniqueConstraintViolation(let entity, let fields)? = error else {
                Issue.record("expected a unique violation of \(clash.fields), got \(String(describing: error))")
                continue
            }
            #expect(entity == clash.entity && fields == clash.fields, "\(kind)")
        }
    }

    /// A base's unique constraint binds a subentity stored in a
    /// configuration without the base, as the base's `.unique` fields do.
    @Test
    @MainActor
    func aBasesConstraintBindsItsSubentityInAConfigurationWithoutIt() throws {
        let schema = Schema("CF1", entities: [
            Entity<ConstrainedBase>("ConstrainedBase", uniqueConstraints: [[\.$a, \.$b]]),
            Entity<ConstrainedSub>("ConstrainedSub", configurations: ["Side"]),
        ])
        let stack = DataStack(schema)
        try stack.addStorageAndWait(InMemoryStore())
        try stack.addStorageAndWait(InMemoryStore(configuration: "Side"))
        for configuration in ["Side", nil] as [String?] {
            try stack.perform(synchronous: { tx in
                let sub = tx.create(Into<ConstrainedSub>(configuration))
                (sub.a, sub.b) = ("a", "b")
            })
            #expect(throws: StrataError.self, "in store \(configuration ?? "default")") {
                try stack.perform(synchronous: { tx in
                    let sub = tx.create(Into<ConstrainedSub>(configuration))
                    (sub.a, sub.b) = ("a", "b")
                })
            }
        }
    }
}
