import Foundation
import Testing

@testable import Strata

// The models the Select tests use. Class names start with `Sel` so that they
// never clash with other test files' models.

/// A person with fields of every kind an aggregate reads, some of them optional.
final class SelPerson: ManagedObject {
    @Field.Stored("serial") var serial: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("city") var city: String? = nil
    @Field.Stored("team") var team: Int = 0
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("score") var score: Double? = nil
    @Field.Relationship("pets", inverse: \SelPet.$owner) var pets: Set<SelPet>
}

/// A pet, for terms and groups reached through a to-one relationship.
final class SelPet: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: SelPerson?
}

enum SelSchema {
    static let schema = Schema(
        "SelV1", entities: [Entity<SelPerson>("SelPerson"), Entity<SelPet>("SelPet")])
}

/// A row of `queryAttributes`.
private typealias Row = [String: StoredValue]

/// One person's values as the tests model them in Swift.
private struct PersonRow: Sendable {
    var serial: Int
    var name: String
    var city: String?
    var team: Int
    var age: Int
    var score: Double?

    static let cities: [String?] = ["Lima", "Oslo", "Rome", "Åre", nil]

    static func random(serial: Int, using random: inout SplitMix64) -> PersonRow {
        PersonRow(
            serial: serial, name: "p\(serial)",
            city: cities.randomElement(using: &random)!,
            team: Int.random(in: 0..<3, using: &random),
            age: Int.random(in: 0..<90, using: &random),
            // Quarters add up exactly, so SQL and Swift sums agree to the bit.
            score: Bool.random(using: &random)
                ? Double(Int.random(in: 0..<400, using: &random)) / 4 : nil)
    }

    func write(to person: SelPerson) {
        person.serial = serial
        person.name = name
        person.city = city
        person.team = team
        person.age = age
        person.score = score
    }
}

/// The terms the aggregate tests select, under their default names.
private let aggregateTerms: [SelectTerm<SelPerson>] = [
    .count(), .count(\.$score), .sum(\.$age), .average(\.$age), .minimum(\.$age), .maximum(\.$age),
    .sum(\.$score), .average(\.$score), .minimum(\.$score), .maximum(\.$score),
]

/// What `aggregateTerms` should return for `rows`, computed in Swift; NULLs
/// left out. A sum of nothing is 0, as Core Data's is.
private func expectedAggregates(_ rows: [PersonRow]) -> Row {
    var result: Row = ["count": .integer(Int64(rows.count))]
    let scores = rows.compactMap(\.score)
    result["count(score)"] = .integer(Int64(scores.count))
    result["sum(age)"] = .integer(Int64(rows.map(\.age).reduce(0, +)))
    result["sum(score)"] = .real(scores.reduce(0, +))
    if !rows.isEmpty {
        let ages = rows.map(\.age)
        result["average(age)"] = .real(Double(ages.reduce(0, +)) / Double(ages.count))
        result["min(age)"] = .integer(Int64(ages.min()!))
        result["max(age)"] = .integer(Int64(ages.max()!))
    }
    if !scores.isEmpty {
        result["average(score)"] = .real(scores.reduce(0, +) / Double(scores.count))
        result["min(score)"] = .real(scores.min()!)
        result["max(score)"] = .real(scores.max()!)
    }
    return result
}

/// Whether two rows hold the same names and values, reals within a relative 1e-12.
private func sameRow(_ lhs: Row, _ rhs: Row) -> Bool {
    guard Set(lhs.keys) == Set(rhs.keys) else { return false }
    return lhs.allSatisfy { name, value in
        if case .real(let a) = value, case .real(let b) = rhs[name]! {
            return abs(a - b) <= 1e-12 * max(1, abs(a), abs(b))
        }
        return value == rhs[name]!
    }
}

/// Inserts `count` random people in one transaction and returns their rows.
@MainActor
private func seedPeople(_ stack: DataStack, count: Int, using random: inout SplitMix64) throws
    -> [PersonRow]
{
    let rows = (0..<count).map { PersonRow.random(serial: $0, using: &random) }
    try stack.perform(synchronous: { tx in
        for row in rows { row.write(to: tx.create(Into<SelPerson>())) }
    })
    return rows
}

/// A filter both ways: as a `Where` and as the same test in Swift.
private struct Filter: Sendable, CustomStringConvertible {
    var clause: Where<SelPerson>?
    var test: @Sendable (PersonRow) -> Bool
    var description: String

    static let none = Filter(clause: nil, test: { _ in true }, description: "no filter")

    static func random(using random: inout SplitMix64) -> Filter {
        let threshold = Int.random(in: 0..<90, using: &random)
        let city = PersonRow.cities.randomElement(using: &random)!
        return Filter(
            clause: \.$age >= threshold && \.$city != city,
            test: { $0.age >= threshold && $0.city != city },
            description: "age >= \(threshold) && city != \(city ?? "nil")")
    }
}

/// The key of a `city`/`team` group, as a row of `queryAttributes` names it.
private func groupKey(_ row: Row) -> String {
    let city = row["city"].map(String.init(describing:)) ?? "NULL"
    return "\(city)/\(row["team"].map(String.init(describing:)) ?? "NULL")"
}

/// The rows of a query grouped by city and team, ordered by team descending
/// (then by the group keys, city ascending with NULL first), computed in Swift.
private func expectedGroups(_ rows: [PersonRow]) -> [Row] {
    let groups = Dictionary(grouping: rows) { GroupID(city: $0.city, team: $0.team) }
    return groups.keys.sorted().map { key in
        var row = expectedAggregates(groups[key]!)
        if let city = key.city { row["city"] = .text(city) }
        row["team"] = .integer(Int64(key.team))
        return row
    }
}

/// A city/team group, in the order the grouped queries sort by.
private struct GroupID: Hashable, Comparable {
    var city: String?
    var team: Int

    static func < (lhs: GroupID, rhs: GroupID) -> Bool {
        if lhs.team != rhs.team { return lhs.team > rhs.team }
        switch (lhs.city, rhs.city) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        // SQLite's BINARY collation compares UTF-8 bytes.
        case let (a?, b?): return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
    }
}

/// The grouped query `expectedGroups` models.
private func groupedQuery(_ filter: Filter) -> QueryChain<SelPerson, Row> {
    var from = From<SelPerson>()
    if let clause = filter.clause { from = from.where(clause) }
    return from.select(Select([.attribute(\.$city), .attribute(\.$team)] + aggregateTerms))
        .groupBy(\.$city, \.$team)
        .orderBy(.descending(\.$team))
}

/// Checks every aggregate, ungrouped and grouped, with `filter`, against `rows`.
private func checkAggregates(
    _ rows: [PersonRow], _ filter: Filter, seed: UInt64,
    queryAttributes: (QueryChain<SelPerson, Row>) throws -> [Row],
    queryInt: (QueryChain<SelPerson, Int>) throws -> Int?,
    queryDouble: (QueryChain<SelPerson, Double>) throws -> Double?
) throws {
    let matching = rows.filter(filter.test)
    let context = "seed \(seed), \(filter)"
    var from = From<SelPerson>()
    if let clause = filter.clause { from = from.where(clause) }

    let ungrouped = try queryAttributes(from.select(Select(aggregateTerms)))
    let expected = expectedAggregates(matching)
    #expect(ungrouped.count == 1, "\(context)")
    #expect(sameRow(ungrouped.first ?? [:], expected), "\(context): \(ungrouped) != \(expected)")

    let ages = matching.map(\.age)
    #expect(try queryInt(from.select(Int.self, .count())) == matching.count, "\(context)")
    #expect(
        try queryInt(from.select(Int.self, .sum(\.$age))) == ages.reduce(0, +), "\(context)")
    #expect(try queryInt(from.select(Int.self, .minimum(\.$age))) == ages.min(), "\(context)")
    #expect(try queryInt(from.select(Int.self, .maximum(\.$age))) == ages.max(), "\(context)")
    let average = ages.isEmpty ? nil : Double(ages.reduce(0, +)) / Double(ages.count)
    #expect(try queryDouble(from.select(Double.self, .average(\.$age))) == average, "\(context)")

    let grouped = try queryAttributes(groupedQuery(filter))
    let expectedGrouped = expectedGroups(matching)
    #expect(grouped.map(groupKey) == expectedGrouped.map(groupKey), "\(context)")
    for (actual, wanted) in zip(grouped, expectedGrouped) {
        #expect(
            sameRow(actual, wanted), "\(context): group \(groupKey(wanted)): \(actual) != \(wanted)"
        )
    }
}

@Suite("Select: queryValue, queryAttributes, GroupBy")
struct SelectTests {
    // MARK: Aggregates against Swift

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aggregatesMatchSwiftOnRandomData(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        var random = SplitMix64.random()
        let seed = random.seed
        let rows = try seedPeople(stack, count: 300, using: &random)
        var filters = [Filter.none]
        for _ in 0..<8 { filters.append(.random(using: &random)) }
        for filter in filters {
            try checkAggregates(
                rows, filter, seed: seed,
                queryAttributes: { try stack.queryAttributes($0) },
                queryInt: { try stack.queryValue($0) },
                queryDouble: { try stack.queryValue($0) })
        }
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func queriesInATransactionSeePendingChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        var random = SplitMix64.random()
        let seed = random.seed
        let rows = try seedPeople(stack, count: 200, using: &random)
        var filters = [Filter.none]
        for _ in 0..<3 { filters.append(.random(using: &random)) }

        let committed = try stack.perform(synchronous: { tx in
            var objects = Dictionary(
                uniqueKeysWithValues: try tx.fetchAll(From<SelPerson>()).map { ($0.serial, $0) })
            var model = Dictionary(uniqueKeysWithValues: rows.map { ($0.serial, $0) })
            var nextSerial = rows.count
            // Two rounds of unflushed edits, inserts and deletes, each checked
            // before anything else reads: the query itself must flush them.
            for round in 0..<2 {
                for serial in model.keys.sorted() {
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0:
                        tx.delete(objects[serial])
                        objects[serial] = nil
                        model[serial] = nil
                    case 1, 2:
                        let row = PersonRow.random(serial: serial, using: &random)
                        row.write(to: objects[serial]!)
                        model[serial] = row
                    default:
                        break
                    }
                }
                for _ in 0..<30 {
                    let row = PersonRow.random(serial: nextSerial, using: &random)
                    let person = tx.create(Into<SelPerson>())
                    row.write(to: person)
                    objects[nextSerial] = person
                    model[nextSerial] = row
                    nextSerial += 1
                }
                #expect(tx.hasChanges, "seed \(seed), round \(round)")
                let current = model.keys.sorted().map { model[$0]! }
                for filter in filters {
                    try checkAggregates(
                        current, filter, seed: seed,
                        queryAttributes: { try tx.queryAttributes($0) },
                        queryInt: { try tx.queryValue($0) },
                        queryDouble: { try tx.queryValue($0) })
                }
            }
            return model.keys.sorted().map { model[$0]! }
        })

        // After the commit, the main context's queries see the same data.
        for filter in filters {
            try checkAggregates(
                committed, filter, seed: seed,
                queryAttributes: { try stack.queryAttributes($0) },
                queryInt: { try stack.queryValue($0) },
                queryDouble: { try stack.queryValue($0) })
        }
    }

    // MARK: queryValue

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func queryValueIsNilWithoutARow(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        let people = From<SelPerson>()
        // An empty entity: count and sum are 0; average, minimum and maximum are NULL.
        #expect(try stack.queryValue(people.select(Int.self, .count())) == 0)
        #expect(try stack.queryValue(people.select(Int.self, .sum(\.$age))) == 0)
        #expect(try stack.queryValue(people.select(Double.self, .average(\.$age))) == nil)
        #expect(try stack.queryValue(people.select(Int.self, .minimum(\.$age))) == nil)
        #expect(try stack.queryValue(people.select(Int.self, .maximum(\.$age))) == nil)
        #expect(try stack.queryValue(people.select(String.self, .attribute(\.$name))) == nil)

        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<SelPerson>())
            ann.name = "Ann"
            ann.age = 30
        })
        // A grouped query with no matching object has no row at all, not a row of zeros.
        let none = people.where(\.$age > 100)
        #expect(try stack.queryValue(none.select(Int.self, .count()).groupBy(\.$city)) == nil)
        #expect(try stack.queryValue(none.select(String.self, .attribute(\.$name))) == nil)
        // An offset past the single row of an ungrouped aggregate leaves none.
        #expect(
            try stack.queryValue(people.select(Int.self, .count()).tweak { $0.fetchOffset = 1 })
                == nil)
        // A NULL value reads as nil.
        #expect(try stack.queryValue(people.select(Double.self, .maximum(\.$score))) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func queryValueIsNilWhenTheValueDoesNotConvert(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for (name, age) in [("Ann", 2), ("Bob", 3)] {
                let person = tx.create(Into<SelPerson>())
                person.name = name
                person.age = age
            }
        })
        let people = From<SelPerson>()
        // Text is not a number; a small sum fits a small integer type, a large one does not.
        #expect(try stack.queryValue(people.select(Int.self, .maximum(\.$name))) == nil)
        #expect(try stack.queryValue(people.select(Int8.self, .sum(\.$age))) == 5)
        #expect(try stack.queryValue(people.select(UInt8.self, .minimum(\.$age))) == 2)
        #expect(try stack.queryValue(people.select(String.self, .maximum(\.$name))) == "Bob")
        #expect(try stack.queryValue(Select<SelPerson, Int>(.sum(\.$age)).chained()) == 5)
        try stack.perform(synchronous: { tx in tx.create(Into<SelPerson>()).age = 1_000 })
        #expect(try stack.queryValue(people.select(Int8.self, .sum(\.$age))) == nil)
        #expect(try stack.queryValue(people.select(Int16.self, .sum(\.$age))) == 1_005)
    }

    /// A real result (an average, a sum of doubles) narrows as CoreStore reads
    /// it through NSNumber, over random ages: toward zero into every integer
    /// type that holds the truncated value (`nil` in one too small), to the
    /// nearest `Float`, to `true` unless zero; `Double` keeps it whole.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aRealResultNarrowsAsCoreStoreReadsIt(_ kind: StoreKind) throws {
        var random = SplitMix64(seed: 0xA7E)
        for round in 0..<8 {
            let directory = TemporaryDirectory()
            let stack = try makeStack(SelSchema.schema, kind, in: directory)
            let ages = (0..<(2 + Int(random.next() % 5))).map { _ in Int(random.next() % 601) - 300 }
            try stack.perform(synchronous: { tx in
                for age in ages { tx.create(Into<SelPerson>()).age = age }
            })
            let average = Double(ages.reduce(0, +)) / Double(ages.count)
            let people = From<SelPerson>()
            let context = "round \(round), ages \(ages)"
            let truncated = Int64(average.rounded(.towardZero))
            #expect(try stack.queryValue(people.select(Double.self, .average(\.$age))) == average, "\(context)")
            #expect(try stack.queryValue(people.select(Float.self, .average(\.$age))) == Float(average), "\(context)")
            #expect(try stack.queryValue(people.select(Int.self, .average(\.$age))) == Int(truncated), "\(context)")
            #expect(try stack.queryValue(people.select(Int64?.self, .average(\.$age))) == truncated, "\(context)")
            #expect(try stack.queryValue(people.select(Int8.self, .average(\.$age))) == Int8(exactly: truncated), "\(context)")
            #expect(try stack.queryValue(people.select(UInt16.self, .average(\.$age))) == UInt16(exactly: truncated), "\(context)")
            #expect(try stack.queryValue(people.select(Bool.self, .average(\.$age))) == (average != 0), "\(context)")
        }
    }

    // MARK: queryAttributes

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func queryAttributesOmitsNullsAndUsesTermNames(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<SelPerson>())
            ann.name = "Ann"
            ann.city = "Oslo"
            ann.score = 1.5
            let bob = tx.create(Into<SelPerson>())
            bob.name = "Bob"
        })
        let rows = try stack.queryAttributes(
            From<SelPerson>()
                .select(.attribute(\.$name, as: "who"), .attribute(\.$city), .attribute(\.$score))
                .orderBy(.ascending(\.$name)))
        #expect(
            rows == [
                ["who": .text("Ann"), "city": .text("Oslo"), "score": .real(1.5)],
                ["who": .text("Bob")],
            ])

        // A hostile name is data: it comes back as the row's key, and the query still runs.
        let hostile = "x\" FROM \"SelPerson\"; DROP TABLE \"SelPerson\"; --"
        let counted = try stack.queryAttributes(From<SelPerson>().select(.count(as: hostile)))
        #expect(counted == [[hostile: .integer(2)]])
        #expect(try stack.fetchCount(From<SelPerson>()) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func attributesFollowTheOrderLimitAndOffset(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        var random = SplitMix64.random()
        let rows = try seedPeople(stack, count: 120, using: &random)
        // Ties on age fall back to the row ID, which is insertion (serial) order.
        let sorted = rows.sorted { ($0.age, $0.serial) < ($1.age, $1.serial) }.map(\.serial)
        var pages: [Int] = []
        for offset in stride(from: 0, to: rows.count + 7, by: 7) {
            let page = try stack.queryAttributes(
                From<SelPerson>().select(.attribute(\.$serial)).orderBy(.ascending(\.$age))
                    .tweak {
                        $0.fetchLimit = 7; $0.fetchOffset = offset
                    })
            pages += page.map { row -> Int in
                guard case .integer(let serial) = row["serial"] else { return -1 }
                return Int(serial)
            }
        }
        #expect(pages == sorted, "seed \(random.seed)")
    }

    // MARK: GroupBy

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func groupedPagesReturnEveryGroupOnce(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        var random = SplitMix64.random()
        let seed = random.seed
        let rows = try seedPeople(stack, count: 150, using: &random)
        let all = try stack.queryAttributes(groupedQuery(.none))
        #expect(all.map(groupKey) == expectedGroups(rows).map(groupKey), "seed \(seed)")
        for size in [1, 2, 4] {
            var paged: [Row] = []
            var offset = 0
            while true {
                let page = try stack.queryAttributes(
                    groupedQuery(.none).tweak {
                        $0.fetchLimit = size; $0.fetchOffset = offset
                    })
                #expect(page.count <= size)
                if page.isEmpty { break }
                paged += page
                offset += size
            }
            #expect(paged == all, "seed \(seed), page size \(size)")
        }
        // queryValue reads the first group: the highest team, NULL city first.
        let first = expectedGroups(rows).first?["count"]
        let count = try stack.queryValue(
            From<SelPerson>().select(Int.self, .count()).groupBy(\.$city, \.$team).orderBy(
                .descending(\.$team)))
        #expect(first == count.map { .integer(Int64($0)) }, "seed \(seed)")
    }

    // PostgreSQL takes a selected or sorted path of a grouped query only when
    // its text is that of a GROUP BY term (else SQLSTATE 42803): a path
    // compiles to one text wherever the query reads it.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func termsAndGroupsFollowToOneRelationships(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(SelSchema.schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<SelPerson>())
            ann.name = "Ann"
            ann.age = 30
            let bob = tx.create(Into<SelPerson>())
            bob.name = "Bob"
            bob.age = 40
            for (name, owner) in [("Rex", ann), ("Tom", ann), ("Kit", bob), ("Stray", nil)] {
                let pet = tx.create(Into<SelPet>())
                pet.name = name
                pet.owner = owner
            }
        })
        let rows = try stack.queryAttributes(
            From<SelPet>()
                .select(.attribute(\.$owner ~ \.$name), .count(as: "pets"), .sum(\.$owner ~ \.$age))
                .groupBy(\.$owner ~ \.$name)
                .orderBy(.descending(\.$owner ~ \.$name)))
        #expect(
            rows == [
                ["owner.name": .text("Bob"), "pets": .integer(1), "sum(owner.age)": .integer(40)],
                ["owner.name": .text("Ann"), "pets": .integer(2), "sum(owner.age)": .integer(60)],
                // The stray's group sums no value: 0, as Core Data's `total` does.
                ["pets": .integer(1), "sum(owner.age)": .integer(0)],
            ])
        let owned = try stack.queryValue(
            From<SelPet>().select(Int.self, .count(\.$owner ~ \.$name)))
        #expect(owned == 3)
    }

    // MARK: SQL

    @Test
    func groupedQueryCompilesToOneStatementWithBoundValues() throws {
        let schema = SelSchema.schema
        let query = From<SelPerson>()
            .where(\.$age >= 18)
            .select(.attribute(\.$city), .sum(\.$age, as: "total"), .count())
            .groupBy(\.$city)
            .orderBy(.descending(\.$city))
            .tweak { $0.fetchLimit = 2 }
        let compiled = try query.compile(in: schema.entity(of: SelPerson.self), schema: schema, dialect: .sqlite)
        #expect(
            compiled.sql == """
                SELECT t0."city" AS "city", coalesce(sum(t0."age"), 0) AS "total", count(*) AS "count" \
                FROM "SelPerson" AS t0 WHERE t0."age" >= ? GROUP BY t0."city" \
                ORDER BY t0."city" DESC NULLS LAST, t0."city" ASC NULLS FIRST LIMIT ? OFFSET ?
                """)
        #expect(compiled.arguments == [.integer(18), .integer(2), .integer(0)])
        #expect(compiled.names == ["city", "total", "count"])

        // An ungrouped aggregate has one row, so no ORDER BY; attributes end with the row ID.
        let total = try From<SelPerson>().orderBy(.ascending(\.$name)).select(
            Int.self, .sum(\.$age)
        )
        .compile(in: schema.entity(of: SelPerson.self), schema: schema, dialect: .sqlite)
        #expect(total.sql == #"SELECT coalesce(sum(t0."age"), 0) AS "sum(age)" FROM "SelPerson" AS t0"#)
        let names = try From<SelPerson>().select(.attribute(\.$name))
            .compile(in: schema.entity(of: SelPerson.self), schema: schema, dialect: .sqlite)
        #expect(
            names.sql == #"SELECT t0."name" AS "name" FROM "SelPerson" AS t0 ORDER BY t0._pk ASC"#)

        // A path is one text wherever the query reads it, as PostgreSQL needs
        // to match a selected or sorted term with a group key.
        let byOwner = try From<SelPet>()
            .select(.attribute(\.$owner ~ \.$name), .count())
            .groupBy(\.$owner ~ \.$name)
            .orderBy(.descending(\.$owner ~ \.$name))
            .compile(in: schema.entity(of: SelPet.self), schema: schema, dialect: .sqlite)
        let owner = #"(SELECT t1."name" FROM "SelPerson" AS t1 WHERE t1._pk = t0."owner")"#
        #expect(
            byOwner.sql == """
                SELECT \(owner) AS "owner.name", count(*) AS "count" FROM "SelPet" AS t0 \
                GROUP BY \(owner) ORDER BY \(owner) DESC NULLS LAST, \(owner) ASC NULLS FIRST
                """)
    }
}

extension Select where Object == SelPerson {
    /// This selection over every person, for `Select<…>(…)` spelled on its own.
    fileprivate func chained() -> QueryChain<SelPerson, Result> {
        From<SelPerson>().select(self)
    }
}
