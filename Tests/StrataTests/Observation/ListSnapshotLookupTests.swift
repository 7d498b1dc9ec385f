import Foundation
import Testing

@testable import Strata

/// CoreStore's `ListSnapshot` answers `nil` for a position or index path
/// outside the list (`snapshot[safeIndex:]`, `[safeIndexPath:]`), names the
/// section holding an item, and looks sections up by identifier; so does
/// Strata's, with `nil` or an empty result where CoreStore's would trap.
@Suite("ListSnapshot: look-ups that answer nil")
struct ListSnapshotLookupTests {
    /// A random snapshot of up to five sections named from a pool of four
    /// (so that two sections sometimes share a name), of up to four items
    /// each, and the next unused row ID.
    private static func randomSnapshot(
        using random: inout SplitMix64
    ) -> (ListSnapshot<MonItem>, [(id: String, itemIDs: [ObjectID<MonItem>])], Int64) {
        var next: Int64 = 1
        let sections = (0..<Int.random(in: 0...5, using: &random)).map { _ in
            let ids = (0..<Int.random(in: 0...4, using: &random)).map { _ -> ObjectID<MonItem> in
                defer { next += 1 }
                return ObjectID(entityName: "MonItem", rowID: next)
            }
            return (id: "s\(Int.random(in: 0..<4, using: &random))", itemIDs: ids)
        }
        return (ListSnapshot(sections: sections), sections, next)
    }

    /// Every look-up by section identifier answers as the by-index accessors
    /// do for the first section with that identifier, and as an empty
    /// section for an identifier no section has.
    @Test func lookUpsBySectionIDAgreeWithTheByIndexAccessors() {
        var random = SplitMix64.random()
        for round in 0..<100 {
            let (snapshot, sections, _) = Self.randomSnapshot(using: &random)
            let context = "seed \(random.seed), round \(round), \(snapshot)"
            for name in ["s0", "s1", "s2", "s3", "absent", ""] {
                let section = sections.firstIndex { $0.id == name }
                #expect(snapshot.indexOfSection(withID: name) == section, "\(context)")
                guard let section else {
                    #expect(snapshot.itemIDs(inSectionWithID: name).isEmpty, "\(context)")
                    #expect(snapshot.numberOfItems(inSectionWithID: name) == 0, "\(context)")
                    #expect(!snapshot.hasItems(inSectionWithID: name), "\(context)")
                    #expect(snapshot.itemIDs(inSectionWithID: name, atIndices: 0..<3).isEmpty,
                            "\(context)")
                    continue
                }
                #expect(snapshot.sectionIDs[section] == name, "\(context)")
                let ids = snapshot.itemIDs(inSection: section)
                #expect(snapshot.itemIDs(inSectionWithID: name) == ids, "\(context)")
                #expect(Array(ids) == sections[section].itemIDs, "\(context)")
                #expect(snapshot.numberOfItems(inSectionWithID: name)
                    == snapshot.numberOfItems(inSection: section), "\(context)")
                #expect(snapshot.hasItems(inSectionWithID: name)
                    == snapshot.hasItems(inSection: section), "\(context)")
                let wanted = (0..<Int.random(in: 0...6, using: &random)).map { _ in
                    Int.random(in: -1...5, using: &random)
                }
                let expected = wanted.compactMap {
                    snapshot[safeIndexPath: IndexPath(item: $0, section: section)]
                }
                #expect(snapshot.itemIDs(inSectionWithID: name, atIndices: wanted) == expected,
                        "\(context), indices \(wanted)")
            }
        }
    }

    /// A section's item IDs are indexed from 0, as CoreStore's arrays are:
    /// `itemIDs(inSectionWithID: "B")[0]` is the section's first item, not a
    /// trap for every section but the first.
    @Test func aSectionsItemIDsAreIndexedFromZero() {
        var random = SplitMix64.random()
        for round in 0..<100 {
            let (snapshot, sections, _) = Self.randomSnapshot(using: &random)
            let context = "seed \(random.seed), round \(round), \(snapshot)"
            for (section, expected) in sections.enumerated() {
                let first = sections.firstIndex { $0.id == expected.id } == section
                for ids in [snapshot.itemIDs(inSection: section)]
                    + (first ? [snapshot.itemIDs(inSectionWithID: expected.id)] : [])
                {
                    #expect(ids.indices == expected.itemIDs.indices, "\(context), section \(section)")
                    guard ids.indices == expected.itemIDs.indices else { continue }
                    for item in ids.indices {
                        #expect(ids[item] == snapshot[section, item], "\(context), section \(section)")
                    }
                }
            }
        }
    }

    /// The position of an item, and the item at a section and item index,
    /// agree with the flat list and with index paths.
    @Test func itemLookUpsAgreeWithIndexPaths() {
        var random = SplitMix64.random()
        for round in 0..<100 {
            let (snapshot, sections, next) = Self.randomSnapshot(using: &random)
            let context = "seed \(random.seed), round \(round), \(snapshot)"
            for (position, id) in snapshot.enumerated() {
                #expect(snapshot.indexOfItem(withID: id) == position, "\(context)")
                let path = snapshot.indexPath(ofPosition: position)
                #expect(snapshot[path.section, path.item] == id, "\(context)")
            }
            let absent = ObjectID<MonItem>(entityName: "MonItem", rowID: next)
            #expect(snapshot.indexOfItem(withID: absent) == nil, "\(context)")
            for section in -1...(sections.count) {
                for item in -1...5 {
                    let path = IndexPath(item: item, section: section)
                    #expect(snapshot[safeSectionIndex: section, safeItemIndex: item]
                        == snapshot[safeIndexPath: path], "\(context)")
                }
            }
        }
    }

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
