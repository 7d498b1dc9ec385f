import Foundation
@testable import Strata
import Testing

/// CoreStore's accessors of a list monitor, held to the list a fetch returns.
@MainActor
@Suite("ListMonitor: reading the list")
struct ListMonitorReadingTests {
    /// Items with random groups and labels, in `kind`'s store.
    private func seeded(_ seed: UInt64, count: Int) throws -> (DataStack, TemporaryDirectory) {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let labels = ["Ann", "avery", "Bob", "", "Dora", "dan", "Émile"]
        try stack.perform(synchronous: { tx in
            for _ in 0..<count {
                let item = tx.create(Into<MonItem>())
                item.group = Int(random.next() % 4)
                item.rank = Int(random.next() % 50)
                item.label = labels[Int(random.next() % UInt64(labels.count))]
            }
        })
        return (stack, directory)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func everyAccessorAgreesWithTheFetchedList(seed: UInt64) throws {
        let (stack, directory) = try seeded(seed, count: Int(seed * 7))
        let queries: [any ListQuery<MonItem>] = [
            From<MonItem>().orderBy(.ascending(\.$rank)),
            From<MonItem>().sectionBy(\.$group) { "g\($0)" }.orderBy(.ascending(\.$rank)),
            // First letters as index titles, so that sections share them ("Ann", "avery").
            From<MonItem>()
                .sectionBy(\.$label, sectionIndexTransformer: { $0?.first.map { $0.uppercased() } })
                .where(\.$rank < 40),
        ]
        for (number, query) in queries.enumerated() {
            let context = "seed \(seed), query \(number)"
            let monitor = try stack.monitorList(query)
            let all = monitor.objectsInAllSections()
            #expect(all.map(\.rowID) == (0..<monitor.numberOfObjects()).map { monitor[$0].rowID }, "\(context)")
            #expect(monitor.hasObjects() == !all.isEmpty, "\(context)")
            #expect(monitor.hasSections() == (monitor.numberOfSections() > 0), "\(context)")
            #expect(monitor.sections().map(\.name) == monitor.sectionNames(), "\(context)")
            #expect(monitor.sections().flatMap(\.objects).map(\.rowID) == all.map(\.rowID), "\(context)")

            // Every object is where index(of:) and indexPath(of:) say.
            for (index, object) in all.enumerated() {
                #expect(monitor.index(of: object) == index, "\(context)")
                let path = try #require(monitor.indexPath(of: object), "\(context)")
                #expect(monitor[path].rowID == object.rowID, "\(context)")
                #expect(monitor[safeIndexPath: path]?.rowID == object.rowID, "\(context)")
                #expect(monitor[safeSectionIndex: path.section, safeItemIndex: path.item]?.rowID == object.rowID)
                // A table view's spelling names the same path (UIKit's, which Strata adds on Linux).
                let rowPath = IndexPath(row: path.item, section: path.section)
                #expect(rowPath == path && rowPath.row == path.item, "\(context)")
                #expect(monitor[rowPath].rowID == object.rowID, "\(context)")
                #expect(monitor[path.section, path.row].rowID == object.rowID, "\(context)")
                #expect(monitor[safeIndex: index]?.rowID == object.rowID, "\(context)")
            }

            // Out of range, the safe forms answer nil and the counts agree.
            let sections = monitor.numberOfSections()
            for section in -1...sections {
                let inRange = (0..<sections).contains(section)
                #expect(monitor.numberOfObjects(safelyIn: section) == (inRange ? monitor.numberOfObjects(in: section) : nil))
                #expect(monitor.sectionInfo(safelyAt: section)?.name == (inRange ? monitor.sectionNames()[section] : nil))
                #expect(monitor.objects(safelyIn: section)?.map(\.rowID) == (inRange ? monitor.objects(in: section).map(\.rowID) : nil))
                #expect(monitor.hasObjects(in: section) == (inRange && monitor.numberOfObjects(in: section) > 0))
                let count = monitor.numberOfObjects(safelyIn: section) ?? 0
                #expect(monitor[safeSectionIndex: section, safeItemIndex: count] == nil, "\(context)")
                #expect(monitor[safeSectionIndex: section, safeItemIndex: -1] == nil, "\(context)")
            }
            #expect(monitor[safeIndex: -1] == nil && monitor[safeIndex: all.count] == nil, "\(context)")

            // Index titles: each once, in section order, and each leads to a
            // section with that title; none without a transformer, as in CoreStore.
            let titles = monitor.sectionIndexTitles()
            #expect(Set(titles).count == titles.count, "\(context)")
            let sectionTitles = monitor.sections().map(\.indexTitle).filter { !$0.isEmpty }
            #expect(titles == sectionTitles.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }, "\(context)")
            for (position, title) in titles.enumerated() {
                let target = monitor.targetSection(forSectionIndexTitle: title, at: position)
                #expect(monitor.sectionInfo(at: target).indexTitle == title, "\(context)")
            }
            #expect(titles.isEmpty == (number < 2), "\(context)")
            let fallback = monitor.targetSection(forSectionIndexTitle: "#", at: 99)
            #expect(fallback == max(sections - 1, 0), "\(context)")
        }
        withExtendedLifetime(directory) {}
    }

    @Test
    func anObjectOutsideTheListHasNoIndex() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            tx.create(Into<MonItem>()).rank = 1
            tx.create(Into<MonItem>()).rank = 2
        })
        let monitor = try stack.monitorList(From<MonItem>().where(\.$rank == 1))
        let outside = try #require(try stack.fetchOne(From<MonItem>().where(\.$rank == 2)))
        #expect(monitor.index(of: outside) == nil)
        #expect(monitor.indexPath(of: outside) == nil)
        #expect(monitor.index(of: monitor[0]) == 0)
    }
}
