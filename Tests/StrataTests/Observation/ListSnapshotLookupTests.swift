import Foundation
import Testing

@testable import Strata

/// CoreStore's `ListSnapshot` answers `nil` for a position or index path
/// outside the list (`snapshot[safeIndex:]`, `[safeIndexPath:]`) and names the
/// section holding an item; so does Strata's.
@Suite("ListSnapshot: look-ups that answer nil")
struct ListSnapshotLookupTests {
    @Test func safeLookUpsAgreeWithTheSectionsOnRandomSnapshots() {
        var random = SplitMix64.random()
        for round in 0..<50 {
            var next: Int64 = 1
            let sections = (0..<Int.random(in: 0...4, using: &random)).map { section in
                let ids = (0..<Int.random(in: 0...4, using: &random)).map { _ -> ObjectID<MonItem> in
                    defer { next += 1 }
                    return ObjectID(entityName: "MonItem", rowID: next)
                }
                return (id: "s\(section)", itemIDs: ids)
            }
            let snapshot = ListSnapshot(sections: sections)
            let flat = sections.flatMap(\.itemIDs)
            let context = "seed \(random.seed), round \(round), \(snapshot)"
            for position in -2..<(flat.count + 2) {
                let expected = flat.indices.contains(position) ? flat[position] : nil
                #expect(snapshot[safeIndex: position] == expected, "\(context)")
            }
            for section in -1...(sections.count) {
                for item in -1...5 {
                    let ids = sections.indices.contains(section) ? sections[section].itemIDs : []
                    let expected = ids.indices.contains(item) ? ids[item] : nil
                    let path = IndexPath(item: item, section: section)
                    #expect(snapshot[safeIndexPath: path] == expected, "\(context)")
                }
            }
            for (index, section) in sections.enumerated() {
                for id in section.itemIDs {
                    #expect(snapshot.sectionID(containing: id) == section.id, "\(context)")
                    #expect(snapshot.indexPath(of: id)?.section == index, "\(context)")
                }
            }
            let absent = ObjectID<MonItem>(entityName: "MonItem", rowID: next)
            #expect(snapshot.sectionID(containing: absent) == nil, "\(context)")
        }
    }
}
