import Foundation
import Testing

@testable import Strata

/// CoreStore's `GroupByTests`, ported: a grouping named by strings (empty,
/// one key, two keys) equals its twins and lists its keys in order; and,
/// where CoreStore checks the `propertiesToGroupBy` of a fetch request,
/// Strata checks what a grouped query returns, against a model, on the
/// stack and in a transaction with pending changes.
@MainActor
@Suite("CoreStore port: GroupBy")
struct CoreStoreGroupByPortTests {
    typealias Entity = FetchPortEntity1

    /// `test_ThatGroupByClauses_ConfigureCorrectly`.
    @Test func aGroupingEqualsItsTwinsAndListsItsKeysInOrder() {
        let empty = GroupBy<Entity>([String]())
        #expect(empty.keyPaths.isEmpty)
        #expect(empty == GroupBy<Entity>([]))
        #expect(empty != GroupBy<Entity>("testString"))

        let one = GroupBy<Entity>("testNumber")
        #expect(one.keyPaths == ["testNumber"])
        #expect(one == GroupBy<Entity>(["testNumber"]))
        #expect(
            one == GroupBy<Entity>(\.$testNumber), "a grouping by a name equals its key-path twin")
        #expect(one != GroupBy<Entity>("testString"))
        #expect(one.hashValue == GroupBy<Entity>(\.$testNumber).hashValue)

        let two = GroupBy<Entity>("testNumber", "testString")
        #expect(two.keyPaths == ["testNumber", "testString"])
        #expect(two == GroupBy<Entity>(["testNumber", "testString"]))
        #expect(two == GroupBy<Entity>(\.$testNumber, \.$testString))
        #expect(two != GroupBy<Entity>("testString", "testNumber"))
        #expect(two != one)
    }

    /// The groupings the query test runs, by their keys.
    nonisolated static let groupings: [[String]] = [
        [], ["testNumber"], ["testBoolean"], ["testString"], ["testBoolean", "testNumber"],
        ["testString", "testBoolean"],
    ]

    /// `test_ThatGroupByClauses_ApplyToFetchRequestsCorrectly`, as what the
    /// query returns: one row per distinct combination of the keys' values
    /// (NULL one value of its own, and left out of the row), each with the
    /// number of objects in it; an empty grouping is no grouping, one row.
    @Test(arguments: StoreKind.allCases, [UInt64(0x6B01), 0x6B02, 0x6B03])
    func aGroupedQueryHasOneRowPerDistinctKey(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack([nil], kind, in: directory)
        var rows: [FetchPortRow] = []
        for id in 0..<Int.random(in: 0...20, using: &random) {
            rows.append(Self.randomRow(id: id, &random))
        }
        try FetchPort.seed(stack, rows)
        for keys in Self.groupings {
            try Self.check(stack, keys, rows, "seed \(seed), \(kind), stack, \(keys)")
        }
        let pendingRows =
            rows
            + (0..<Int.random(in: 1...5, using: &random)).map {
                Self.randomRow(id: 100 + $0, &random)
            }
        #expect(throws: StrataError.userCancelled) {
            try stack.perform(synchronous: { tx in
                for row in pendingRows.dropFirst(rows.count) {
                    row.write(to: tx.create(Into<Entity>()))
                }
                for keys in Self.groupings {
                    try Self.check(
                        tx, keys, pendingRows, "seed \(seed), \(kind), transaction, \(keys)")
                }
                try tx.cancel()
            })
        }
    }

    private static func randomRow(id: Int, _ random: inout SplitMix64) -> FetchPortRow {
        FetchPortRow(
            entity: 1, configuration: nil, id: id, number: Int.random(in: 0...3, using: &random),
            string: [nil, "a", "b"].randomElement(using: &random)!)
    }

    /// The grouped query's rows against the model's, in any order.
    private static func check(
        _ source: some QueryableSource, _ keys: [String], _ rows: [FetchPortRow], _ context: String
    ) throws {
        let terms = keys.map { SelectTerm<Entity>.attribute($0) } + [.count(as: "count")]
        let found = try source.queryAttributes(
            From<Entity>(), Select<Entity, [String: StoredValue]>(terms), GroupBy<Entity>(keys))
        var expected: [[String: StoredValue]: Int] = [:]
        for row in rows {
            var group: [String: StoredValue] = [:]
            for key in keys {
                switch key {
                case "testNumber": group[key] = .integer(Int64(row.number))
                case "testBoolean": group[key] = .integer(row.boolean ? 1 : 0)
                default: group[key] = row.string.map(StoredValue.text)
                }
            }
            expected[group, default: 0] += 1
        }
        if keys.isEmpty && rows.isEmpty { expected[[:]] = 0 }  // an aggregate over nothing is one row
        let expectedRows = expected.map { group, count in
            group.merging(["count": .integer(Int64(count))]) { $1 }
        }
        let order = { (row: [String: StoredValue]) in
            String(describing: row.sorted { $0.key < $1.key })
        }
        #expect(found.map(order).sorted() == expectedRows.map(order).sorted(), "\(context)")
    }
}
