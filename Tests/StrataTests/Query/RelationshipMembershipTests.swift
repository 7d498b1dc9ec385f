import Foundation
import Testing

@testable import Strata

/// CoreStore's `[john, bob] ~= \.$master`: objects whose to-one relationship
/// points to one of several objects, in SQL, in memory and in a live list.
@MainActor
@Suite("Where: a to-one relationship in a set of objects")
struct RelationshipMembershipTests {
    @Test(arguments: StoreKind.allCases)
    func membershipMatchesTheModelInSQLInMemoryAndInAMonitor(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        var random = SplitMix64.random()
        let groupCount = 6
        let (groups, items) = try stack.perform(synchronous: { tx in
            let groups = (0..<groupCount).map { rank -> ProbeGroup in
                let group = tx.create(Into<ProbeGroup>())
                group.rank = rank
                return group
            }
            let items = (0..<40).map { number -> ObjectID<ProbeItem> in
                let item = tx.create(Into<ProbeItem>())
                item.number = number
                return item.objectID
            }
            return (groups.map(\.objectID), items)
        })
        // Each item's group index, or nil; the model the queries must agree with.
        var owners: [Int?] = Array(repeating: nil, count: items.count)
        for round in 0..<8 {
            let context = "seed \(random.seed), round \(round)"
            let chosen = Set((0..<groupCount).filter { _ in Bool.random(using: &random) })
            let chosenIDs = groups.indices.filter(chosen.contains).map { groups[$0] }
            let chosenGroups = try chosenIDs.map { try #require(try stack.fetchExisting($0)) }
            let inSet = chosenGroups ~= \ProbeItem.$group
            let queries: [(Where<ProbeItem>, (Int?) -> Bool)] = [
                (inSet, { $0.map(chosen.contains) ?? false }),
                (Where(\.$group, in: chosenIDs), { $0.map(chosen.contains) ?? false }),
                (!inSet, { !($0.map(chosen.contains) ?? false) }),
            ]
            let monitor = try stack.monitorList(From<ProbeItem>().where(inSet).orderBy(.ascending(\.$number)))

            // Reassign some items, then compare every query with the model.
            try ProbeData.moveSome(items, among: groups, owners: &owners, in: stack, using: &random)

            for (number, (predicate, test)) in queries.enumerated() {
                let expected = items.indices.filter { test(owners[$0]) }.map { items[$0] }
                let fetched = try stack.fetchObjectIDs(
                    From<ProbeItem>().where(predicate).orderBy(.ascending(\.$number)))
                #expect(fetched == expected, "\(context), query \(number)")
                for (index, id) in items.enumerated() {
                    let item = try #require(try stack.fetchExisting(id))
                    #expect(
                        predicate.evaluate(item) == test(owners[index]),
                        "\(context), query \(number), item \(index)")
                }
            }
            let expectedMembers = items.indices.filter { owners[$0].map(chosen.contains) ?? false }
            #expect(
                monitor.objectsInAllSections().map(\.objectID) == expectedMembers.map { items[$0] },
                "\(context): the monitor, updated in memory")
        }
    }

    @Test func membershipIsAnInListOfRowIDs() throws {
        let ids: [ObjectID<ProbeGroup>] = [
            ObjectID(entityName: "Group", rowID: 7), ObjectID(entityName: "Group", rowID: 3),
        ]
        let (sql, arguments) = try condition(Where<ProbeItem>(\.$group, in: ids))
        #expect(sql == #"t0."group" IN (?, ?)"#)
        #expect(Set(arguments) == Set<StoredValue>([.integer(7), .integer(3)]))
    }
}
