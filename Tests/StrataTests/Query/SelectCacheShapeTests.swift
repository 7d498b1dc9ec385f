import Foundation
@testable import Strata
import Testing

/// The same classes as `monitorSchema`, as other entities (other tables):
/// a shape of one schema's entity is never one of the other's.
let otherMonitorSchema = Schema(
    "M1-other", entities: [Entity<MonItem>("OtherItem"), Entity<MonOwner>("OtherOwner")])

/// `From.selectSQL`'s cache, looked up without hashing (the shape found last
/// first, then the entity's bucket), never hands out another shape's SQL:
/// whatever the order of the lookups, each one gets what compiling its own
/// query gives.
@MainActor
@Suite("Query: the cached SELECT of one shape is never another's")
struct SelectCacheShapeTests {
    typealias Comparison = WherePredicate.Comparison

    /// One lookup: what the cache gives and what the compiler gives.
    struct Lookup {
        var name: String
        var given: (sql: String, arguments: [StoredValue])
        var expected: (sql: String, arguments: [StoredValue])
    }

    static func lookup<Object: ManagedObject>(
        _ query: From<Object>, _ name: String, schema: Schema, dialect: SQLDialect, limit: Int?
    ) throws -> Lookup {
        let entity = schema.entity(of: Object.self)
        let given = try query.selectSQL(in: entity, schema: schema, dialect: dialect, limit: limit)
        let compiled = try query.compile(in: entity, schema: schema, dialect: dialect, limit: limit)
        let expected = (
            "SELECT \(entity.selectList) FROM \(entity.quotedTable) AS t0\(compiled.clauses)",
            compiled.arguments)
        return Lookup(name: "\(entity.name) \(name) \(dialect) limit \(limit.map(String.init) ?? "-")",
                      given: given, expected: expected)
    }

    /// A random lookup over two schemas of the same classes, two entities,
    /// their fields and the row ID, every operator, both dialects and a few
    /// limits: shapes that differ in one part only follow one another.
    static func randomLookup(_ random: inout SplitMix64) throws -> Lookup {
        let schema = random.next() % 2 == 0 ? monitorSchema : otherMonitorSchema
        let dialect: SQLDialect = random.next() % 2 == 0 ? .sqlite : .postgreSQL
        let comparisons: [Comparison] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
        let op = comparisons[Int(random.next() % 6)]
        let limit = [nil, 1, 2][Int(random.next() % 3)]
        let tweakLimit = [nil, 3][Int(random.next() % 2)]
        let number = Int64(random.next() % 100)
        func adjusted<Object>(_ query: From<Object>) -> From<Object> {
            tweakLimit.map { limit in query.tweak { $0.fetchLimit = limit } } ?? query
        }
        let fields: [(String?, StoredValue)] = [
            ("rank", .integer(number)), ("group", .integer(number)), ("label", .text("l\(number)")),
            (nil, .integer(number)), ("name", .text("n\(number)")),
        ]
        let (field, value) = fields[Int(random.next() % UInt64(fields.count))]
        let name = "\(field ?? "_pk") \(op.rawValue) \(value), tweak \(tweakLimit.map(String.init) ?? "-")"
        let predicate = WherePredicate.compare(ValuePath(field: field), op, value)
        if field == "name" || (field == nil && random.next() % 2 == 0) {
            let query = adjusted(From<MonOwner>().where(Where(predicate)))
            return try lookup(query, name, schema: schema, dialect: dialect, limit: limit)
        }
        let query = adjusted(From<MonItem>().where(Where(predicate)))
        return try lookup(query, name, schema: schema, dialect: dialect, limit: limit)
    }

    @Test(arguments: [0x5E1EC7_CAC4E, SplitMix64.random().seed])
    func mixedLookupsEachGetTheirOwnSQL(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for step in 0..<2_000 {
            let lookup = try Self.randomLookup(&random)
            #expect(lookup.given.sql == lookup.expected.sql, "seed \(seed), step \(step): \(lookup.name)")
            #expect(
                lookup.given.arguments == lookup.expected.arguments,
                "seed \(seed), step \(step): \(lookup.name)")
        }
    }

    /// The same shape asked for twice in a row, then another that differs in
    /// one part: the second finds the first's entry without the lock, the
    /// third must not.
    @Test
    func aShapeThatDiffersInOnePartIsNotTheOneFoundLast() throws {
        let base = From<MonItem>().where(Where(.compare(ValuePath(field: "rank"), .equal, .integer(4))))
        let others: [(String, () throws -> Lookup)] = [
            ("schema", { try Self.lookup(base, "rank = 4", schema: otherMonitorSchema, dialect: .sqlite, limit: 1) }),
            ("dialect", { try Self.lookup(base, "rank = 4", schema: monitorSchema, dialect: .postgreSQL, limit: 1) }),
            ("limit", { try Self.lookup(base, "rank = 4", schema: monitorSchema, dialect: .sqlite, limit: nil) }),
            ("field", {
                let query = From<MonItem>().where(Where(.compare(ValuePath(field: "group"), .equal, .integer(4))))
                return try Self.lookup(query, "group = 4", schema: monitorSchema, dialect: .sqlite, limit: 1)
            }),
            ("operator", {
                let query = From<MonItem>().where(Where(.compare(ValuePath(field: "rank"), .less, .integer(4))))
                return try Self.lookup(query, "rank < 4", schema: monitorSchema, dialect: .sqlite, limit: 1)
            }),
            ("entity", {
                let query = From<MonOwner>().where(Where(.compare(ValuePath(field: nil), .equal, .integer(4))))
                return try Self.lookup(query, "_pk = 4", schema: monitorSchema, dialect: .sqlite, limit: 1)
            }),
        ]
        for (part, other) in others {
            for _ in 0..<2 {
                let same = try Self.lookup(base, "rank = 4", schema: monitorSchema, dialect: .sqlite, limit: 1)
                #expect(same.given.sql == same.expected.sql, "before another \(part)")
                #expect(same.given.arguments == same.expected.arguments, "before another \(part)")
            }
            let lookup = try other()
            #expect(lookup.given.sql == lookup.expected.sql, "another \(part): \(lookup.name)")
            #expect(lookup.given.arguments == lookup.expected.arguments, "another \(part): \(lookup.name)")
        }
    }

    /// A decimal field's order comparison compares numbers: a path that says
    /// so and one that does not (built by hand) are two shapes.
    @Test
    func aDecimalPathAndATextPathToTheSameFieldAreTwoShapes() throws {
        for isDecimal in [true, false, true, false] {
            var path = ValuePath(field: "price")
            path.isDecimal = isDecimal
            let query = From<DecLine>().where(Where(.compare(path, .less, .text("10"))))
            let lookup = try Self.lookup(query, "price < 10", schema: decimalSchema, dialect: .sqlite, limit: 1)
            #expect(lookup.given.sql == lookup.expected.sql, "decimal \(isDecimal)")
            #expect(lookup.given.sql.contains("strata_decimal") == isDecimal, "decimal \(isDecimal)")
        }
    }

    /// Past the cache's capacity, shapes are compiled on every query: still
    /// the compiler's SQL, for the shapes kept before and those after.
    @Test
    func shapesPastTheCapacityStillGetTheirSQL() throws {
        for round in 0..<2 {
            for tweakLimit in 1...(SelectCache.capacity + 40) {
                let query = From<MonItem>()
                    .where(Where(.compare(ValuePath(field: "rank"), .greater, .integer(Int64(round)))))
                    .tweak { $0.fetchLimit = tweakLimit }
                let lookup = try Self.lookup(
                    query, "rank > \(round)", schema: otherMonitorSchema, dialect: .sqlite, limit: nil)
                #expect(lookup.given.sql == lookup.expected.sql, "round \(round), tweak \(tweakLimit)")
                #expect(
                    lookup.given.arguments == lookup.expected.arguments, "round \(round), tweak \(tweakLimit)")
            }
        }
    }
}
