@testable import Strata
import Testing

/// `From.selectSQL` hands out, for a one-comparison query, the SQL compiled
/// for the first query of its shape with the new value bound: always what
/// compiling the query itself gives.
@MainActor
@Suite("Query: the SELECT of a one-comparison query, compiled once")
struct SelectCacheTests {
    typealias Comparison = WherePredicate.Comparison

    nonisolated static let comparisons: [Comparison] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]

    /// `field <op> value` as a query.
    func query(_ field: String, _ op: Comparison, _ value: StoredValue) -> From<MonItem> {
        From<MonItem>().where(Where(.compare(ValuePath(field: field), op, value)))
    }

    /// What compiling `query` gives, without the cache.
    func compiled(_ query: From<MonItem>, limit: Int?) throws -> (sql: String, arguments: [StoredValue]) {
        let entity = monitorSchema.entity(of: MonItem.self)
        let compiled = try query.compile(in: entity, schema: monitorSchema, dialect: .sqlite, limit: limit)
        return ("SELECT \(entity.selectList) FROM \(entity.quotedTable) AS t0\(compiled.clauses)", compiled.arguments)
    }

    @Test(arguments: comparisons)
    func everyQueryOfAShapeGetsTheSQLAndArgumentsItCompilesTo(op: Comparison) throws {
        let entity = monitorSchema.entity(of: MonItem.self)
        let cases: [(field: String?, values: [StoredValue])] = [
            ("rank", [.integer(3), .integer(-7), .integer(3)]),
            ("label", [.text("a"), .text("b'\"c"), .text("")]),
            (nil, [.integer(1), .integer(2)]),  // the row ID
        ]
        for (field, values) in cases {
            for limit in [nil, 1, 2] as [Int?] {
                for tweakLimit in [nil, 1, 5] as [Int?] {
                    for value in values {
                        var query = From<MonItem>().where(Where(.compare(ValuePath(field: field), op, value)))
                        if let tweakLimit { query = query.tweak { $0.fetchLimit = tweakLimit } }
                        let given = try query.selectSQL(in: entity, schema: monitorSchema, dialect: .sqlite, limit: limit)
                        let expected = try compiled(query, limit: limit)
                        let name = "\(field ?? "_pk") \(op.rawValue) \(value), limit \(limit.map(String.init) ?? "-")"
                            + ", tweak \(tweakLimit.map(String.init) ?? "-")"
                        #expect(given.sql == expected.sql, "\(name)")
                        #expect(given.arguments == expected.arguments, "\(name)")
                    }
                }
            }
        }
    }

    @Test
    func queriesOfOtherShapesCompileAsTheyAre() throws {
        let entity = monitorSchema.entity(of: MonItem.self)
        let queries: [From<MonItem>] = [
            query("rank", .equal, .null),
            query("rank", .equal, .integer(1)).orderBy(.descending(\.$group)),
            query("rank", .equal, .integer(1)).tweak { $0.fetchOffset = 2 },
            From<MonItem>().where(\.$rank == 1 && \.$group == 2),
            From<MonItem>().where(Where(.compare(ValuePath(relationships: ["owner"], field: "name"), .equal, .text("x")))),
            From<MonItem>(),
        ]
        for query in queries {
            for limit in [nil, 1] as [Int?] {
                let given = try query.selectSQL(in: entity, schema: monitorSchema, dialect: .sqlite, limit: limit)
                let expected = try compiled(query, limit: limit)
                #expect(given.sql == expected.sql)
                #expect(given.arguments == expected.arguments)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func repeatedLookupsFindEachValuesObjects(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for rank in 0..<20 {
                let item = tx.create(Into<MonItem>())
                item.rank = rank
                item.label = rank.isMultiple(of: 2) ? "even \(rank)" : nil
            }
        })
        var random = SplitMix64(seed: 0x5E1EC7)
        for rank in (0..<20).shuffled(using: &random) {
            #expect(try stack.fetchOne(From<MonItem>().where(\.$rank == rank))?.rank == rank, "rank \(rank)")
            #expect(try stack.fetchUnique(From<MonItem>().where(\.$rank == rank))?.rank == rank, "rank \(rank)")
            #expect(try stack.fetchAll(From<MonItem>().where(\.$rank >= rank)).count == 20 - rank, "rank \(rank)")
            #expect(try stack.fetchOne(From<MonItem>().where(\.$rank < rank))?.rank == (rank == 0 ? nil : 0))
            let label = rank.isMultiple(of: 2) ? "even \(rank)" : nil
            #expect(try stack.fetchOne(From<MonItem>().where(\.$label == label))?.rank == (label == nil ? 1 : rank))
        }
    }
}
