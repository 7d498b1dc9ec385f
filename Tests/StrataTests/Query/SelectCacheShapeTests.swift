import Foundation
@testable import Strata
import Synchronization
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

        /// Expects the cache's answer to be the compiler's.
        func check(_ context: String) {
            #expect(given.sql == expected.sql, "\(context): \(name)")
            #expect(given.arguments == expected.arguments, "\(context): \(name)")
        }
    }

    /// `From<Object>` where `field op value`.
    nonisolated static func query<Object: ManagedObject>(
        _: Object.Type, _ field: String?, _ op: Comparison, _ value: StoredValue
    ) -> From<Object> {
        From<Object>().where(Where(.compare(ValuePath(field: field), op, value)))
    }

    nonisolated static func lookup<Object: ManagedObject>(
        _ query: From<Object>, _ name: String, schema: Schema = monitorSchema,
        dialect: SQLDialect = .sqlite, limit: Int? = 1
    ) throws -> Lookup {
        let entity = schema.entity(of: Object.self)
        let given = try query.selectSQL(in: entity, schema: schema, dialect: dialect, limit: limit)
        let compiled = try query.compile(in: entity, schema: schema, dialect: dialect, limit: limit)
        let expected = (
            "SELECT \(entity.selectList) FROM \(entity.quotedTable) AS t0\(compiled.clauses)",
            compiled.arguments)
        let limitName = limit.map(String.init) ?? "-"
        return Lookup(
            name: "\(entity.name) \(name) \(dialect) limit \(limitName)", given: given,
            expected: expected)
    }

    /// A random lookup over two schemas of the same classes, two entities,
    /// their fields and the row ID, every operator, both dialects and a few
    /// limits: shapes that differ in one part only follow one another.
    nonisolated static func randomLookup(_ random: inout SplitMix64) throws -> Lookup {
        let schema = random.next() % 2 == 0 ? monitorSchema : otherMonitorSchema
        let dialect: SQLDialect = random.next() % 2 == 0 ? .sqlite : .postgreSQL
        let comparisons: [Comparison] = [
            .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual,
        ]
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
        let tweakName = tweakLimit.map(String.init) ?? "-"
        let name = "\(field ?? "_pk") \(op.rawValue) \(value), tweak \(tweakName)"
        if field == "name" || (field == nil && random.next() % 2 == 0) {
            let owners = adjusted(query(MonOwner.self, field, op, value))
            return try lookup(owners, name, schema: schema, dialect: dialect, limit: limit)
        }
        let items = adjusted(query(MonItem.self, field, op, value))
        return try lookup(items, name, schema: schema, dialect: dialect, limit: limit)
    }

    @Test(arguments: [0x5E1EC7_CAC4E, SplitMix64.random().seed])
    func mixedLookupsEachGetTheirOwnSQL(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for step in 0..<2_000 {
            try Self.randomLookup(&random).check("seed \(seed), step \(step)")
        }
    }

    /// Lookups of random shapes on many threads at once: the entry found
    /// last changes under each of them, and none gets another's SQL.
    @Test
    nonisolated func concurrentLookupsEachGetTheirOwnSQL() throws {
        let wrong = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var random = SplitMix64(seed: 0xC0C0 + UInt64(worker))
            for _ in 0..<1_000 {
                guard let lookup = try? Self.randomLookup(&random) else {
                    failed.add(1, ordering: .relaxed)
                    continue
                }
                if lookup.given.sql != lookup.expected.sql
                    || lookup.given.arguments != lookup.expected.arguments
                {
                    wrong.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(failed.load(ordering: .relaxed) == 0)
    }

    /// The same shape asked for twice in a row, then another that differs in
    /// one part: the second finds the first's entry without the lock, the
    /// third must not.
    @Test
    func aShapeThatDiffersInOnePartIsNotTheOneFoundLast() throws {
        let base = Self.query(MonItem.self, "rank", .equal, .integer(4))
        let others: [(String, () throws -> Lookup)] = [
            ("schema", { try Self.lookup(base, "rank = 4", schema: otherMonitorSchema) }),
            ("dialect", { try Self.lookup(base, "rank = 4", dialect: .postgreSQL) }),
            ("limit", { try Self.lookup(base, "rank = 4", limit: nil) }),
            ("field", {
                try Self.lookup(Self.query(MonItem.self, "group", .equal, .integer(4)), "group = 4")
            }),
            ("operator", {
                try Self.lookup(Self.query(MonItem.self, "rank", .less, .integer(4)), "rank < 4")
            }),
            ("entity", {
                try Self.lookup(Self.query(MonOwner.self, nil, .equal, .integer(4)), "_pk = 4")
            }),
        ]
        for (part, other) in others {
            for _ in 0..<2 {
                try Self.lookup(base, "rank = 4").check("before another \(part)")
            }
            try other().check("another \(part)")
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
            let lookup = try Self.lookup(query, "price < 10", schema: decimalSchema)
            lookup.check("decimal \(isDecimal)")
            let comparesNumbers = lookup.given.sql.contains("strata_decimal")
            #expect(comparesNumbers == isDecimal, "decimal \(isDecimal)")
        }
    }

    /// Past the cache's capacity, shapes are compiled on every query: still
    /// the compiler's SQL, for the shapes kept before and those after.
    @Test
    func shapesPastTheCapacityStillGetTheirSQL() throws {
        for round in 0..<2 {
            for tweakLimit in 1...(SelectCache.capacity + 40) {
                let query = Self.query(MonItem.self, "rank", .greater, .integer(Int64(round)))
                    .tweak { $0.fetchLimit = tweakLimit }
                try Self.lookup(query, "rank > \(round)", schema: otherMonitorSchema, limit: nil)
                    .check("round \(round), tweak \(tweakLimit)")
            }
        }
    }
}
