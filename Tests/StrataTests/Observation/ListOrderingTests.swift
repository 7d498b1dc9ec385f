import Foundation
@testable import Strata
import Testing

/// A monitor sorts a commit's keys by their words as plain values, and finds
/// a large batch of members by walking the list instead of searching for
/// each: both must give what sorting the keys themselves and searching for
/// them gives.
@MainActor
@Suite("ListOrdering and ListMembers.locate: the fast paths agree with the plain ones")
struct ListOrderingTests {
    nonisolated static let specs = [
        ListSortKey(path: ValuePath(field: "group"), ascending: true, options: [], nullsFirst: true),
        ListSortKey(path: ValuePath(field: "name"), ascending: false, options: [], nullsFirst: false),
    ]

    /// Keys whose words often tie: few groups, names sharing long prefixes,
    /// so that some keys have tails and the tails or the row IDs decide.
    static func keys(_ count: Int, rowIDs: [Int64], random: inout SplitMix64) -> [ListKey] {
        let stems = ["", "a", "bb", String(repeating: "x", count: 30), String(repeating: "x", count: 31)]
        return (0..<count).map { index in
            let group: StoredValue = random.next() % 9 == 0 ? .null : .integer(Int64(random.next() % 3))
            let name: StoredValue = random.next() % 7 == 0
                ? .null : .text(stems[Int(random.next() % UInt64(stems.count))] + String(random.next() % 3))
            return ListKey([group, name], specs: specs, rowID: rowIDs[index])
        }
    }

    @Test func sortingByWordsOrdersAsTheKeysDo() {
        var random = SplitMix64.random()
        for round in 0..<40 {
            let count = Int(random.next() % 400)
            let rowIDs = (0..<count).map { _ in Int64(random.next() % 1_000) }  // ties on row IDs too
            let keys = Self.keys(count, rowIDs: rowIDs, random: &random)
            let (order, sorted) = ListOrdering.sorted(keys)
            let context = "seed \(random.seed) round \(round)"
            #expect(order.sorted() == Array(keys.indices), "\(context): every key once")
            #expect(zip(sorted, sorted.dropFirst()).allSatisfy { !($1 < $0) }, "\(context): ascending")
            #expect(zip(order, sorted).allSatisfy { keys[$0].rowID == $1.rowID && keys[$0].sortsWith($1) },
                    "\(context): each key beside its index")
            #expect(keys.contains { $0.tail != nil } || count < 50, "\(context): the draw makes tails")
        }
    }

    @Test func walkingTheListFindsWhatSearchingFinds() throws {
        var random = SplitMix64.random()
        let objects = try ListMembersTests.objects()
        for round in 0..<30 {
            let context = "seed \(random.seed) round \(round)"
            // Dense row IDs, as SQLite hands them out, some left unused.
            let size = Int(random.next() % 3_000)
            var rowIDs = Array(Int64(1)...Int64(2 * size + 2)).shuffled(using: &random)
            let listed = Array(rowIDs.prefix(size))
            rowIDs.removeFirst(size)
            let entries = Self.keys(size, rowIDs: listed, random: &random)
                .map { ListEntry(object: objects[Int($0.rowID) % objects.count], key: $0) }
                .sorted { $0.key < $1.key }
            let members = ListMembers(entries, chunkCapacity: [4, 64, ListMembers.defaultChunkCapacity][round % 3])
            // Sought: a random share of the members, and keys of rows not in the list.
            var sought = entries.map(\.key).filter { _ in random.next() % 3 == 0 }
            let absent = Array(rowIDs.prefix(Int(random.next() % 20)))
            sought += Self.keys(absent.count, rowIDs: absent, random: &random)
            sought.shuffle(using: &random)

            let walked = try #require(members.locateByWalking(sought, minimumBatch: 1), "\(context)")
            let searched = members.locate(sought, walking: false)
            for found in [walked, searched] {
                #expect(found.order.sorted() == Array(sought.indices), "\(context): every key once")
                let positions = found.positions.compactMap { $0 }
                #expect(positions == positions.sorted(), "\(context): list order")
            }
            #expect(walked.positions.drop { $0 != nil }.allSatisfy { $0 == nil }, "\(context): the absent last")
            func byKey(_ found: (order: [Int], positions: [Int?])) -> [Int: Int] {
                Dictionary(uniqueKeysWithValues: zip(found.order, found.positions).compactMap { key, position in
                    position.map { (key, $0) }
                })
            }
            #expect(byKey(walked) == byKey(searched), "\(context): the same positions")
            let expected = Dictionary(uniqueKeysWithValues: entries.enumerated().map { ($1.rowID, $0) })
            #expect(byKey(walked).allSatisfy { expected[sought[$0].rowID] == $1 }, "\(context): where the model has them")
            #expect(byKey(walked).count == sought.count { expected[$0.rowID] != nil }, "\(context): every member found")
        }
    }
}
