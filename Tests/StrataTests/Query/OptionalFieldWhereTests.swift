import Foundation
import Testing

@testable import Strata

/// Tests with Swift's answer for each row: the answer SQL gives, NULLs included.
private struct Cases<Object: ManagedObject, Row> {
    var all: [(text: String, clause: Where<Object>, expected: (Row) -> Bool)] = []

    mutating func add(_ text: String, _ clause: Where<Object>, _ expected: @escaping (Row) -> Bool)
    {
        all.append((text, clause, expected))
    }
}

/// Every test a `Where` has, over optional fields, optional paths and the
/// to-many relationships of objects with optional fields: a check that each
/// compiles, and a seeded property test that SQL, the in-memory evaluator and
/// plain Swift over the same values (with SQL's NULL semantics) agree, for
/// each test and for its negation.
@MainActor
@Suite("Where over optional fields: SQL, memory and Swift agree")
struct OptionalFieldWhereTests {
    nonisolated static let seeds: [UInt64] = [0x0971_0001, 0x0971_0002, 0x0971_0003]

    @Test(arguments: seeds)
    func everyTestAgreesOnOptionalFields(seed: UInt64) throws {
        try check(seed: seed)
    }

    @Test func everyTestAgreesOnOptionalFieldsForARandomSeed() throws {
        let seed = SplitMix64.random().seed  // STRATA_TEST_SEED runs it again
        print("OptionalFieldWhereTests random seed: \(seed)")
        try check(seed: seed)
    }

    private func check(seed: UInt64, rounds: Int = 10) throws {
        let world = OptWorld(seed: seed)
        let stack = try world.stack()
        let players = try stack.fetchAll(From<OptPlayer>())
        let teams = try stack.fetchAll(From<OptTeam>())
        #expect(players.map(\.serial) == world.players.map(\.serial))
        let teamIndex = Dictionary(uniqueKeysWithValues: teams.enumerated().map { ($1.rowID, $0) })
        var random = SplitMix64(seed: seed ^ 0x5EED)
        for round in 0..<rounds {
            for test in playerCases(world, &random).all {
                let context = "seed \(seed), round \(round): \(test.text)"
                let swift = world.players.filter(test.expected).map(\.serial)
                let others = world.players.filter { !test.expected($0) }.map(\.serial)
                for (clause, expected) in [(test.clause, swift), (!test.clause, others)] {
                    let fetched = try stack.fetchAll(From<OptPlayer>().where(clause)).map(\.serial)
                    let evaluated = players.filter { clause.evaluate($0) == true }.map(\.serial)
                    #expect(fetched == expected, "SQL, \(context)")
                    #expect(evaluated == expected, "memory, \(context)")
                }
            }
            for test in teamCases(world, &random).all {
                let context = "seed \(seed), round \(round): \(test.text)"
                let swift = world.teams.indices.filter(test.expected)
                let fetched = try stack.fetchAll(From<OptTeam>().where(test.clause))
                    .map { teamIndex[$0.rowID]! }
                #expect(fetched == swift, "SQL, \(context)")
                #expect(
                    teams.indices.filter { test.clause.evaluate(teams[$0]) == true } == swift,
                    "memory, \(context)")
            }
        }
        withExtendedLifetime((players, teams)) {}
    }

    // MARK: The tests

    private func playerCases(_ world: OptWorld, _ random: inout SplitMix64)
        -> Cases<OptPlayer, OptPlayerRow>
    {
        var cases = Cases<OptPlayer, OptPlayerRow>()
        func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }
        func orNil<T>(_ value: T) -> T? { Bool.random(using: &random) ? nil : value }
        func range<T: Comparable>(_ values: [T]) -> ClosedRange<T> {
            let (a, b) = (pick(values), pick(values))
            return min(a, b)...max(a, b)
        }

        // Integers: every comparison, with a value or nil, ranges and memberships.
        let score = pick(Array(-3...7))
        let maybeScore = orNil(score)
        let scores = range(Array(-3...7))
        let someScores = (0..<3).map { _ in pick(Array(-3...7)) }
        cases.add("score == \(String(describing: maybeScore))", \.$score == maybeScore) {
            $0.score == maybeScore
        }
        cases.add("score != \(String(describing: maybeScore))", \.$score != maybeScore) {
            $0.score != maybeScore
        }
        cases.add("score == nil", \.$score == nil) { $0.score == nil }
        cases.add("score != nil", \.$score != nil) { $0.score != nil }
        cases.add("score < \(score)", \.$score < score) { sqlLess($0.score, score) }
        cases.add("score <= \(score)", \.$score <= score) { sqlLess($0.score, score + 1) }
        cases.add("score > \(score)", \.$score > score) { $0.score.map { $0 > score } ?? false }
        cases.add("score >= \(score)", \.$score >= score) { $0.score.map { $0 >= score } ?? false }
        cases.add("score between \(scores)", Where(\.$score, between: scores)) {
            sqlBetween($0.score, scores)
        }
        cases.add("score in \(scores)", Where(\.$score, in: scores)) { sqlIn($0.score, scores) }
        cases.add("\(scores) ~= score", scores ~= \.$score) { sqlIn($0.score, scores) }
        cases.add("score in \(someScores)", Where(\.$score, in: someScores)) {
            sqlIn($0.score, someScores)
        }
        cases.add("score in \(someScores) + [nil]", Where(\.$score, in: someScores + [nil])) {
            $0.score == nil || sqlIn($0.score, someScores)
        }

        // Reals, dates, decimals, enums and booleans.
        let ratios = range((-5...13).map { Double($0) / 4 })
        let day = OptWorld.date(pick(Array(0..<6)))
        let days = range((0..<6).map(OptWorld.date))
        let price = pick(OptWorld.prices)
        let mood = pick(OptMood.allCases)
        let moods = range(OptMood.allCases)
        let active = orNil(Bool.random(using: &random))
        cases.add("ratio between \(ratios)", Where(\.$ratio, between: ratios)) {
            sqlBetween($0.ratio, ratios)
        }
        cases.add("ratio > \(ratios.lowerBound)", \.$ratio > ratios.lowerBound) {
            $0.ratio.map { $0 > ratios.lowerBound } ?? false
        }
        cases.add("joined < \(day)", \.$joined < day) { sqlLess($0.joined, day) }
        cases.add("joined between \(days)", Where(\.$joined, between: days)) {
            sqlBetween($0.joined, days)
        }
        cases.add("price == \(price)", \.$price == price) { $0.price == price }
        cases.add("price in [\(price), 2]", Where(\.$price, in: [price, 2])) {
            sqlIn($0.price, [price, 2])
        }
        cases.add("mood == \(mood)", \.$mood == mood) { $0.mood == mood }
        cases.add("mood <= \(mood)", \.$mood <= mood) { $0.mood.map { $0 <= mood } ?? false }
        cases.add("mood between \(moods)", Where(\.$mood, between: moods)) {
            sqlBetween($0.mood, moods)
        }
        cases.add("[\(mood)] ~= mood", [mood] ~= \.$mood) { $0.mood == mood }
        cases.add("active == \(String(describing: active))", \.$active == active) {
            $0.active == active
        }
        cases.add("active != true", \.$active != true) { $0.active != true }
        cases.add("active in [true]", Where(\.$active, in: [true])) { $0.active == true }

        // Text.
        let nicks = range(OptWorld.nicks)
        let piece = pick(["a", "an", "n", "b", "B", "", "y"])
        let pattern = pick(["a*", "?o?", "*n*", "A*", "*", "??", "b?b"])
        let someNicks = Set((0..<2).map { _ in pick(OptWorld.nicks) })
        cases.add("nick between \(nicks)", Where(\.$nick, between: nicks)) {
            sqlBetween($0.nick, nicks)
        }
        cases.add("nick < \(nicks.upperBound)", \.$nick < nicks.upperBound) {
            sqlLess($0.nick, nicks.upperBound)
        }
        cases.add("nick in \(someNicks)", Where(\.$nick, in: someNicks)) {
            sqlIn($0.nick, someNicks)
        }
        cases.add("nick hasPrefix \(piece)", Where(\.$nick, .hasPrefix(piece))) {
            $0.nick?.hasPrefix(piece) ?? false
        }
        cases.add("nick hasSuffix \(piece)", Where(\.$nick, .hasSuffix(piece))) {
            $0.nick?.hasSuffix(piece) ?? false
        }
        cases.add("nick contains \(piece) ci", Where(\.$nick, .contains(piece, .caseInsensitive))) {
            $0.nick.map { piece.isEmpty || $0.lowercased().contains(piece.lowercased()) } ?? false
        }
        cases.add("nick like \(pattern) ci", Where(\.$nick, .like(pattern, .caseInsensitive))) {
            $0.nick.map { wildcardMatches($0.lowercased()[...], pattern.lowercased()[...]) }
                ?? false
        }

        // A to-one relationship that may be nil, and optional values through it.
        let teamName = pick(OptWorld.teamNames)
        let maybeTeamName = orNil(teamName)
        let teamNames = range(OptWorld.teamNames)
        let rank = pick(Array(-1...3))
        let ranks = range(Array(-1...3))
        let team = { (player: OptPlayerRow) in world.team(of: player) }
        cases.add("team == nil", \.$team == nil) { $0.team == nil }
        cases.add("team != nil", \.$team != nil) { $0.team != nil }
        cases.add(
            "team.name == \(String(describing: maybeTeamName))", \.$team ~ \.$name == maybeTeamName
        ) {
            team($0)?.name == maybeTeamName
        }
        cases.add("team.name < \(teamName)", \.$team ~ \.$name < teamName) {
            sqlLess(team($0)?.name, teamName)
        }
        cases.add("team.name between \(teamNames)", Where(\.$team ~ \.$name, between: teamNames)) {
            sqlBetween(team($0)?.name, teamNames)
        }
        cases.add("team.name in [\(teamName)]", Where(\.$team ~ \.$name, in: Set([teamName]))) {
            team($0)?.name == teamName
        }
        cases.add(
            "team.name hasPrefix o ci", Where(\.$team ~ \.$name, .hasPrefix("o", .caseInsensitive))
        ) {
            team($0)?.name?.lowercased().hasPrefix("o") ?? false
        }
        cases.add("team.rank >= \(rank)", \.$team ~ \.$rank >= rank) {
            team($0)?.rank.map { $0 >= rank } ?? false
        }
        cases.add("team.rank between \(ranks)", Where(\.$team ~ \.$rank, between: ranks)) {
            sqlBetween(team($0)?.rank, ranks)
        }
        cases.add("team.rank in \(ranks)", Where(\.$team ~ \.$rank, in: ranks)) {
            sqlIn(team($0)?.rank, ranks)
        }
        cases.add("team.rank == nil", \.$team ~ \.$rank == nil) { team($0)?.rank == nil }
        return cases
    }

    private func teamCases(_ world: OptWorld, _ random: inout SplitMix64) -> Cases<OptTeam, Int> {
        var cases = Cases<OptTeam, Int>()
        let score = Int.random(in: -3...7, using: &random)
        let low = Int.random(in: -3...5, using: &random)
        let scores = low...(low + Int.random(in: 0...3, using: &random))
        let count = Int.random(in: 0...20, using: &random)
        let ranks = 0...Int.random(in: 0...3, using: &random)
        let members = { (team: Int) in world.players.filter { $0.team == team } }
        cases.add(".any(players, score > \(score))", .any(\.$players, \.$score > score)) {
            members($0).contains { $0.score.map { $0 > score } ?? false }
        }
        cases.add(
            ".all(players, score between \(scores))",
            .all(\.$players, Where(\.$score, between: scores))
        ) {
            members($0).allSatisfy { sqlBetween($0.score, scores) }
        }
        cases.add(".none(players, nick == nil)", .none(\.$players, \.$nick == nil)) {
            !members($0).contains { $0.nick == nil }
        }
        cases.add(
            ".any(players, score in \(scores))", .any(\.$players, Where(\.$score, in: scores))
        ) {
            members($0).contains { sqlIn($0.score, scores) }
        }
        cases.add("count(players) >= \(count)", Where<OptTeam>.count(\.$players) >= count) {
            members($0).count >= count
        }
        cases.add("rank between \(ranks)", Where(\.$rank, between: ranks)) {
            sqlBetween(world.teams[$0].rank, ranks)
        }
        cases.add("name != Owls", \.$name != "Owls") { world.teams[$0].name != "Owls" }
        return cases
    }
}
