import Foundation
import Testing

@testable import Strata
import ThrowawayPostgreSQL

/// `Decimal` fields compare and sort by number, in SQL on every store and in
/// memory (monitors), as Core Data's decimal attributes do: `9 < 10`.
@MainActor
@Suite("Decimal fields compare and sort by number, in SQL and in memory")
struct DecimalComparisonTests {
    nonisolated static let cases: [(StoreKind, UInt64)] =
        StoreKind.allCases.map { ($0, 0xDEC0_C001) } + [(.inMemory, 0xDEC0_C002), (.inMemory, SplitMix64.random().seed)]

    /// Values that order differently as text and as numbers, and random ones.
    static func randomPrice(_ random: inout SplitMix64) -> Decimal {
        let pool: [Decimal] = [0, 9, 10, 100, -1, -2, -10, Decimal(string: "9.5")!, Decimal(string: "-1.5")!,
                               Decimal(string: "0.001")!, Decimal(string: "1e20")!, Decimal(string: "-3e-7")!]
        return random.next() % 2 == 0
            ? pool[Int(random.next() % UInt64(pool.count))] : SelectDecimalTests.randomDecimal(&random)
    }

    /// One line as the test models it.
    struct Line: Equatable {
        var rowID: Int64
        var price: Decimal
        var discount: Decimal?
    }

    /// A random test on price or discount, and the Swift predicate it means.
    static func randomTest(_ random: inout SplitMix64) -> (Where<DecLine>, (Line) -> Bool, String) {
        let bound = randomPrice(&random)
        let other = randomPrice(&random)
        let onPrice = random.next() % 2 == 0
        let value = { (line: Line) -> Decimal? in onPrice ? line.price : line.discount }
        let name = onPrice ? "price" : "discount"
        switch random.next() % 5 {
        case 0:
            return (onPrice ? \.$price < bound : \.$discount < bound, { value($0).map { $0 < bound } ?? false },
                    "\(name) < \(bound)")
        case 1:
            return (onPrice ? \.$price <= bound : \.$discount <= bound, { value($0).map { $0 <= bound } ?? false },
                    "\(name) <= \(bound)")
        case 2:
            return (onPrice ? \.$price > bound : \.$discount > bound, { value($0).map { $0 > bound } ?? false },
                    "\(name) > \(bound)")
        case 3:
            return (onPrice ? \.$price >= bound : \.$discount >= bound, { value($0).map { $0 >= bound } ?? false },
                    "\(name) >= \(bound)")
        default:
            let range = min(bound, other)...max(bound, other)
            return (onPrice ? Where(\.$price, between: range) : Where(\.$discount, between: range),
                    { value($0).map { range.contains($0) } ?? false }, "\(name) in \(range)")
        }
    }

    /// A random order on price or discount, and how it sorts the model (NULLs
    /// first ascending, last descending; then by row ID, as Strata does).
    static func randomOrder(_ random: inout SplitMix64) -> (OrderBy<DecLine>, ([Line]) -> [Line], String) {
        let onPrice = random.next() % 2 == 0
        let ascending = random.next() % 2 == 0
        let key: OrderBy<DecLine>.SortKey = switch (onPrice, ascending) {
        case (true, true): .ascending(\.$price)
        case (true, false): .descending(\.$price)
        case (false, true): .ascending(\.$discount)
        case (false, false): .descending(\.$discount)
        }
        let sort = { (lines: [Line]) in
            lines.sorted { a, b in
                let (x, y) = onPrice ? (a.price as Decimal?, b.price as Decimal?) : (a.discount, b.discount)
                if x != y {
                    guard let x else { return ascending }
                    guard let y else { return !ascending }
                    return ascending ? x < y : x > y
                }
                return a.rowID < b.rowID
            }
        }
        return (OrderBy(key), sort, "\(onPrice ? "price" : "discount") \(ascending ? "ascending" : "descending")")
    }

    /// Random filters and orders over random lines: each fetch returns what
    /// Swift's `Decimal` comparison selects, in its order; a monitor of each
    /// stays equal to it through random commits (evaluated in memory).
    @Test(arguments: cases)
    func comparisonsAndOrdersFollowTheNumbers(kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(decimalSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for _ in 0..<80 {
                let line = tx.create(Into<DecLine>())
                line.price = Self.randomPrice(&random)
                line.discount = random.next() % 4 == 0 ? nil : Self.randomPrice(&random)
            }
        })
        let queries = (0..<16).map { _ in (Self.randomTest(&random), Self.randomOrder(&random)) }
        let monitors = try queries.map { test, order in
            try stack.monitorList(From<DecLine>().where(test.0).orderBy(order.0))
        }
        for round in 0..<4 {
            let lines = try stack.fetchAll(From<DecLine>()).map { Line(rowID: $0.rowID, price: $0.price, discount: $0.discount) }
            for ((test, order), monitor) in zip(queries, monitors) {
                let context = "\(kind), seed \(seed), round \(round): \(test.2), \(order.2)"
                let expected = order.1(lines.filter(test.1)).map(\.rowID)
                let fetched = try stack.fetchAll(From<DecLine>().where(test.0).orderBy(order.0))
                #expect(fetched.map(\.rowID) == expected, "\(context)")
                #expect(try stack.fetchCount(From<DecLine>().where(test.0)) == expected.count, "\(context)")
                #expect(monitor.objectsInAllSections().map(\.rowID) == expected, "monitor, \(context)")
            }
            // Random changes, which the monitors merge in memory.
            try stack.perform(synchronous: { tx in
                for line in try tx.fetchAll(From<DecLine>()) where random.next() % 4 == 0 {
                    switch random.next() % 5 {
                    case 0: tx.delete(line)
                    case 1: line.discount = nil
                    default:
                        line.price = Self.randomPrice(&random)
                        line.discount = Self.randomPrice(&random)
                    }
                }
                for _ in 0..<5 { tx.create(Into<DecLine>()).price = Self.randomPrice(&random) }
            })
        }
    }

    /// The examples a letter-by-letter comparison gets wrong; equality needs
    /// no spelling (`1.50` finds `1.5`).
    @Test(arguments: StoreKind.allCases)
    func nineIsLessThanTen(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(decimalSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for text in ["9", "10", "1.5", "-2", "-10", "100"] {
                tx.create(Into<DecLine>()).price = Decimal(string: text)!
            }
        })
        let prices = { (query: From<DecLine>) in try stack.fetchAll(query).map { "\($0.price)" } }
        #expect(try prices(From<DecLine>().where(\.$price < 10).orderBy(.ascending(\.$price))) == ["-10", "-2", "1.5", "9"])
        #expect(try prices(From<DecLine>().where(\.$price >= 10).orderBy(.descending(\.$price))) == ["100", "10"])
        #expect(try prices(From<DecLine>().where(\.$price == Decimal(string: "1.50")!)) == ["1.5"])
        #expect(try stack.queryValue(From<DecLine>().select(Decimal.self, .minimum(\.$price))
            .where(\.$price > -5)) == Decimal(string: "-2"))
        #expect(try prices(From<DecLine>().where(!(\.$price < 9)).orderBy(.ascending(\.$price))) == ["9", "10", "100"])
        // Sections by a decimal come in number order too, in SQL and in the monitor.
        let sectioned = try stack.monitorList(
            From<DecLine>().sectionBy(SectionBy(\.$price)).orderBy(.ascending(\.$price)))
        #expect(sectioned.sectionNames() == ["-10", "-2", "1.5", "9", "10", "100"])
        try stack.perform(synchronous: { tx in tx.create(Into<DecLine>()).price = Decimal(string: "9.75")! })
        #expect(sectioned.sectionNames() == ["-10", "-2", "1.5", "9", "9.75", "10", "100"])
    }

    /// A PostgreSQL schema made before `strata_decimal` existed gets it on
    /// the next open (the store looks for its newest function), and its
    /// decimals then sort by number.
    @Test(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
    func aPostgreSQLSchemaWithoutTheFunctionGetsItWhenOpened() throws {
        let directory = TemporaryDirectory()
        do {
            let stack = try makeStack(decimalSchema, .postgreSQL, in: directory)
            try stack.perform(synchronous: { tx in
                for text in ["10", "9"] { tx.create(Into<DecLine>()).price = Decimal(string: text)! }
            })
        }
        let connection = try postgreSQLStore(in: directory).settings.openConnection(.inspector)
        try connection.execute("DROP FUNCTION strata_decimal(text)")
        connection.close()
        let stack = try makeStack(decimalSchema, .postgreSQL, in: directory)
        #expect(try stack.fetchAll(From<DecLine>().orderBy(.ascending(\.$price))).map { "\($0.price)" } == ["9", "10"])
    }

    /// A decimal column holding text that is not a decimal (written with
    /// raw SQL) fails an order comparison with a typed error, as the
    /// aggregates do, where comparing letters would answer quietly.
    @Test
    func textThatIsNoDecimalFailsTheQuery() throws {
        let directory = TemporaryDirectory()
        do {
            let stack = try makeStack(decimalSchema, .file, in: directory)
            try stack.perform(synchronous: { tx in tx.create(Into<DecLine>()).price = 1 })
        }
        let connection = try Connection(path: storeURL(in: directory).path, readOnly: false)
        try connection.execute("UPDATE \"DecLine\" SET \"price\" = 'lots'")
        connection.close()
        let stack = try makeStack(decimalSchema, .file, in: directory)
        #expect(throws: StrataError.self) { try stack.fetchAll(From<DecLine>().where(\.$price > 0)) }
        #expect(throws: StrataError.self) { try stack.fetchAll(From<DecLine>().orderBy(.ascending(\.$price))) }
        // Equality still compares the text.
        #expect(try stack.fetchCount(From<DecLine>().where(\.$price == 1)) == 0)
    }
}
