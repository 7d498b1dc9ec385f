import Foundation
import Testing

@testable import Strata

/// The sum of an integer field is an integer on every store: exact up to
/// `Int64`'s limits, and an error past them, never a rounded real.
@MainActor
@Suite("Select: the sum of integers is an exact integer or an error")
struct SelectSumTests {
    /// Random ages near a third of `Int64`'s limits, some sums fitting and some not:
    /// a sum that fits is exact, as `Int` and in `queryAttributes` (where
    /// PostgreSQL's `sum` of a `bigint`, a `numeric`, would come back as the
    /// nearest `Double`), and one that does not throws, as SQLite's does.
    @Test(arguments: StoreKind.allCases, [UInt64(0x5E3_0001), 0x5E3_0002, 0x5E3_0003])
    func anIntegerSumIsExactOrThrows(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        // A third of Int64's range each, of one sign, so that partial sums
        // only grow: three of them fit or not by a few hundred either way.
        let negative = random.next() % 2 == 0
        let ages = (0..<6).map { _ -> Int in
            let near = Int(random.next() % 1_000) - 500
            return negative ? Int.min / 3 + near : Int.max / 3 + near
        }
        try stack.perform(synchronous: { tx in
            for (serial, age) in ages.enumerated() {
                let person = tx.create(Into<SelPerson>())
                person.serial = serial
                person.age = age
            }
        })
        // Every run of consecutive people: some sums fit, some do not.
        for start in ages.indices {
            for end in start..<ages.count {
                let run = ages[start...end]
                let query = From<SelPerson>().where(Where(\.$serial, between: start...end))
                var sum: Int? = 0
                for age in run {
                    sum = sum.flatMap { total in
                        let (next, overflow) = total.addingReportingOverflow(age)
                        return overflow ? nil : next
                    }
                }
                let context = "\(kind), seed \(seed), ages \(Array(run)), "
                    + "sum \(sum.map(String.init) ?? "overflow")"
                if let sum {
                    #expect(
                        try stack.queryValue(query.select(Int.self, .sum(\.$age))) == sum,
                        "\(context)")
                    #expect(
                        try stack.queryAttributes(query.select(.sum(\.$age, as: "total")))
                            == [["total": .integer(Int64(sum))]], "\(context)")
                } else {
                    #expect(throws: StrataError.self, "\(context)") {
                        _ = try stack.queryValue(query.select(Int.self, .sum(\.$age)))
                    }
                    #expect(throws: StrataError.self, "\(context)") {
                        _ = try stack.queryAttributes(query.select(.sum(\.$age)))
                    }
                }
            }
        }
    }
}
