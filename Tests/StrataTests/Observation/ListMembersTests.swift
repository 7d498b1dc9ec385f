import Foundation
@testable import Strata
import Testing

final class MembersTestItem: ManagedObject {
    @Field.Stored("number") var number: Int = 0
}

let membersTestSchema = Schema("LM1", entities: [Entity<MembersTestItem>("MembersTestItem")])

/// `ListMembers` keeps the list in chunks so a commit moves a chunk, not half
/// the list; the bookkeeping that makes that cheap (chunk starts, splits,
/// emptied chunks) is what these tests hold against a plain array.
@MainActor
@Suite("ListMembers: a chunked list behaves as a sorted array")
struct ListMembersTests {
    nonisolated static let capacities = [2, 3, 4, 7, 16, ListMembers.defaultChunkCapacity]
    nonisolated static let spec = ListSortKey(path: ValuePath(field: "number"), ascending: true, options: [], nullsFirst: true)

    /// Real objects to ride along; the list never looks at them, only at keys.
    static func objects() throws -> [ManagedObject] {
        let directory = TemporaryDirectory()
        let stack = try makeStack(membersTestSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for number in 0..<200 { tx.create(Into<MembersTestItem>()).number = number }
        })
        return try stack.fetchAll(From<MembersTestItem>())
    }

    /// Makes entries with distinct row IDs and values from a narrow range, so
    /// that many keys tie on the value and the row ID must break the tie.
    struct Maker {
        var random: SplitMix64
        let objects: [ManagedObject]
        var usedRowIDs: Set<Int64> = []

        mutating func key(value: Int64? = nil) -> ListKey {
            var rowID: Int64
            repeat { rowID = Int64(random.next() % 1_000_000) } while !usedRowIDs.insert(rowID).inserted
            return ListKey([.integer(value ?? Int64(random.next() % 40))], specs: [ListMembersTests.spec], rowID: rowID)
        }

        mutating func entries(_ count: Int) -> [ListEntry] {
            (0..<count).map { _ in ListEntry(object: objects[Int(random.next() % UInt64(objects.count))], key: key()) }
                .sorted { $0.key < $1.key }
        }
    }

    /// The model's answer to `insertionPoint(of:)`: how many entries sort before the key.
    static func modelInsertionPoint(_ model: [ListEntry], _ key: ListKey) -> Int {
        model.prefix { $0.key < key }.count
    }

    /// Checks every reading API of `members` against the model.
    static func verify(_ members: ListMembers, _ model: [ListEntry], _ maker: inout Maker, _ context: String) {
        members.checkInvariants()
        #expect(members.count == model.count, "\(context)")
        #expect(members.isEmpty == model.isEmpty, "\(context)")
        #expect(members.map(\.rowID) == model.map(\.rowID), "\(context): iteration order")
        #expect(members.underestimatedCount == model.count, "\(context): map reserves for every entry")
        guard members.count == model.count else { return }
        for position in model.indices {
            let present = model[position].key
            if members[position].rowID != present.rowID || members.insertionPoint(of: present) != position
                || members.position(of: present) != position {
                let found = "subscript row \(members[position].rowID), insertionPoint \(members.insertionPoint(of: present)), "
                    + "position \(String(describing: members.position(of: present)))"
                Issue.record("\(context): position \(position) row \(present.rowID): \(found)")
                return
            }
        }
        var ranges = [0..<0, 0..<model.count, model.count..<model.count]
        for _ in 0..<5 where !model.isEmpty {
            let bounds = [Int(maker.random.next() % UInt64(model.count + 1)), Int(maker.random.next() % UInt64(model.count + 1))]
            ranges.append(bounds.min()!..<bounds.max()!)
        }
        for range in ranges {
            #expect(members.entries(in: range).map(\.rowID) == model[range].map(\.rowID), "\(context): entries(in: \(range))")
        }
        // Absent keys: fresh row IDs, values inside and beyond the present ones.
        for value: Int64 in [-1, 0, 7, 20, 39, 40, Int64(maker.random.next() % 40)] {
            let absent = maker.key(value: value)
            #expect(members.insertionPoint(of: absent) == modelInsertionPoint(model, absent), "\(context): absent value \(value) row \(absent.rowID)")
            #expect(members.position(of: absent) == nil, "\(context): absent value \(value) row \(absent.rowID)")
        }
    }

    @Test(arguments: [UInt64(1), 2, 3], capacities)
    func randomBatchesOfRemovalsAndInsertionsKeepTheListAsTheModel(seed: UInt64, capacity: Int) throws {
        var maker = Maker(random: SplitMix64(seed: seed), objects: try Self.objects())
        var model = maker.entries(Int(maker.random.next() % 300))
        var members = ListMembers(model, chunkCapacity: capacity)
        Self.verify(members, model, &maker, "seed \(seed) capacity \(capacity) initial")
        for round in 0..<120 {
            let context = "seed \(seed) capacity \(capacity) round \(round)"
            // Removals: none, one, all, or a random share (from a few to most).
            let removeCount: Int
            switch maker.random.next() % 8 {
            case 0: removeCount = 0
            case 1: removeCount = min(1, model.count)
            case 2 where round % 5 == 0: removeCount = model.count
            default: removeCount = model.isEmpty ? 0 : Int(maker.random.next() % UInt64(model.count + 1)) / (1 + Int(maker.random.next() % 4))
            }
            let removed = Array(model.indices.shuffled(using: &maker.random).prefix(removeCount)).sorted()
            members.remove(ascending: removed)
            for position in removed.reversed() { model.remove(at: position) }
            Self.verify(members, model, &maker, "\(context) after removing \(removed.count)")

            // Insertions: final position = place among the survivors + new entries before it.
            let fresh = maker.entries(maker.random.next() % 6 == 0 ? 0 : Int(maker.random.next() % 60))
            let placed = fresh.enumerated().map { index, entry in
                (position: Self.modelInsertionPoint(model, entry.key) + index, entry: entry)
            }
            for (index, item) in placed.enumerated() {
                #expect(members.insertionPoint(of: item.entry.key) == item.position - index,
                        "\(context): insertionPoint of new row \(item.entry.rowID)")
            }
            // The same in one forward walk; and the positions of a random
            // ascending share of the present keys, with absent keys among them.
            #expect(members.insertionPoints(ofAscending: fresh.map(\.key)) == placed.enumerated().map { $1.position - $0 },
                    "\(context): insertionPoints of the new rows")
            let sought = (model.map(\.key).filter { _ in maker.random.next() % 3 == 0 } + fresh.map(\.key)).sorted { $0 < $1 }
            #expect(members.positions(ofAscending: sought) == sought.map { members.position(of: $0) },
                    "\(context): positions of \(sought.count) keys")
            members.insert(placed)
            for (position, entry) in placed { model.insert(entry, at: position) }
            #expect(zip(model, model.dropFirst()).allSatisfy { $0.key < $1.key }, "\(context): the model itself is out of order")
            Self.verify(members, model, &maker, "\(context) after inserting \(placed.count)")
        }
    }

    @Test(arguments: capacities)
    func anEmptyListFindsNothingThenTakesInsertionsAndEmptiesAgain(capacity: Int) throws {
        let seed: UInt64 = 99
        var maker = Maker(random: SplitMix64(seed: seed), objects: try Self.objects())
        var members = ListMembers(chunkCapacity: capacity)
        Self.verify(members, [], &maker, "seed \(seed) capacity \(capacity) empty")
        #expect(members.entries(in: 0..<0).isEmpty, "seed \(seed) capacity \(capacity)")
        members.remove(ascending: [])
        members.insert([])
        Self.verify(members, [], &maker, "seed \(seed) capacity \(capacity) empty after empty batches")

        // One entry, then a batch into the emptied list, then everything out again.
        let single = maker.entries(1)
        members.insert([(position: 0, entry: single[0])])
        Self.verify(members, single, &maker, "seed \(seed) capacity \(capacity) one entry")
        members.remove(ascending: [0])
        Self.verify(members, [], &maker, "seed \(seed) capacity \(capacity) emptied")
        let batch = maker.entries(50)
        members.insert(batch.enumerated().map { (position: $0.offset, entry: $0.element) })
        Self.verify(members, batch, &maker, "seed \(seed) capacity \(capacity) batch into an emptied list")
        members.remove(ascending: Array(batch.indices))
        Self.verify(members, [], &maker, "seed \(seed) capacity \(capacity) everything removed")
    }
}
