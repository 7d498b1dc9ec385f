import Foundation
@testable import Strata
import Testing

/// A list query carries its sectioning: one `monitorList` (or CoreStore's
/// `monitorSectionedList`), `publishList` and `refetch` for plain and
/// sectioned lists, and the chain in any order.
@MainActor
@Suite("SectionedQuery: the query carries its sections")
struct SectionedQueryTests {
    private func seeded(_ seed: UInt64) throws -> (DataStack, TemporaryDirectory) {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try MonWorkload.seed(stack, count: 40, random: &random)
        return (stack, directory)
    }

    /// Each list as section names and row IDs.
    private func shape(_ monitor: ListMonitor<MonItem>) -> [String] {
        (0..<monitor.numberOfSections()).map { section in
            "\(monitor.sectionNames()[section]): \(monitor.objects(in: section).map(\.rowID))"
        }
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func sectioningFirstOrLastInTheChainGivesTheSameList(seed: UInt64) throws {
        let (stack, directory) = try seeded(seed)
        var random = SplitMix64(seed: seed)
        let threshold = Int(random.next() % 100)
        let name: @Sendable (Int) -> String = { "g\($0)" }
        let last = try stack.monitorList(
            From<MonItem>().where(\.$rank < threshold).orderBy(.descending(\.$rank))
                .orderBy(.ascending(\.$flag)).sectionBy(\.$group, name))
        let first = try stack.monitorList(
            From<MonItem>().sectionBy(\.$group, name).orderBy(.descending(\.$rank))
                .where(\.$rank < threshold).orderBy(.ascending(\.$flag)))
        #expect(shape(first) == shape(last), "seed \(seed)")
        // CoreStore's name for the same monitor.
        let named = try stack.monitorSectionedList(
            From<MonItem>().sectionBy(\.$group, name).where(\.$rank < threshold)
                .orderBy(.descending(\.$rank)).orderBy(.ascending(\.$flag)))
        #expect(shape(named) == shape(last), "seed \(seed)")
        #expect(first.sectionBy != nil && first.query.predicate != nil)
        // The sections follow the key, then the order within: what a fetch sorted that way gives.
        let fetched = try stack.fetchAll(
            From<MonItem>().where(\.$rank < threshold)
                .orderBy(.ascending(\.$group), .descending(\.$rank), .ascending(\.$flag)))
        #expect(first.objectsInAllSections().map(\.rowID) == fetched.map(\.rowID), "seed \(seed)")
        withExtendedLifetime(directory) {}
    }

    @Test
    func refetchTakesEitherKindOfQuery() throws {
        let (stack, directory) = try seeded(21)
        let monitor = try stack.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        #expect(monitor.numberOfSections() == 1 && monitor.sectionBy == nil)
        try monitor.refetch(From<MonItem>().sectionBy(\.$group) { "g\($0)" }.orderBy(.ascending(\.$rank)))
        let groups = Set(try stack.fetchAll(From<MonItem>()).map(\.group))
        #expect(monitor.numberOfSections() == groups.count && monitor.sectionBy != nil)
        try monitor.refetch(From<MonItem>())
        #expect(monitor.numberOfSections() == 1 && monitor.sectionBy == nil)

        let publisher = try stack.publishList(From<MonItem>().sectionBy(\.$group) { "g\($0)" })
        #expect(publisher.snapshot.sectionIDs == groups.sorted().map { "g\($0)" })
        try publisher.refetch(From<MonItem>().where(\.$group == 0))
        #expect(publisher.snapshot.numberOfSections == 1)
        withExtendedLifetime(directory) {}
    }

    @Test
    func aFromIsAListQueryOfOneSection() {
        let query = From<MonItem>().where(\.$rank > 3)
        #expect(query.sectionBy == nil)
        #expect(query.from.predicate != nil)
        let sectioned = query.sectionBy(\.$group)
        #expect(sectioned.sectionBy != nil)
        #expect(sectioned.from.predicate != nil)
    }
}
