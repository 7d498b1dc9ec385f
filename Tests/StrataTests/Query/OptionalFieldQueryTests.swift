import Foundation
import Testing

@testable import Strata

/// The `WHERE` condition alone of a predicate on players, with its arguments.
private func condition(_ predicate: Where<OptPlayer>) throws -> (String, [StoredValue]) {
    let fetch = try From<OptPlayer>().where(predicate).compile(
        in: optionalSchema.entity(of: OptPlayer.self), schema: optionalSchema, dialect: .sqlite)
    let prefix = " WHERE ", suffix = " ORDER BY t0._pk ASC"
    #expect(fetch.clauses.hasPrefix(prefix) && fetch.clauses.hasSuffix(suffix), "\(fetch.clauses)")
    return (String(fetch.clauses.dropFirst(prefix.count).dropLast(suffix.count)), fetch.arguments)
}

/// Swift's order of two optional values as SQL sorts them: NULLs together at
/// one end, then the values; `nil` when they are equal.
private func sqlOrder<T: Comparable>(_ a: T?, _ b: T?, ascending: Bool, nullsFirst: Bool) -> Bool? {
    switch (a, b) {
    case (nil, nil): return nil
    case (nil, _?): return nullsFirst
    case (_?, nil): return !nullsFirst
    case let (a?, b?): return a == b ? nil : (a < b) == ascending
    }
}

/// Group or section keys in SQL's ascending order: NULL first, then the values.
private func sqlSorted<T: Comparable>(_ keys: some Collection<T?>) -> [T?] {
    keys.sorted { sqlOrder($0, $1, ascending: true, nullsFirst: true) ?? false }
}

/// The name the section tests give the section of a score, NULL included.
@Sendable private func scoreSection(_ score: Int?) -> String { score.map { "s\($0)" } ?? "none" }

/// Sort keys, order, aggregates, groups and sections over optional fields,
/// each held to Swift's answer on seeded random data with NULLs; and the SQL
/// of the tests only optional fields needed overloads for.
@MainActor
@Suite("Queries over optional fields")
struct OptionalFieldQueryTests {
    nonisolated static let seeds: [UInt64] = [0x0971_1001, 0x0971_1002, 0x0971_1003]

    // MARK: SQL

    @Test func optionalRangesAndMembershipsCompileAsTheirNonOptionalForms() throws {
        let cases: [(Where<OptPlayer>, String, [StoredValue])] = [
            (
                Where(\.$score, between: 1...3), "t0.\"score\" BETWEEN ? AND ?",
                [.integer(1), .integer(3)]
            ),
            (
                Where(\.$score, in: 1...3), "t0.\"score\" IN (?, ?, ?)",
                [.integer(1), .integer(2), .integer(3)]
            ),
            ((1...2) ~= \.$score, "t0.\"score\" IN (?, ?)", [.integer(1), .integer(2)]),
            (Where(\.$score, in: [1, 2]), "t0.\"score\" IN (?, ?)", [.integer(1), .integer(2)]),
            (
                Where(\.$score, in: [1, nil]), "(t0.\"score\" IN (?) OR t0.\"score\" IS NULL)",
                [.integer(1)]
            ),
            (
                !Where(\.$score, between: 1...3), "NOT coalesce(t0.\"score\" BETWEEN ? AND ?, FALSE)",
                [.integer(1), .integer(3)]
            ),
            (\.$score < 3, "t0.\"score\" < ?", [.integer(3)]),
            (\.$score == nil, "t0.\"score\" IS NULL", []),
            (
                Where(\.$mood, between: .calm ... .cross), "t0.\"mood\" BETWEEN ? AND ?",
                [.text("calm"), .text("cross")]
            ),
            (
                Where(\.$team ~ \.$rank, between: 1...2),
                "(SELECT t1.\"rank\" FROM \"OptTeam\" AS t1 WHERE t1._pk = t0.\"team\") BETWEEN ? AND ?",
                [.integer(1), .integer(2)]
            ),
        ]
        for (predicate, expectedSQL, expectedArguments) in cases {
            let (sql, arguments) = try condition(predicate)
            #expect(sql == expectedSQL)
            #expect(arguments == expectedArguments, "\(sql)")
        }
    }

    @Test func anUnstorableValueInAnOptionalMembershipFailsTheFetchNamingTheField() throws {
        let stack = try OptWorld(seed: 1, players: 3).stack()
        let nan = [1.0, .nan].lazy.map { $0 }
        do {
            _ = try stack.fetchAll(From<OptPlayer>().where(Where(\.$ratio, in: nan)))
            Issue.record("a NaN in a membership fetched")
        } catch StrataError.invalidValue(let entity, let field, _) {
            #expect(entity == "OptPlayer")
            #expect(field == "ratio")
        } catch {
            // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
            // catch that lets other errors through.
            throw error
        }
    }

    // MARK: Order

    @Test(arguments: seeds)
    func sortKeysOnOptionalFieldsPlaceNullsAsAsked(seed: UInt64) throws {
        let world = OptWorld(seed: seed)
        let stack = try world.stack()
        let players = try stack.fetchAll(From<OptPlayer>())
        typealias Key = OrderBy<OptPlayer>.SortKey
        let team = { (row: OptPlayerRow) in world.team(of: row) }
        for ascending in [true, false] {
            for nulls in [OrderBy<OptPlayer>.NullPlacement.automatic, .first, .last] {
                let nullsFirst = nulls == .first || (nulls == .automatic && ascending)
                func key<V, T: Comparable>(
                    _ keyPath: KeyPath<OptPlayer, Field.Stored<V>>,
                    _ value: @escaping (OptPlayerRow) -> T?
                ) -> (Key, (OptPlayerRow, OptPlayerRow) -> Bool?) {
                    (
                        ascending
                            ? .ascending(keyPath, nulls: nulls)
                            : .descending(keyPath, nulls: nulls),
                        {
                            sqlOrder(
                                value($0), value($1), ascending: ascending, nullsFirst: nullsFirst)
                        }
                    )
                }
                func key<V, T: Comparable>(
                    _ path: Where<OptPlayer>.Expression<V>, _ value: @escaping (OptPlayerRow) -> T?
                ) -> (Key, (OptPlayerRow, OptPlayerRow) -> Bool?) {
                    (
                        ascending
                            ? .ascending(path, nulls: nulls) : .descending(path, nulls: nulls),
                        {
                            sqlOrder(
                                value($0), value($1), ascending: ascending, nullsFirst: nullsFirst)
                        }
                    )
                }
                let keys: [(String, (Key, (OptPlayerRow, OptPlayerRow) -> Bool?))] = [
                    ("score", key(\.$score, \.score)), ("ratio", key(\.$ratio, \.ratio)),
                    ("nick", key(\.$nick, \.nick)), ("joined", key(\.$joined, \.joined)),
                    ("mood", key(\.$mood, \.mood)),
                    ("active", key(\.$active) { $0.active.map { $0 ? 1 : 0 } }),
                    ("team.name", key(\.$team ~ \.$name) { team($0)?.name }),
                    ("team.rank", key(\.$team ~ \.$rank) { team($0)?.rank }),
                ]
                for (name, (sortKey, before)) in keys {
                    let order = OrderBy(sortKey)
                    let expected = world.players.sorted {
                        before($0, $1) ?? ($0.serial < $1.serial)
                    }
                    .map(\.serial)
                    let context = "seed \(seed), \(name), ascending \(ascending), nulls \(nulls)"
                    #expect(
                        try stack.fetchAll(From<OptPlayer>().orderBy(order)).map(\.serial)
                            == expected, "\(context)")
                    #expect(
                        players.sorted(by: order.areInIncreasingOrder).map(\.serial) == expected,
                        "\(context)")
                }
            }
        }
    }

    // MARK: Aggregates

    @Test(arguments: seeds)
    func aggregatesOfOptionalFieldsSkipNulls(seed: UInt64) throws {
        let world = OptWorld(seed: seed)
        let stack = try world.stack()
        let subsets: [(String, Where<OptPlayer>, (OptPlayerRow) -> Bool)] = [
            ("all", Where(true), { _ in true }),
            ("active", \.$active == true, { $0.active == true }),
            ("score in 0...3", Where(\.$score, between: 0...3), { sqlBetween($0.score, 0...3) }),
            ("none", Where(false), { _ in false }),
        ]
        for (name, predicate, member) in subsets {
            let rows = world.players.filter(member)
            let query = From<OptPlayer>().where(predicate)
            let scores = rows.compactMap(\.score)
            let ratios = rows.compactMap(\.ratio)
            let prices = rows.compactMap(\.price)
            let ranks = rows.compactMap { world.team(of: $0)?.rank }
            let context = "seed \(seed), \(name)"
            let best: Int? = try stack.queryValue(query.select(Int?.self, .maximum(\.$score)))
            #expect(best == scores.max(), "\(context)")
            let least: Int? = try stack.queryValue(
                query.select(Select<OptPlayer, Int?>(.minimum(\.$score))))
            #expect(least == scores.min(), "\(context)")
            #expect(
                try stack.queryValue(query.select(Int.self, .sum(\.$score))) == scores.total,
                "\(context)")
            #expect(
                try stack.queryValue(query.select(Int.self, .count(\.$score))) == scores.count,
                "\(context)")
            #expect(
                try stack.queryValue(query.select(Int.self, .count())) == rows.count, "\(context)")
            #expect(
                try stack.queryValue(query.select(Double.self, .average(\.$score)))
                    == scores.nonEmptySum.map { Double($0) / Double(scores.count) }, "\(context)")
            #expect(
                try stack.queryValue(query.select(Double.self, .sum(\.$ratio)))
                    == ratios.total, "\(context)")
            #expect(
                try stack.queryValue(query.select(Decimal.self, .sum(\.$price)))
                    == prices.total, "\(context)")
            #expect(
                try stack.queryValue(query.select(Decimal.self, .maximum(\.$price)))
                    == prices.max(), "\(context)")
            #expect(
                try stack.queryValue(query.select(Date.self, .minimum(\.$joined)))
                    == rows.compactMap(\.joined).min(), "\(context)")
            #expect(
                try stack.queryValue(query.select(Int.self, .sum(\.$team ~ \.$rank)))
                    == ranks.total, "\(context)")
            #expect(
                try stack.queryValue(query.select(Int.self, .count(\.$team ~ \.$rank)))
                    == ranks.count, "\(context)")
        }
    }

    /// As in CoreStore, a count, sum or average is a number, never a `Date`
    /// (which reads any number as seconds since 1970): asked as a `Date` it is
    /// nil, on the stack and in a transaction, while the minimum and maximum
    /// of dates are dates, and the same number asked as a number is there.
    @Test(arguments: seeds)
    func aCountSumOrAverageIsNeverADate(seed: UInt64) throws {
        let world = OptWorld(seed: seed)
        let stack = try world.stack()
        let dates = world.players.compactMap(\.joined)
        let scores = world.players.compactMap(\.score)
        let numbers: [(String, SelectTerm<OptPlayer>)] = [
            ("count()", .count()), ("count(joined)", .count(\.$joined)), ("sum(joined)", .sum(\.$joined)),
            ("average(joined)", .average(\.$joined)), ("count(score)", .count(\.$score)),
            ("sum(score)", .sum(\.$score)), ("average(score)", .average(\.$score)),
        ]
        #expect(!dates.isEmpty && !scores.isEmpty, "seed \(seed)")
        for (name, term) in numbers {
            let query = From<OptPlayer>()
            #expect(try stack.queryValue(query.select(Date.self, term)) == nil, "seed \(seed), \(name)")
            #expect(try stack.queryValue(query.select(Date?.self, term)) == nil, "seed \(seed), \(name)")
            #expect(try stack.queryValue(query.select(Double.self, term)) != nil, "seed \(seed), \(name)")
            let inTransaction = try stack.perform(synchronous: { tx in
                try tx.queryValue(query.select(Date.self, term))
            })
            #expect(inTransaction == nil, "seed \(seed), \(name), in a transaction")
        }
        #expect(try stack.queryValue(From<OptPlayer>().select(Date.self, .minimum(\.$joined))) == dates.min())
        #expect(try stack.queryValue(From<OptPlayer>().select(Date.self, .maximum(\.$joined))) == dates.max())
        #expect(try stack.queryValue(From<OptPlayer>().select(Date.self, .attribute(\.$joined)))
            == world.players.first?.joined)
    }

    @Test(arguments: seeds)
    func groupsByAnOptionalFieldMakeOneGroupOfNulls(seed: UInt64) throws {
        let world = OptWorld(seed: seed)
        let stack = try world.stack()
        let rows = try stack.queryAttributes(
            From<OptPlayer>().select(.attribute(\.$nick), .count(as: "n"), .sum(\.$score)).groupBy(
                \.$nick))
        let groups = Dictionary(grouping: world.players, by: \.nick)
        let keys = sqlSorted(groups.keys)
        let expected: [[String: StoredValue]] = keys.map { nick in
            var row: [String: StoredValue] = ["n": .integer(Int64(groups[nick]!.count))]
            row["nick"] = nick.map(StoredValue.text)
            row["sum(score)"] = .integer(Int64(groups[nick]!.compactMap(\.score).total))
            return row
        }
        #expect(rows == expected, "seed \(seed)")

        let byRank = try stack.queryAttributes(
            From<OptPlayer>().select(.attribute(\.$team ~ \.$rank, as: "rank"), .count(as: "n"))
                .groupBy(\.$team ~ \.$rank))
        let rankGroups = Dictionary(grouping: world.players) { world.team(of: $0)?.rank }
        let rankKeys = sqlSorted(rankGroups.keys)
        let expectedRanks: [StoredValue?] = rankKeys.map {
            $0.map { StoredValue.integer(Int64($0)) }
        }
        let expectedCounts: [StoredValue?] = rankKeys.map { .integer(Int64(rankGroups[$0]!.count)) }
        #expect(byRank.map { $0["rank"] } == expectedRanks, "seed \(seed)")
        #expect(byRank.map { $0["n"] } == expectedCounts, "seed \(seed)")
    }

    // MARK: Sections

    @Test(arguments: seeds)
    func sectionsByAnOptionalFieldFollowEdits(seed: UInt64) throws {
        var world = OptWorld(seed: seed)
        let stack = try world.stack()
        let byScore = try stack.monitorList(
            From<OptPlayer>().orderBy(.ascending(\.$serial)).sectionBy(\.$score, scoreSection))
        let byTeamName = try stack.monitorList(
            From<OptPlayer>().orderBy(.descending(\.$serial)).sectionBy(
                SectionBy(\.$team ~ \.$name)))
        var random = SplitMix64(seed: seed ^ 0x5EC7)
        for round in 0..<4 {
            let context = "seed \(seed), round \(round)"
            let scores = Dictionary(grouping: world.players, by: \.score)
            let scoreKeys = sqlSorted(scores.keys)
            #expect(
                byScore.sectionNames() == scoreKeys.map(scoreSection),
                "\(context)")
            for (section, key) in scoreKeys.enumerated() {
                #expect(
                    byScore.objects(in: section).map(\.serial) == scores[key]!.map(\.serial),
                    "\(context)")
            }
            let names = Dictionary(grouping: world.players) { world.team(of: $0)?.name }
            let nameKeys = sqlSorted(names.keys)
            #expect(byTeamName.sectionNames() == nameKeys.map { $0 ?? "" }, "\(context)")
            // Each section in the list's own order, by descending serial.
            let bySection: [Int] = nameKeys.flatMap { names[$0]!.reversed().map(\.serial) }
            #expect(byTeamName.objectsInAllSections().map(\.serial) == bySection, "\(context)")

            // Some scores become NULL, some NULLs values, some players change teams.
            let edits: [(serial: Int, score: Int?, team: Int?)] = (0..<8).map { _ in
                (
                    Int.random(in: 0..<world.players.count, using: &random),
                    Bool.random(using: &random) ? nil : Int.random(in: -2...6, using: &random),
                    Int.random(in: 0..<5, using: &random) == 0
                        ? nil : Int.random(in: 0..<4, using: &random)
                )
            }
            for (serial, score, team) in edits {
                world.players[serial].score = score
                world.players[serial].team = team
            }
            try stack.perform(synchronous: { tx in
                let teams = try tx.fetchAll(From<OptTeam>())
                for (serial, score, team) in edits {
                    let player = try #require(
                        try tx.fetchOne(From<OptPlayer>().where(\.$serial == serial)))
                    player.score = score
                    player.team = team.map { teams[$0] }
                }
            })
        }
        withExtendedLifetime((byScore, byTeamName)) {}
    }
}

extension Array where Element: AdditiveArithmetic {
    /// The sum, or `nil` for no elements, as SQL's `avg` needs it.
    fileprivate var nonEmptySum: Element? { isEmpty ? nil : reduce(.zero, +) }

    /// The sum, 0 for no elements, as a query's `sum` answers (Core Data's `total`).
    fileprivate var total: Element { reduce(.zero, +) }
}
