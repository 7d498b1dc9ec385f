@testable import Strata
import Testing

/// `ListKeyMap` keeps keys in an array by row ID while row IDs are dense and
/// in a dictionary past that; held here against a plain dictionary.
@Suite("ListKeyMap: keys by row ID behave as a dictionary")
struct ListKeyMapTests {
    static let spec = ListSortKey(path: ValuePath(field: "number"), ascending: true, options: [], nullsFirst: true)

    static func key(_ rowID: Int64, _ value: Int64) -> ListKey {
        ListKey([.integer(value)], specs: [spec], rowID: rowID)
    }

    /// Row IDs from a dense range, with some far past it and some negative,
    /// so that keys go to the array, the dictionary, and move between them
    /// as the array grows.
    static func rowID(_ random: inout SplitMix64, spread: UInt64) -> Int64 {
        switch random.next() % 10 {
        case 0: return Int64(random.next() % 1_000_000) + 100_000
        case 1: return -Int64(random.next() % 50) - 1
        default: return Int64(random.next() % spread)
        }
    }

    @Test(arguments: [UInt64(1), 2, 3, 4], [UInt64(64), 5_000, 60_000])
    func randomUpdatesAndRemovalsKeepTheMapAsADictionary(seed: UInt64, spread: UInt64) {
        var random = SplitMix64(seed: seed)
        let initial = (0..<Int(random.next() % 300)).map { _ in Self.rowID(&random, spread: spread) }
        var model: [Int64: ListKey] = [:]
        for rowID in initial { model[rowID] = Self.key(rowID, Int64(random.next() % 100)) }
        var map = ListKeyMap(Array(model.values))
        for step in 0..<3_000 {
            let context = "seed \(seed) spread \(spread) step \(step)"
            let rowID = Self.rowID(&random, spread: spread)
            switch random.next() % 3 {
            case 0:
                let key = Self.key(rowID, Int64(random.next() % 100))
                let old = map.updateValue(key, forKey: rowID)
                #expect(old?.sortsWith(model[rowID] ?? key) ?? (model[rowID] == nil), "\(context): update \(rowID)")
                #expect(old?.rowID == model[rowID]?.rowID, "\(context): update \(rowID)")
                model[rowID] = key
            case 1:
                let old = map.removeValue(forKey: rowID)
                #expect(old?.rowID == model[rowID]?.rowID, "\(context): remove \(rowID)")
                model[rowID] = nil
            default:
                let found = map[rowID]
                #expect(found?.rowID == model[rowID]?.rowID, "\(context): read \(rowID)")
                if let found, let expected = model[rowID] {
                    #expect(found.sortsWith(expected), "\(context): read \(rowID)")
                }
            }
            #expect(map.count == model.count, "\(context): count")
        }
        for (rowID, key) in model {
            #expect(map[rowID]?.sortsWith(key) == true, "seed \(seed) spread \(spread): final \(rowID)")
        }
    }
}

extension ListKeyMapTests {
    /// A row kept in the dictionary while the list was small moves into the
    /// array when the list has grown enough; updating it then replaces its
    /// key rather than counting it twice.
    @Test
    func updatingARowTheArrayGrowsOverReturnsItsOldKey() {
        var map = ListKeyMap()
        #expect(map.updateValue(Self.key(100, 1), forKey: 100) == nil)  // past 64 slots: the dictionary
        for rowID in Int64(0)..<30 { map.updateValue(Self.key(rowID, 2), forKey: rowID) }
        #expect(map.count == 31)
        let old = map.updateValue(Self.key(100, 3), forKey: 100)  // now within ~4 slots a member
        #expect(old?.rowID == 100)
        #expect(old?.sortsWith(Self.key(100, 1)) == true)
        #expect(map.count == 31)
        #expect(map[100]?.sortsWith(Self.key(100, 3)) == true)
        #expect(map.removeValue(forKey: 100) != nil)
        #expect(map.count == 30)
    }
}
