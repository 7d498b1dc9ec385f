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
            for _ in 0..<200 {
                let rowID = Int64(random.next() % 400_000)
                if model[rowID] == nil, table.object(rowID) != nil {
                    Issue.record("seed \(seed), \(phase): absent row \(rowID) is found")
                    return
                }
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
        for _ in 0..<3_000 { insert(Int64(random.next() % 400_000)) }
        check("rows inserted after the limit shrank")
        removeSome(keeping: 0)
        check("after every object was removed")
    }
}
