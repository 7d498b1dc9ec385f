import Foundation
import Testing

@testable import Strata

// The optional-field tests' model, in the style of CoreStore's test models,
// where every field is optional. Names start with `Opt` so that they never
// clash with other test files' models.

/// An enum stored as text; its Swift order is its raw value's, as in SQL.
enum OptMood: String, FieldStorable, Comparable, CaseIterable {
    case calm, cross, glad

    static func < (lhs: OptMood, rhs: OptMood) -> Bool { lhs.rawValue < rhs.rawValue }
}

final class OptTeam: ManagedObject {
    @Field.Stored("name") var name: String? = nil
    @Field.Stored("rank") var rank: Int? = nil
    @Field.Relationship("players", inverse: \OptPlayer.$team) var players: Set<OptPlayer>
}

/// A player: one optional field of each kind of value, and a team that may be nil.
final class OptPlayer: ManagedObject {
    @Field.Stored("serial") var serial: Int = 0
    @Field.Stored("score") var score: Int? = nil
    @Field.Stored("ratio") var ratio: Double? = nil
    @Field.Stored("nick") var nick: String? = nil
    @Field.Stored("price") var price: Decimal? = nil
    @Field.Stored("joined") var joined: Date? = nil
    @Field.Stored("mood") var mood: OptMood? = nil
    @Field.Stored("active") var active: Bool? = nil
    @Field.Relationship("team") var team: OptTeam?
}

let optionalSchema = Schema(
    "OptV1", entities: [Entity<OptTeam>("OptTeam"), Entity<OptPlayer>("OptPlayer")])

/// A team's values as the tests model them in Swift.
struct OptTeamRow {
    var name: String?
    var rank: Int?
}

/// A player's values as the tests model them in Swift; `team` indexes the world's teams.
struct OptPlayerRow {
    var serial: Int
    var score: Int?
    var ratio: Double?
    var nick: String?
    var price: Decimal?
    var joined: Date?
    var mood: OptMood?
    var active: Bool?
    var team: Int?
}

/// Random teams and players, about a third of each field NULL. Values come
/// from small sets, so that equal values and matches are common; text is
/// ASCII, whose Swift order is SQLite's byte order; reals are quarters, whose
/// sums are exact.
struct OptWorld {
    static let nicks = ["ann", "bob", "Bea", "cy", "al", "", "anna"]
    static let teamNames = ["Owls", "ants", "Bees", "owls"]
    static let prices = ["0.25", "1.5", "2", "10"].map { Decimal(string: $0)! }
    static let day: TimeInterval = 86_400

    var teams: [OptTeamRow]
    var players: [OptPlayerRow]

    init(seed: UInt64, players count: Int = 60) {
        var random = SplitMix64(seed: seed)
        func maybe<T>(_ make: () -> T) -> T? {
            Int.random(in: 0..<3, using: &random) == 0 ? nil : make()
        }
        teams = (0..<4).map { _ in
            OptTeamRow(
                name: maybe { Self.teamNames.randomElement(using: &random)! },
                rank: maybe { Int.random(in: -1...3, using: &random) })
        }
        players = (0..<count).map { serial in
            OptPlayerRow(
                serial: serial,
                score: maybe { Int.random(in: -2...6, using: &random) },
                ratio: maybe { Double(Int.random(in: -4...12, using: &random)) / 4 },
                nick: maybe { Self.nicks.randomElement(using: &random)! },
                price: maybe { Self.prices.randomElement(using: &random)! },
                joined: maybe { Self.date(Int.random(in: 0..<6, using: &random)) },
                mood: maybe { OptMood.allCases.randomElement(using: &random)! },
                active: maybe { Bool.random(using: &random) },
                team: Int.random(in: 0..<5, using: &random) == 0
                    ? nil : Int.random(in: 0..<4, using: &random))
        }
    }

    /// Midnight (UTC) `days` days after 1970.
    static func date(_ days: Int) -> Date { Date(timeIntervalSince1970: Double(days) * day) }

    func team(of player: OptPlayerRow) -> OptTeamRow? { player.team.map { teams[$0] } }

    /// An in-memory stack holding the world; players are created in serial
    /// order, so their row IDs increase with their serials.
    @MainActor
    func stack() throws -> DataStack {
        let stack = DataStack(optionalSchema)
        try stack.addStorageAndWait(InMemoryStore())
        try fill(stack)
        return stack
    }

    /// Creates the world's teams and players in `stack`, players in serial order.
    @MainActor
    func fill(_ stack: DataStack) throws {
        try stack.perform(synchronous: { tx in
            let teams = self.teams.map { row in
                let team = tx.create(Into<OptTeam>())
                team.name = row.name
                team.rank = row.rank
                return team
            }
            for row in players {
                let player = tx.create(Into<OptPlayer>())
                player.serial = row.serial
                player.score = row.score
                player.ratio = row.ratio
                player.nick = row.nick
                player.price = row.price
                player.joined = row.joined
                player.mood = row.mood
                player.active = row.active
                player.team = row.team.map { teams[$0] }
            }
        })
    }
}

// MARK: Swift's answers, with SQL's NULL semantics

/// `value < bound` as SQL answers it: never true for NULL.
func sqlLess<T: Comparable>(_ value: T?, _ bound: T) -> Bool { value.map { $0 < bound } ?? false }

/// `value` in `range` as SQL's `BETWEEN` answers it: never true for NULL.
func sqlBetween<T: Comparable>(_ value: T?, _ range: ClosedRange<T>) -> Bool {
    value.map(range.contains) ?? false
}

/// `value IN (values)`: never true for NULL.
func sqlIn<T: Equatable, S: Sequence>(_ value: T?, _ values: S) -> Bool where S.Element == T {
    value.map { values.contains($0) } ?? false
}

/// `text LIKE pattern` with `*` for any run and `?` for one character, case-sensitive.
func wildcardMatches(_ text: Substring, _ pattern: Substring) -> Bool {
    guard let first = pattern.first else { return text.isEmpty }
    switch first {
    case "*":
        var rest = text
        while true {
            if wildcardMatches(rest, pattern.dropFirst()) { return true }
            guard !rest.isEmpty else { return false }
            rest = rest.dropFirst()
        }
    case "?": return !text.isEmpty && wildcardMatches(text.dropFirst(), pattern.dropFirst())
    default: return text.first == first && wildcardMatches(text.dropFirst(), pattern.dropFirst())
    }
}
