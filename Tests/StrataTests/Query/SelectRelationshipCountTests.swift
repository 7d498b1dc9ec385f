import Foundation
import Testing

@testable import Strata

/// A random graph of the probe model, and its to-many sizes counted in Swift.
private struct CountedGraph {
    /// Each group's rank, and how many items it holds.
    var groupItems: [(rank: Int, items: Int)] = []
    /// Each item's number, and how many tags it has.
    var itemTags: [(number: Int, tags: Int)] = []
    /// Each tag's label, and how many items it is on.
    var tagItems: [(label: String, items: Int)] = []
}

/// Writes a random graph: groups holding random items (some in none), tags on random items.
@MainActor
private func seedGraph(_ stack: DataStack, using random: inout SplitMix64) throws -> CountedGraph {
    let groupCount = Int.random(in: 1...6, using: &random)
    let itemCount = Int.random(in: 0...40, using: &random)
    let tagCount = Int.random(in: 1...5, using: &random)
    // Each item's group (or none) and tags, drawn before the transaction.
    let itemGroups = (0..<itemCount).map { _ in Int.random(in: -1..<groupCount, using: &random) }
    let itemTagSets = (0..<itemCount).map { _ in
        Set((0..<tagCount).filter { _ in Bool.random(using: &random) })
    }
    try stack.perform(synchronous: { tx in
        let groups = (0..<groupCount).map { rank -> ProbeGroup in
            let group = tx.create(Into<ProbeGroup>())
            group.rank = rank
            return group
        }
        let tags = (0..<tagCount).map { index -> ProbeTag in
            let tag = tx.create(Into<ProbeTag>())
            tag.label = "tag\(index)"
            return tag
        }
        for number in 0..<itemCount {
            let item = tx.create(Into<ProbeItem>())
            item.number = number
            item.group = itemGroups[number] >= 0 ? groups[itemGroups[number]] : nil
            item.tags = Set(itemTagSets[number].map { tags[$0] })
        }
    })
    var graph = CountedGraph()
    graph.groupItems = (0..<groupCount).map { rank in (rank, itemGroups.filter { $0 == rank }.count) }
    graph.itemTags = itemTagSets.enumerated().map { ($0.offset, $0.element.count) }
    graph.tagItems = (0..<tagCount).map { index in
        ("tag\(index)", itemTagSets.filter { $0.contains(index) }.count)
    }
    return graph
}

/// CoreStore's README selects `.count("friends")` beside a person's name and
/// gets one row per person with that person's number of friends. Strata's
/// `.count(\.$relationship)` does the same, for a to-many relationship kept
/// by foreign key or in a link table.
@Suite("Select: the size of a to-many relationship, per object")
struct SelectRelationshipCountTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func eachRowCountsItsObjectsRelatedObjects(_ kind: StoreKind) throws {
        var random = SplitMix64.random()
        for round in 0..<6 {
            let directory = TemporaryDirectory()
            let stack = try makeStack(probeSchema, kind, in: directory)
            let graph = try seedGraph(stack, using: &random)
            let context = "seed \(random.seed), round \(round)"

            // By foreign key (the items' `group`), zero counts included, in the fetch's order.
            let groups = try stack.queryAttributes(
                From<ProbeGroup>().select(.attribute(\.$rank), .count(\.$items))
                    .orderBy(.descending(\.$rank)))
            #expect(
                groups == graph.groupItems.reversed().map {
                    ["rank": .integer(Int64($0.rank)), "count(items)": .integer(Int64($0.items))]
                }, "\(context)")

            // Through the link table, named with `as:`, filtered.
            let threshold = Int.random(in: 0...40, using: &random)
            let items = try stack.queryAttributes(
                From<ProbeItem>().where(\.$number >= threshold)
                    .select(.attribute(\.$number), .count(\.$tags, as: "tagCount"))
                    .orderBy(.ascending(\.$number)))
            #expect(
                items == graph.itemTags.filter { $0.number >= threshold }.map {
                    ["number": .integer(Int64($0.number)), "tagCount": .integer(Int64($0.tags))]
                }, "\(context)")

            // The other side of the link table, as a value: the first row's count.
            for tag in graph.tagItems {
                let count = try stack.queryValue(
                    From<ProbeTag>().where(\.$label == tag.label).select(Int.self, .count(\.$items)))
                #expect(count == tag.items, "\(context), \(tag.label)")
                #expect(
                    try stack.queryValue(
                        From<ProbeTag>().where(\.$label == tag.label).select(Date.self, .count(\.$items)))
                        == nil, "a count is not a date")
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aTransactionCountsItsPendingChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        let counts = try stack.perform(synchronous: { tx in
            let group = tx.create(Into<ProbeGroup>())
            for number in 0..<3 { tx.create(Into<ProbeItem>()).group = number < 2 ? group : nil }
            let before = try tx.queryValue(From<ProbeGroup>().select(Int.self, .count(\.$items)))
            tx.delete(try tx.fetchOne(From<ProbeItem>().where(\.$group != nil)))
            let after = try tx.queryValue(From<ProbeGroup>().select(Int.self, .count(\.$items)))
            return [before, after]
        })
        #expect(counts == [2, 1])
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aQueryThatGroupsOrAggregatesRefusesTheCount(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            tx.create(Into<ProbeItem>()).group = tx.create(Into<ProbeGroup>())
        })
        let grouped = From<ProbeGroup>().select(.attribute(\.$rank), .count(\.$items)).groupBy(\.$rank)
        let aggregated = From<ProbeGroup>().select(.count(\.$items), .count())
        for query in [grouped, aggregated] {
            #expect {
                _ = try stack.queryAttributes(query)
            } throws: { error in
                guard case .invalidValue(let entity, let field, _)? = error as? StrataError else {
                    return false
                }
                return entity == "Group" && field == "count(items)"
            }
        }
    }

    @Test func theCountIsACorrelatedSubqueryOfTheRelationship() throws {
        let entity = probeSchema.entity(of: ProbeGroup.self)
        let compiled = try From<ProbeGroup>().where(\.$rank > 1)
            .select(.attribute(\.$rank), .count(\.$items, as: "size"))
            .compile(in: entity, schema: probeSchema, dialect: .sqlite)
        #expect(
            compiled.sql == """
                SELECT t0."rank" AS "rank", (SELECT count(*) FROM "Item" AS t1 WHERE t1."group" = t0._pk) \
                AS "size" FROM "Group" AS t0 WHERE t0."rank" > ? ORDER BY t0._pk ASC
                """)
        #expect(compiled.arguments == [.integer(1)])
        #expect(compiled.names == ["rank", "size"])
    }
}
