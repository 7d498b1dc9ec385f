import Foundation
import Testing

@testable import Strata

/// The players of a world `queryValue` reads over, as a `Where` and as the same test in Swift.
private struct PlayerSubset: CustomStringConvertible {
    var clause: Where<OptPlayer>
    var test: (OptPlayerRow) -> Bool
    var description: String

    /// Every player, none, and random runs of serials.
    static func some(_ count: Int, using random: inout SplitMix64) -> [PlayerSubset] {
        var subsets = [
            PlayerSubset(clause: Where(true), test: { _ in true }, description: "all"),
            PlayerSubset(clause: Where(false), test: { _ in false }, description: "none"),
        ]
        for _ in 0..<3 {
            let low = Int.random(in: 0..<count, using: &random)
            let high = Int.random(in: low..<count, using: &random)
            subsets.append(
                PlayerSubset(
                    clause: Where(\.$serial, between: low...high),
                    test: { (low...high).contains($0.serial) },
                    description: "serial in \(low)...\(high)"))
        }
        return subsets
    }
}

/// The mean of `values`, as SQL's `avg` computes it; `nil` for none.
private func mean(_ values: [Double]) -> Double? {
    values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
}

/// A real as CoreStore's decimal sum or average reads it: the decimal Swift prints for it.
private func printedDecimal(_ real: Double?) -> Decimal? {
    real.flatMap { Decimal(string: "\($0)", locale: Locale(identifier: "en_US_POSIX")) }
}

/// `queryValue` reads a result as CoreStore reads it through `NSNumber`,
/// `NSDecimalNumber` and `NSDate`, held to Swift's answer over seeded worlds:
/// a number is never a `Date`, and a real is a `Decimal`.
@MainActor
@Suite("Select: queryValue reads a result as CoreStore does")
struct SelectTermReadingTests {
    nonisolated static let seeds: [UInt64] = [0x5E1E_C701, 0x5E1E_C702, 0x5E1E_C703]

    /// Only a `Date` field's value, minimum or maximum is a `Date`: the
    /// value, minimum or maximum of a number field is a number, which as a
    /// `Date` would be seconds since 1970. Each number term is asked over
    /// players that have the value, so that it is there as a `Double`.
    @Test(arguments: StoreKind.allCases, seeds)
    func onlyADateFieldsValueIsADate(_ kind: StoreKind, seed: UInt64) throws {
        let world = OptWorld(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(optionalSchema, kind, in: directory)
        try world.fill(stack)
        let numbers: [(String, SelectTerm<OptPlayer>, Where<OptPlayer>)] = [
            ("score", .attribute(\.$score), \.$score != nil),
            ("min(score)", .minimum(\.$score), \.$score != nil),
            ("max(score)", .maximum(\.$score), \.$score != nil),
            ("sum(score)", .sum(\.$score), \.$score != nil),
            ("ratio", .attribute(\.$ratio), \.$ratio != nil),
            ("min(ratio)", .minimum(\.$ratio), \.$ratio != nil),
            ("max(ratio)", .maximum(\.$ratio), \.$ratio != nil),
            ("price", .attribute(\.$price), \.$price != nil),
            ("max(price)", .maximum(\.$price), \.$price != nil),
            ("team.rank", .attribute(\.$team ~ \.$rank), (\.$team ~ \.$rank) != nil),
            ("min(team.rank)", .minimum(\.$team ~ \.$rank), (\.$team ~ \.$rank) != nil),
            ("count()", .count(), Where(true)),
            ("count(joined)", .count(\.$joined), Where(true)),
            ("sum(joined)", .sum(\.$joined), \.$joined != nil),
            ("average(joined)", .average(\.$joined), \.$joined != nil),
        ]
        for (name, term, present) in numbers {
            let query = From<OptPlayer>().where(present).orderBy(.ascending(\.$serial))
            let context = "\(kind), seed \(seed), \(name)"
            #expect(try stack.queryValue(query.select(Double.self, term)) != nil, "\(context)")
            #expect(try stack.queryValue(query.select(Date.self, term)) == nil, "\(context)")
            #expect(try stack.queryValue(query.select(Date?.self, term)) == nil, "\(context)")
            let inTransaction = try stack.perform(synchronous: { tx in
                try tx.queryValue(query.select(Date.self, term))
            })
            #expect(inTransaction == nil, "\(context), in a transaction")
        }
        let dates = world.players.compactMap(\.joined)
        let joined = From<OptPlayer>().where(\.$joined != nil).orderBy(.ascending(\.$serial))
        #expect(
            try stack.queryValue(joined.select(Date.self, .attribute(\.$joined))) == dates.first)
        #expect(try stack.queryValue(joined.select(Date.self, .minimum(\.$joined))) == dates.min())
        #expect(try stack.queryValue(joined.select(Date?.self, .maximum(\.$joined))) == dates.max())
    }

    /// A sum or average is a decimal to CoreStore (an `NSDecimalNumber`), so
    /// a real one asked as `Decimal` is the decimal Swift prints for it, as
    /// is a real minimum or maximum; over no value it is `nil` whatever the
    /// type asked for, as the average of `Decimal`s is.
    @Test(arguments: StoreKind.allCases, seeds)
    func aRealAskedAsDecimalIsTheDecimalItPrintsAs(_ kind: StoreKind, seed: UInt64) throws {
        let world = OptWorld(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(optionalSchema, kind, in: directory)
        try world.fill(stack)
        var random = SplitMix64(seed: seed)
        for subset in PlayerSubset.some(world.players.count, using: &random) {
            let rows = world.players.filter(subset.test)
            let scores = rows.compactMap(\.score).map(Double.init)
            let ratios = rows.compactMap(\.ratio)
            let ranks = rows.compactMap { world.team(of: $0)?.rank }.map(Double.init)
            let reals: [(String, SelectTerm<OptPlayer>, Double?)] = [
                ("average(score)", .average(\.$score), mean(scores)),
                ("average(ratio)", .average(\.$ratio), mean(ratios)),
                ("sum(ratio)", .sum(\.$ratio), ratios.reduce(0, +)),
                ("min(ratio)", .minimum(\.$ratio), ratios.min()),
                ("max(ratio)", .maximum(\.$ratio), ratios.max()),
                ("average(team.rank)", .average(\.$team ~ \.$rank), mean(ranks)),
            ]
            let query = From<OptPlayer>().where(subset.clause)
            for (name, term, expected) in reals {
                let context = "\(kind), seed \(seed), \(subset), \(name)"
                let decimal = try stack.queryValue(query.select(Decimal.self, term))
                #expect(decimal == printedDecimal(expected), "\(context)")
                let double = try stack.queryValue(query.select(Double.self, term))
                #expect(decimal == printedDecimal(double), "\(context)")
            }
            let sum = Decimal(Int(scores.reduce(0, +)))
            #expect(
                try stack.queryValue(query.select(Decimal.self, .sum(\.$score))) == sum,
                "\(kind), seed \(seed), \(subset), sum(score)")
            guard rows.isEmpty else { continue }
            // No value: nil as every type, for every field's average.
            let averages: [SelectTerm<OptPlayer>] = [
                .average(\.$score), .average(\.$ratio), .average(\.$price),
            ]
            for term in averages {
                let context = "\(kind), seed \(seed), \(subset), \(term.name)"
                #expect(try stack.queryValue(query.select(Decimal.self, term)) == nil, "\(context)")
                #expect(try stack.queryValue(query.select(Double.self, term)) == nil, "\(context)")
                #expect(try stack.queryValue(query.select(Int.self, term)) == nil, "\(context)")
                #expect(try stack.queryValue(query.select(Bool.self, term)) == nil, "\(context)")
            }
        }
    }
}
