import Foundation
import Strata
import Testing

// Models with bounded to-many relationships. Names start with `Mc`.

/// A boat sails with two to four sailors, or none.
final class McBoat: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("crew", minCount: 2, maxCount: 4, inverse: \McSailor.$boat)
    var crew: Set<McSailor>
}

/// A sailor is on at most one boat and in at most two clubs.
final class McSailor: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("boat") var boat: McBoat?
    @Field.Relationship("clubs", maxCount: 2, inverse: \McClub.$members)
    var clubs: Set<McClub>
}

/// A club has two or three members, or none; its inverse is inferred.
final class McClub: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("members", minCount: 2, maxCount: 3) var members: [McSailor]
}

/// A tree whose base declares a bounded relationship: a yacht inherits its bounds.
class McVessel: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("deckhands", minCount: 2, maxCount: 3, inverse: \McDeckhand.$vessel)
    var deckhands: Set<McDeckhand>
}

final class McYacht: McVessel {
    @Field.Stored("length") var length: Double = 12
}

final class McDeckhand: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("vessel") var vessel: McVessel?
}

/// Bounds a schema refuses, and one it takes.
final class McToOne: ManagedObject {
    @Field.Relationship("partner", maxCount: 1) var partner: McToOne?
}

final class McNegative: ManagedObject {
    @Field.Relationship("others", minCount: -1) var others: Set<McNegative>
}

final class McCrossed: ManagedObject {
    @Field.Relationship("others", minCount: 5, maxCount: 3) var others: [McCrossed]
}

final class McFine: ManagedObject {
    @Field.Relationship("others", minCount: 5) var others: [McFine]
}

private let memberCountSchema = Schema(
    "McV1", entities: [Entity<McBoat>("McBoat"), Entity<McSailor>("McSailor"), Entity<McClub>("McClub")])

/// What the store should hold: each boat's crew, each club's members, every sailor.
private struct Harbour: Equatable {
    var crews: [String: Set<String>] = [:]
    var clubs: [String: Set<String>] = [:]
    var sailors: Set<String> = []

    func boat(of sailor: String) -> String? { crews.first { $0.value.contains(sailor) }?.key }
    func clubs(of sailor: String) -> [String] { clubs.filter { $0.value.contains(sailor) }.map(\.key) }

    /// Whether any relationship holds a number of objects its bounds refuse.
    /// Every commit checks each owner whose members changed, so an owner
    /// whose members did not is within its bounds already: a transaction
    /// must fail exactly when the state it leaves breaks a bound anywhere.
    var breaksABound: Bool {
        func outside(_ count: Int, _ min: Int, _ max: Int) -> Bool { count > 0 && (count < min || count > max) }
        return crews.values.contains { outside($0.count, 2, 4) }
            || clubs.values.contains { outside($0.count, 2, 3) }
            || sailors.contains { clubs(of: $0).count > 2 }
    }
}

@Suite("Relationship member counts")
struct MemberCountTests {
    /// Random transactions create, move and delete sailors, boats and clubs;
    /// each commit fails with `invalidValue` exactly when it would leave a
    /// crew, a club or a sailor's clubs outside their bounds (an empty one
    /// never is), and then leaves the store as it was.
    @Test(arguments: StoreKind.allCases, [UInt64(1), 2, 3])
    @MainActor
    func aCommitFailsExactlyWhenItWouldBreakABound(kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(memberCountSchema, kind, in: directory)
        var harbour = Harbour()
        var serial = 0
        var outcomes: Set<Bool> = []
        func newName(_ prefix: String) -> String {
            serial += 1
            return "\(prefix)\(serial)"
        }
        func pick(_ names: some Collection<String>) -> String? {
            names.isEmpty ? nil : names.sorted()[Int(random.next() % UInt64(names.count))]
        }
        for round in 0..<40 {
            var planned = harbour
            var steps: [(SynchronousDataTransaction) throws -> Void] = []
            for _ in 0..<Int(1 + random.next() % 3) {
                switch random.next() % 9 {
                case 0, 1:  // a boat with a new crew of 1 to 5
                    let boat = newName("b")
                    let crew = (0..<Int(1 + random.next() % 5)).map { _ in newName("s") }
                    planned.crews[boat] = Set(crew)
                    planned.sailors.formUnion(crew)
                    steps.append { tx in
                        let made = tx.create(Into<McBoat>())
                        made.name = boat
                        for name in crew {
                            let sailor = tx.create(Into<McSailor>())
                            sailor.name = name
                            sailor.boat = made
                        }
                    }
                case 2:  // a sailor moves to another boat, or ashore
                    guard let sailor = pick(planned.sailors) else { continue }
                    let boat = random.next() % 4 == 0 ? nil : pick(planned.crews.keys)
                    if let old = planned.boat(of: sailor) { planned.crews[old]!.remove(sailor) }
                    if let boat { planned.crews[boat]!.insert(sailor) }
                    steps.append { tx in try Self.sailor(sailor, in: tx).boat = try boat.map { try Self.boat($0, in: tx) } }
                case 3:  // a sailor joins or leaves a club
                    guard let sailor = pick(planned.sailors), let club = pick(planned.clubs.keys) else { continue }
                    let joins = !planned.clubs[club]!.contains(sailor)
                    if joins { planned.clubs[club]!.insert(sailor) } else { planned.clubs[club]!.remove(sailor) }
                    steps.append { tx in
                        let member = try Self.sailor(sailor, in: tx)
                        let found = try Self.club(club, in: tx)
                        if joins { member.clubs.insert(found) } else { member.clubs.remove(found) }
                    }
                case 4:  // a new club of 1 to 4 sailors
                    let club = newName("c")
                    let members = Set((0..<Int(1 + random.next() % 4)).compactMap { _ in pick(planned.sailors) })
                    planned.clubs[club] = members
                    steps.append { tx in
                        let made = tx.create(Into<McClub>())
                        made.name = club
                        made.members = try members.sorted().map { try Self.sailor($0, in: tx) }
                    }
                case 5:  // a sailor leaves for good
                    guard let sailor = pick(planned.sailors) else { continue }
                    planned.sailors.remove(sailor)
                    for boat in planned.crews.keys { planned.crews[boat]!.remove(sailor) }
                    for club in planned.clubs.keys { planned.clubs[club]!.remove(sailor) }
                    steps.append { tx in tx.delete(try Self.sailor(sailor, in: tx)) }
                case 6:  // a boat is sold; its crew stays ashore
                    guard let boat = pick(planned.crews.keys) else { continue }
                    planned.crews[boat] = nil
                    steps.append { tx in tx.delete(try Self.boat(boat, in: tx)) }
                case 7:  // a club closes
                    guard let club = pick(planned.clubs.keys) else { continue }
                    planned.clubs[club] = nil
                    steps.append { tx in tx.delete(try Self.club(club, in: tx)) }
                default:  // a boat's crew is set as a whole, from sailors ashore and its own
                    guard let boat = pick(planned.crews.keys) else { continue }
                    let free = planned.sailors.filter { planned.boat(of: $0) == nil || planned.boat(of: $0) == boat }
                    let crew = Set(free.filter { _ in random.next() % 2 == 0 })
                    for other in planned.crews.keys { planned.crews[other]!.subtract(crew) }
                    planned.crews[boat] = crew
                    steps.append { tx in
                        try Self.boat(boat, in: tx).crew = Set(try crew.map { try Self.sailor($0, in: tx) })
                    }
                }
            }
            let shouldFail = planned.breaksABound
            do {
                try stack.perform(synchronous: { tx in for step in steps { try step(tx) } })
                #expect(!shouldFail, "seed \(seed), round \(round): a commit that breaks a bound succeeded")
                harbour = planned
            } catch {
                #expect(shouldFail, "seed \(seed), round \(round): \(error)")
                guard case let .invalidValue(entity, field, _) = error else {
                    Issue.record("seed \(seed), round \(round): \(error) is not invalidValue")
                    continue
                }
                #expect(["McBoat.crew", "McClub.members", "McSailor.clubs"].contains("\(entity).\(field)"))
            }
            outcomes.insert(shouldFail)
            #expect(try Self.read(stack) == harbour, "seed \(seed), round \(round)")
        }
        #expect(outcomes == [true, false], "the rounds met both outcomes")
    }

    /// Bulk writes count as object writes do: an `updateAll` that puts six
    /// sailors on one boat, or a `deleteAll` that leaves a crew of one, fails
    /// the commit; one that leaves the crews within bounds commits.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func bulkWritesAreCountedToo(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(memberCountSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for (boat, crew) in [("b1", 3), ("b2", 3)] {
                let made = tx.create(Into<McBoat>())
                made.name = boat
                for index in 0..<crew {
                    let sailor = tx.create(Into<McSailor>())
                    sailor.name = "\(boat)s\(index)"
                    sailor.boat = made
                }
            }
        })
        let b1 = try #require(try stack.fetchOne(From<McBoat>().where(\.$name == "b1")))
        let attempts: [(String, Bool, (SynchronousDataTransaction) throws -> Void)] = [
            ("everyone on b1", true, { tx in
                _ = try tx.updateAll(From<McSailor>(), .set(\.$boat, to: tx.edit(b1)))
            }),
            ("two of b2 ashore", true, { tx in
                _ = try tx.deleteAll(From<McSailor>().where(\.$name == "b2s0" || \.$name == "b2s1"))
            }),
            ("b2 emptied", false, { tx in
                _ = try tx.deleteAll(From<McSailor>().where(\.$name == "b2s0" || \.$name == "b2s1" || \.$name == "b2s2"))
            }),
        ]
        for (label, fails, body) in attempts {
            do {
                try stack.perform(synchronous: body)
                #expect(!fails, "\(label) committed")
            } catch {
                #expect(fails, "\(label): \(error)")
                guard case .invalidValue(_, "crew", _) = error else {
                    Issue.record("\(label): \(error) is not invalidValue of crew")
                    continue
                }
            }
        }
        let crews = try stack.fetchAll(From<McBoat>()).map { ($0.name, $0.crew.count) }
        #expect(crews.sorted { $0.0 < $1.0 }.map(\.1) == [3, 0])
    }

    /// A subentity's objects are held to the bounds its base declares, and
    /// the error names the object's own entity; moving a deckhand from a
    /// yacht to a plain vessel counts both.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aSubentityKeepsTheBoundsItInherits(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let schema = Schema("McTree", entities: [
            Entity<McVessel>("McVessel"), Entity<McYacht>("McYacht"), Entity<McDeckhand>("McDeckhand"),
        ])
        let stack = try makeStack(schema, kind, in: directory)
        func crew(_ count: Int, on vessel: McVessel, _ tx: SynchronousDataTransaction) {
            for index in 0..<count {
                let hand = tx.create(Into<McDeckhand>())
                hand.name = "\(vessel.name)-\(index)"
                hand.vessel = vessel
            }
        }
        do {
            try stack.perform(synchronous: { tx in
                let yacht = tx.create(Into<McYacht>())
                yacht.name = "y"
                crew(1, on: yacht, tx)
            })
            Issue.record("a yacht with one deckhand was saved")
        } catch {
            guard case .invalidValue("McYacht", "deckhands", _) = error else {
                Issue.record("expected invalidValue of McYacht.deckhands, got \(error)")
                return
            }
        }
        try stack.perform(synchronous: { tx in
            let yacht = tx.create(Into<McYacht>())
            yacht.name = "y"
            crew(2, on: yacht, tx)
            let vessel = tx.create(Into<McVessel>())
            vessel.name = "v"
            crew(3, on: vessel, tx)
        })
        // Moving one of the vessel's three to the yacht leaves 3 and 2: allowed.
        try stack.perform(synchronous: { tx in
            let hand = try #require(try tx.fetchOne(From<McDeckhand>().where(\.$name == "v-0")))
            hand.vessel = try tx.fetchOne(From<McYacht>())
        })
        // Moving another leaves the yacht 4: refused, naming the yacht.
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                let hand = try #require(try tx.fetchOne(From<McDeckhand>().where(\.$name == "v-1")))
                hand.vessel = try tx.fetchOne(From<McYacht>())
            })
        }
        let counts = try stack.fetchAll(From<McVessel>().orderBy(.ascending(\.$name)))
            .map { ($0.name, $0.deckhands.count) }
        #expect(counts.map(\.0) == ["v", "y"] && counts.map(\.1) == [2, 3])
    }

    /// A bound on a to-one relationship, a negative one, and a minimum above
    /// the maximum make the schema invalid.
    @Test
    func impossibleBoundsMakeTheSchemaInvalid() throws {
        for (schema, entity) in [
            (Schema("V1", entities: [Entity<McToOne>("McToOne")]), "McToOne"),
            (Schema("V1", entities: [Entity<McNegative>("McNegative")]), "McNegative"),
            (Schema("V1", entities: [Entity<McCrossed>("McCrossed")]), "McCrossed"),
        ] {
            #expect(throws: StrataError.self) { try schema.validate() }
            do {
                try schema.validate()
            } catch {
                guard case let .invalidSchema(name, field, _) = error else {
                    Issue.record("\(error) is not invalidSchema")
                    continue
                }
                #expect(name == entity && field != nil)
            }
        }
        try Schema("V1", entities: [Entity<McFine>("McFine")]).validate()
    }

    /// The wrapper reports its bounds, as CoreStore's does.
    @Test
    @MainActor
    func theFieldTellsItsBounds() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(memberCountSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            let boat = tx.create(Into<McBoat>())
            #expect(boat.$crew.minCount == 2 && boat.$crew.maxCount == 4)
            let sailor = tx.create(Into<McSailor>())
            #expect(sailor.$clubs.minCount == 0 && sailor.$clubs.maxCount == 2)
            #expect(sailor.$boat.minCount == 0 && sailor.$boat.maxCount == 0)
        })
    }

    private static func boat(_ name: String, in tx: SynchronousDataTransaction) throws -> McBoat {
        try #require(try tx.fetchOne(From<McBoat>().where(\.$name == name)))
    }

    private static func sailor(_ name: String, in tx: SynchronousDataTransaction) throws -> McSailor {
        try #require(try tx.fetchOne(From<McSailor>().where(\.$name == name)))
    }

    private static func club(_ name: String, in tx: SynchronousDataTransaction) throws -> McClub {
        try #require(try tx.fetchOne(From<McClub>().where(\.$name == name)))
    }

    /// The store's state, read through the main context.
    @MainActor
    private static func read(_ stack: DataStack) throws -> Harbour {
        var harbour = Harbour()
        for boat in try stack.fetchAll(From<McBoat>()) {
            harbour.crews[boat.name] = Set(boat.crew.map(\.name))
        }
        for club in try stack.fetchAll(From<McClub>()) {
            harbour.clubs[club.name] = Set(club.members.map(\.name))
        }
        harbour.sailors = Set(try stack.fetchAll(From<McSailor>()).map(\.name))
        return harbour
    }
}
