import Foundation
import Testing

@testable import Strata

/// CoreStore's `(\.$master ~ \.$pets).count() > 1` and
/// `(\.$master ~ \.$pets ~ \.$name).any() == "Rex"`: a to-many relationship
/// at the end of a to-one path, here an item's group's items and its
/// group's parent's items. An object's answer changes when *another* object
/// joins or leaves its group, so the monitors are checked as well as the
/// fetches and the in-memory evaluation.
@MainActor
@Suite("Where: a to-many relationship at the end of a to-one path")
struct ToManyPathTests {
    @Test(arguments: StoreKind.enabled([.inMemory, .file, .postgreSQL]))
    func pathMembersMatchTheModelInSQLInMemoryAndInMonitors(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        var random = SplitMix64.random()
        let groupCount = 5
        let itemCount = 30
        let (groups, items) = try stack.perform(synchronous: { tx in
            let groups = (0..<groupCount).map { rank -> ProbeGroup in
                let group = tx.create(Into<ProbeGroup>())
                group.rank = rank
                return group
            }
            // Group 0 is the parent of groups 1 and 2; group 3 of group 4.
            groups[1].parent = groups[0]
            groups[2].parent = groups[0]
            groups[4].parent = groups[3]
            let items = (0..<itemCount).map { number -> ObjectID<ProbeItem> in
                let item = tx.create(Into<ProbeItem>())
                item.number = number
                return item.objectID
            }
            return (groups.map(\.objectID), items)
        })
        let parents: [Int?] = [nil, 0, 0, nil, 3]
        // The model: each item's group index, or nil.
        var owners: [Int?] = Array(repeating: nil, count: itemCount)
        func members(of group: Int?) -> [Int] { items.indices.filter { group != nil && owners[$0] == group } }

        let queries: [(String, Where<ProbeItem>, (Int) -> Bool)] = [
            ("siblings", Where<ProbeItem>.count(\.$group ~ \.$items) > 1, { members(of: owners[$0]).count > 1 }),
            ("alone", Where<ProbeItem>.count(\.$group ~ \.$items) == 0, { owners[$0] == nil }),
            ("with item 7", .any(\.$group ~ \.$items, \.$number == 7), { members(of: owners[$0]).contains(7) }),
            ("all small", .all(\.$group ~ \.$items, \.$number < 20), { members(of: owners[$0]).allSatisfy { $0 < 20 } }),
            ("none late", .none(\.$group ~ \.$items, \.$number >= 25), {
                !members(of: owners[$0]).contains { $0 >= 25 }
            }),
            ("parent's", Where<ProbeItem>.count(\.$group ~ \.$parent ~ \.$items) >= 2, {
                members(of: owners[$0].flatMap { parents[$0] }).count >= 2
            }),
            ("parent's item 3", .any(\.$group ~ \.$parent ~ \.$items, \.$number == 3), {
                members(of: owners[$0].flatMap { parents[$0] }).contains(3)
            }),
        ]
        let monitors = try queries.map { _, predicate, _ in
            try stack.monitorList(From<ProbeItem>().where(predicate).orderBy(.ascending(\.$number)))
        }
        for round in 0..<10 {
            let context = "seed \(random.seed), round \(round)"
            try ProbeData.moveSome(items, among: groups, owners: &owners, in: stack, using: &random)

            let shown = try items.map { try #require(try stack.fetchExisting($0)) }
            for ((name, predicate, test), monitor) in zip(queries, monitors) {
                let expected = items.indices.filter(test).map { items[$0] }
                let fetched = try stack.fetchObjectIDs(From<ProbeItem>().where(predicate).orderBy(.ascending(\.$number)))
                #expect(fetched == expected, "\(context), \(name): SQL")
                let evaluated = shown.filter { predicate.evaluate($0) == true }.map(\.objectID)
                #expect(evaluated == expected, "\(context), \(name): in memory")
                #expect(monitor.objectsInAllSections().map(\.objectID) == expected, "\(context), \(name): monitor")
            }
        }
    }

    @Test func aPathToManyCompilesToASubqueryOnTheOwnersRow() throws {
        let (sql, arguments) = try condition(Where<ProbeItem>.count(\.$group ~ \.$items) > 1)
        #expect(sql == #"(SELECT count(*) FROM "Item" AS t2 WHERE t2."group" = "#
            + #"(SELECT t1._pk FROM "Group" AS t1 WHERE t1._pk = t0."group")) > ?"#)
        #expect(arguments == [.integer(1)])
        #expect(Where<ProbeItem>.any(\.$group ~ \.$items, \.$number == 1)
            == Where<ProbeItem>.any(\.$group ~ \.$items, \.$number == 1))
        #expect(Where<ProbeItem>.any(\.$group ~ \.$items, \.$number == 1)
            != Where<ProbeItem>.any(\.$group ~ \.$parent ~ \.$items, \.$number == 1))
    }
}
