import Foundation
@testable import Strata
import Testing

/// The identity table maps row IDs to slots through a direct array while row
/// IDs are dense and through a dictionary past a limit that grows and shrinks
/// with the number of live objects. An object filed in the dictionary and then
/// covered by a grown direct array was once hidden: the context made a second
/// instance of its row and merged changes into neither.
@Suite("Identity map: one object per row ID")
struct IdentityMapTests {
    /// Detached objects with a row ID; the table only reads `rowID` and `identitySlot`.
    static func object(_ rowID: Int64) -> ManagedObject {
        let object = Owner()
        object.rowID = rowID
        return object
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func everyInsertedObjectIsFoundUntilRemoved(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let table = EntityObjectTable(ownership: .strong)
        var model: [Int64: ManagedObject] = [:]
        func check(_ phase: String) {
            for (rowID, object) in model where table.object(rowID) !== object {
                Issue.record("seed \(seed), \(phase): row \(rowID) is not found as its object")
                return
            }
            var asked: [Int64] = []
            for _ in 0..<200 {
                let rowID = Int64(random.next() % 400_000)
                asked.append(rowID)
                if model[rowID] == nil, table.object(rowID) != nil {
                    Issue.record("seed \(seed), \(phase): absent row \(rowID) is found")
                    return
                }
            }
            // Many rows at once (as a merge asks) agree with the model, present and absent alike.
            asked += model.keys.shuffled(using: &random).prefix(300)
            let found = table.objects(asked)
            for (rowID, object) in zip(asked, found) where object !== model[rowID] {
                Issue.record("seed \(seed), \(phase): row \(rowID) is found otherwise when asked with others")
                return
            }
        }
        func insert(_ rowID: Int64) {
            guard model[rowID] == nil else { return }
            let object = Self.object(rowID)
            table.insert(object)
            model[rowID] = object
        }
        func removeSome(keeping fraction: UInt64) {
            for (rowID, object) in model where random.next() % 100 >= fraction {
                table.remove(object)
                model[rowID] = nil
            }
        }

        // Few live objects: high row IDs go past the limit, into the dictionary.
        for _ in 0..<500 { insert(70_000 + Int64(random.next() % 200_000)) }
        check("high rows while few are live")
        // Many live objects: the limit grows and the direct array covers them.
        for _ in 0..<60_000 { insert(Int64(random.next() % 300_000)) }
        check("after the direct array grew")
        // Fewer again: the limit shrinks below rows the direct array covers.
        removeSome(keeping: 5)
        check("after most were removed")
        table.trimDirectHead(nextRowID: random.next() % 2 == 0 ? 0 : 400_000)
        check("after the direct array's empty head was dropped")
        for _ in 0..<3_000 { insert(Int64(random.next() % 400_000)) }
        check("rows inserted after the limit shrank")
        removeSome(keeping: 0)
        check("after every object was removed")
    }

    /// Detached objects with the given row IDs.
    static func objects(_ rowIDs: some Sequence<Int64>) -> [ManagedObject] {
        rowIDs.map(object)
    }

    @Test func findsARowIDStoredAfterTheDirectArrayOutgrewTheLiveObjects() {
        let table = EntityObjectTable(ownership: .strong)
        // Many live objects let the direct array grow past 65,536 row IDs...
        let many = Self.objects(1...17_500) + Self.objects([70_000])
        many.forEach(table.insert)
        // ...and once they are gone, a row ID it covers must still be found.
        many.forEach(table.remove)
        let late = Self.objects([69_000])[0]
        table.insert(late)
        #expect(table.object(69_000) === late)
    }

    @Test func findsAnOverflowRowIDAfterTheDirectArrayGrewOverIt() {
        let table = EntityObjectTable(ownership: .strong)
        // With few live objects, a large row ID goes to the overflow...
        let early = Self.objects([70_000])[0]
        table.insert(early)
        // ...and stays findable when the direct array later grows over it.
        let many = Self.objects(1...17_500) + Self.objects([70_005])
        many.forEach(table.insert)
        #expect(table.object(70_000) === early)
        #expect(table.object(70_005) === many.last)
        #expect(table.object(17_500) === many[17_499])
    }

    @Test func findsAFewFarRowIDsOnceManyDenseOnesFollow() {
        let table = EntityObjectTable(ownership: .strong)
        // A transaction's few objects with far row IDs sit in the overflow...
        let few = Self.objects(stride(from: 1_000, through: 63_000, by: 1_000))
        few.forEach(table.insert)
        for object in few { #expect(table.object(object.rowID) === object) }
        // ...and are found where the direct array moves them once many are live.
        let many = Self.objects(1...999)
        many.forEach(table.insert)
        for object in few + many where table.object(object.rowID) !== object {
            Issue.record("row \(object.rowID) is not found as its object")
        }
        #expect(table.object(64_000) == nil)
    }

    /// What a large transaction does (`ObjectContext+Retiring`): it creates
    /// rows in order, lets go of most of them, and the direct array drops
    /// its empty head; rows created after stay out of the overflow, and the
    /// rows let go of that are read again (below the new start) are found.
    @Test(arguments: [UInt64(4), 5, 6])
    func rowsCreatedAfterObjectsAreLetGoStayInTheDirectArray(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let table = EntityObjectTable(ownership: .strong)
        var live: [Int64: ManagedObject] = [:]
        var nextRowID: Int64 = 1
        for round in 0..<10 {
            let created = Int64(10_000 + random.next() % 10_000)
            for _ in 0..<created {
                let object = Self.object(nextRowID)
                table.insert(object)
                live[nextRowID] = object
                nextRowID += 1
            }
            // Past 65,536 with a few hundred live, the array's limit, these
            // went to the overflow before the head was dropped.
            #expect(table.overflowCount < 1_000, "seed \(seed), round \(round)")
            // Let go of all but a few (the objects someone else still holds).
            for (rowID, object) in live where random.next() % 100 >= 2 {
                table.remove(object)
                live[rowID] = nil
            }
            table.trimDirectHead(nextRowID: nextRowID)
            // Some rows let go of are read again, as new objects.
            for _ in 0..<(random.next() % 50) {
                let rowID = Int64(1 + random.next() % UInt64(nextRowID - 1))
                guard live[rowID] == nil else { continue }
                let object = Self.object(rowID)
                table.insert(object)
                live[rowID] = object
            }
            table.checkInvariants()
            for (rowID, object) in live where table.object(rowID) !== object {
                Issue.record("seed \(seed), round \(round): row \(rowID) is not found as its object")
                return
            }
            #expect(table.object(nextRowID) == nil)
            #expect(table.count == live.count)
        }
        #expect(nextRowID > 100_000)
    }

    @Test func forgetsARemovedObject() {
        let table = EntityObjectTable(ownership: .strong)
        let all = Self.objects([1, 2, 100_000])
        all.forEach(table.insert)
        all.forEach(table.remove)
        #expect(table.object(1) == nil)
        #expect(table.object(2) == nil)
        #expect(table.object(100_000) == nil)
    }
}
