import Foundation
import Strata
import Testing

/// A priced line; the `Dec` prefix keeps the model apart from other files'.
final class DecLine: ManagedObject {
    @Field.Stored("group") var group: Int = 0
    @Field.Stored("price") var price: Decimal = 0
    @Field.Stored("discount") var discount: Decimal? = nil
}

let decimalSchema = Schema("Dec1", entities: [Entity<DecLine>("DecLine")])

@MainActor
@Suite("Select: aggregates over Decimal fields are exact decimals")
struct SelectDecimalTests {
    /// A decimal with up to 20 digits before the point and 8 after, either sign.
    static func randomDecimal(_ random: inout SplitMix64) -> Decimal {
        let digits = String(random.next() % 100_000_000_000)
        let fraction = String(format: "%08llu", random.next() % 100_000_000)
        let sign = random.next() % 3 == 0 ? "-" : ""
        return Decimal(string: "\(sign)\(digits).\(fraction)", locale: Locale(identifier: "en_US_POSIX"))!
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func sumAverageMinimumAndMaximumAgreeWithSwiftDecimal(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(decimalSchema, .inMemory, in: directory)
        let prices = (0..<200).map { _ in Self.randomDecimal(&random) } + [9, 10, Decimal(string: "9.5")!]
        let discounts = prices.indices.map { $0 % 3 == 0 ? nil : Self.randomDecimal(&random) }
        try stack.perform(synchronous: { tx in
            for (index, price) in prices.enumerated() {
                let line = tx.create(Into<DecLine>())
                line.group = index % 4
                line.price = price
                line.discount = discounts[index]
            }
        })
        let query = From<DecLine>()
        #expect(try stack.queryValue(query.select(Decimal.self, .sum(\.$price))) == prices.reduce(0, +))
        #expect(try stack.queryValue(query.select(Decimal.self, .minimum(\.$price))) == prices.min())
        #expect(try stack.queryValue(query.select(Decimal.self, .maximum(\.$price))) == prices.max())
        let average = try #require(try stack.queryValue(query.select(Decimal.self, .average(\.$price))))
        #expect(average == prices.reduce(0, +) / Decimal(prices.count))
        // NULLs are skipped, as SQL does.
        let present = discounts.compactMap { $0 }
        #expect(try stack.queryValue(query.select(Decimal.self, .sum(\.$discount))) == present.reduce(0, +))
        #expect(try stack.queryValue(query.select(Decimal.self, .maximum(\.$discount))) == present.max())
        // Per group.
        let rows = try stack.queryAttributes(
            query.select(.attribute(\.$group), .sum(\.$price, as: "total")).groupBy(\.$group))
        for row in rows {
            guard case .integer(let group)? = row["group"], case .text(let total)? = row["total"] else {
                Issue.record("row \(row)")
                continue
            }
            let expected = prices.indices.filter { $0 % 4 == Int(group) }.map { prices[$0] }.reduce(0, +)
            #expect(Decimal(string: total, locale: Locale(identifier: "en_US_POSIX")) == expected, "group \(group)")
        }
    }

    @Test
    func minimumAndMaximumCompareNumbersNotText() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(decimalSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for price in ["9", "10", "-2.5", "100.01"] {
                tx.create(Into<DecLine>()).price = Decimal(string: price)!
            }
        })
        #expect(try stack.queryValue(From<DecLine>().select(Decimal.self, .maximum(\.$price))) == Decimal(string: "100.01"))
        #expect(try stack.queryValue(From<DecLine>().select(Decimal.self, .minimum(\.$price))) == Decimal(string: "-2.5"))
    }

    /// A decimal with up to 19 digits before the point and 4 after, either
    /// sign: past the 15 to 17 digits a `Double` holds.
    static func randomLongDecimal(_ random: inout SplitMix64) -> Decimal {
        let digits = String(random.next() % 10_000_000_000_000_000_000 >> (random.next() % 40))
        let fraction = String(format: "%04llu", random.next() % 10_000)
        let sign = random.next() % 3 == 0 ? "-" : ""
        let text = "\(sign)\(digits).\(fraction)"
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))!
    }

    /// The whole part of `decimal` (toward zero) as an `Int64`, read from its
    /// text; `nil` when it does not fit.
    static func wholePart(_ decimal: Decimal) -> Int64? {
        Int64(decimal.description.split(separator: ".", maxSplits: 1)[0])
    }

    /// A decimal result is a number to CoreStore (an `NSDecimalNumber`), so
    /// asked as a number type it narrows as `NSDecimalNumber` does: to the
    /// nearest `Double` and `Float`, to its whole part (toward zero, every
    /// digit kept) in an integer type that holds it, to `true` unless zero.
    @Test(arguments: StoreKind.allCases, [UInt64(11), 12, 13])
    func decimalResultsNarrowAsNSDecimalNumberDoes(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(decimalSchema, kind, in: directory)
        let prices = (0..<(1 + Int(random.next() % 6))).map { _ in Self.randomLongDecimal(&random) }
        try stack.perform(synchronous: { tx in
            for price in prices { tx.create(Into<DecLine>()).price = price }
        })
        let query = From<DecLine>()
        let results: [(String, SelectTerm<DecLine>, Decimal)] = [
            ("sum", .sum(\.$price), prices.reduce(0, +)),
            ("min", .minimum(\.$price), prices.min()!),
            ("max", .maximum(\.$price), prices.max()!),
            ("first", .attribute(\.$price), prices[0]),
        ]
        for (name, term, expected) in results {
            let context = "\(kind), seed \(seed), \(name) of \(prices): \(expected)"
            let real = Double(expected.description)!
            let whole = Self.wholePart(expected)
            #expect(try stack.queryValue(query.select(Double.self, term)) == real, "\(context)")
            #expect(
                try stack.queryValue(query.select(Float.self, term)) == Float(real), "\(context)")
            #expect(try stack.queryValue(query.select(Int64.self, term)) == whole, "\(context)")
            #expect(
                try stack.queryValue(query.select(Int8.self, term))
                    == whole.flatMap(Int8.init(exactly:)), "\(context)")
            #expect(
                try stack.queryValue(query.select(Bool.self, term)) == (expected != 0), "\(context)")
        }
        // The average: 38 digits here, more on PostgreSQL; the same whole
        // part, and the same `Double` within one step.
        let average = prices.reduce(0, +) / Decimal(prices.count)
        let context = "\(kind), seed \(seed), average of \(prices): \(average)"
        let real = try #require(
            try stack.queryValue(query.select(Double.self, .average(\.$price))), "\(context)")
        #expect(abs(real - Double(average.description)!) <= abs(real).ulp, "\(context)")
        #expect(
            try stack.queryValue(query.select(Int.self, .average(\.$price)))
                == Self.wholePart(average).map(Int.init), "\(context)")
    }

    @Test
    func noRowsGiveASumOfZeroAndNoAverage() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(decimalSchema, .inMemory, in: directory)
        #expect(try stack.queryValue(From<DecLine>().select(Decimal.self, .sum(\.$price))) == 0)
        #expect(try stack.queryValue(From<DecLine>().select(Decimal.self, .average(\.$price))) == nil)
        #expect(try stack.queryValue(From<DecLine>().select(Int.self, .count(\.$price))) == 0)
    }
}
