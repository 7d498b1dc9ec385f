import Foundation
import Testing

@testable import Strata

/// Monitors and publishers of CoreStore's list form (`monitorList(From<T>(),
/// Where<T>(...), OrderBy<T>(...))`) against those of the chain it spells,
/// and `monitorList(createAsynchronously:...)`.
@MainActor
@Suite("Clause lists: monitors and publishers equal the chain's; asynchronous monitors")
struct ClauseListMonitorTests {
    nonisolated static let seeds: [UInt64] = [0x1157_0001, 0x1157_0002, SplitMix64.random().seed]

    /// Random lists of `Where`, `OrderBy` and `Tweak` clauses: the monitor and
    /// the publisher of each list, in one section and in sections, list the
    /// same objects in the same sections and order as those of its chain,
    /// when made and after a commit that changes a third of the objects.
    @Test(arguments: seeds)
    func aClauseListMonitorListsWhatItsChainLists(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 120)
        var generator = ProbeGenerator(
            random: ProbeRandom(seed: seed ^ 0x40),
            groups: try stack.fetchAll(From<ProbeGroup>()), tags: try stack.fetchAll(From<ProbeTag>()))
        let byFlag = SectionBy<ProbeItem>(\.$flag)
        var pairs: [(ProbeClauseList, [(ListMonitor<ProbeItem>, ListMonitor<ProbeItem>)],
                     [(ListPublisher<ProbeItem>, ListPublisher<ProbeItem>)])] = []
        for _ in 0..<20 {
            let list = generator.clauseList()
            let chain = list.chained(From<ProbeItem>())
            pairs.append((list, [
                (try stack.monitorList(From<ProbeItem>(), list.fetchClauses), try stack.monitorList(chain)),
                (try stack.monitorSectionedList(From<ProbeItem>(), byFlag, list.fetchClauses),
                 try stack.monitorList(chain.sectionBy(byFlag))),
            ], [
                (try stack.publishList(From<ProbeItem>(), list.fetchClauses), try stack.publishList(chain)),
                (try stack.publishList(From<ProbeItem>(), byFlag, list.fetchClauses),
                 try stack.publishList(chain.sectionBy(byFlag))),
            ]))
        }
        let check = { (moment: String) in
            for (list, monitors, publishers) in pairs {
                for (listed, chained) in monitors {
                    let (a, b) = (listed.objectsInAllSections(), chained.objectsInAllSections())
                    #expect(listed.sectionNames() == chained.sectionNames(), "seed \(seed), \(moment): \(list)")
                    #expect(a.map(\.rowID) == b.map(\.rowID), "seed \(seed), \(moment): \(list)")
                }
                for (listed, chained) in publishers {
                    #expect(listed.snapshot == chained.snapshot, "seed \(seed), \(moment): \(list)")
                }
            }
        }
        check("made")
        var random = ProbeRandom(seed: seed ^ 0x77)
        try stack.perform(synchronous: { tx in
            for item in try tx.fetchAll(From<ProbeItem>()) where random.chance(0.33) {
                item.number = random.integer()
                item.flag = random.chance(0.3) ? nil : random.chance(0.5)
            }
            for _ in 0..<5 { tx.create(Into<ProbeItem>()).number = random.integer() }
        })
        check("after a commit")
    }

    /// CoreStore's `monitor.refetch(clauses...)` replaces the predicate,
    /// order and tweak with the clauses given and keeps the sectioning: the
    /// monitor then lists what a new monitor of those clauses lists.
    @Test
    func refetchingWithClausesReplacesTheQueryAndKeepsTheSections() throws {
        let directory = TemporaryDirectory()
        let stack = try Self.tenItems(in: directory)
        let bySection = SectionBy<ProbeItem>(\.$other)
        let monitor = try stack.monitorSectionedList(
            From<ProbeItem>(), bySection, Where<ProbeItem>(\.$number > 8), Tweak { $0.fetchLimit = 1 })
        #expect(monitor.objectsInAllSections().map(\.number) == [9])
        let small = Where<ProbeItem>(\.$number < 6)
        let order = OrderBy<ProbeItem>(.descending(\.$number))
        try monitor.refetch(small, order)
        let expected = try stack.monitorSectionedList(From<ProbeItem>(), bySection, small, order)
        #expect(monitor.sectionNames() == ["0", "1", "2"])
        #expect(monitor.objectsInAllSections() == expected.objectsInAllSections())
        try monitor.refetch([order, Tweak { $0.fetchOffset = 8 }])
        // Sections first (other 0: 9, 6, 3; 1: 10, 7, 4, 1; 2: 8, 5, 2), then the offset.
        #expect(monitor.objectsInAllSections().map(\.number) == [5, 2])
        try monitor.refetch()
        #expect(monitor.numberOfObjects() == 10)
    }

    /// Every form of `monitorList(createAsynchronously:)` and
    /// `monitorSectionedList(createAsynchronously:)` hands its monitor to the
    /// closure after the call returns, in a later main-actor job, with the
    /// objects its query matches; the monitor then follows commits.
    @Test
    func createAsynchronouslyDeliversTheMonitorAfterTheCallReturns() async throws {
        let directory = TemporaryDirectory()
        let stack = try Self.tenItems(in: directory)
        let deliveries = Deliveries()
        let from = From<ProbeItem>()
        let big = Where<ProbeItem>(\.$number > 4)
        let order = OrderBy<ProbeItem>(.descending(\.$number))
        let bySection = SectionBy<ProbeItem>(\.$other)
        let chain = from.where(big).orderBy(order)
        stack.monitorList(createAsynchronously: deliveries.receiver("list chain"), chain)
        stack.monitorList(createAsynchronously: deliveries.receiver("list variadic"), from, big, order)
        stack.monitorList(createAsynchronously: deliveries.receiver("list array"), from, [big, order])
        stack.monitorSectionedList(
            createAsynchronously: deliveries.receiver("sections chain"), chain.sectionBy(bySection))
        stack.monitorSectionedList(
            createAsynchronously: deliveries.receiver("sections variadic"), from, bySection, big, order)
        stack.monitorSectionedList(
            createAsynchronously: deliveries.receiver("sections array"), from, bySection, [big, order])
        #expect(deliveries.monitors.isEmpty)
        deliveries.hasReturned = true

        try await waitUntil { deliveries.monitors.count == 6 }
        #expect(deliveries.early.isEmpty)
        let expected = try stack.fetchAll(chain).map(\.number)
        #expect(expected == [10, 9, 8, 7, 6, 5])
        let sections = try stack.monitorList(chain.sectionBy(bySection))
        for (name, monitor) in deliveries.monitors {
            if name.hasPrefix("list") {
                #expect(monitor.objectsInAllSections().map(\.number) == expected, "\(name)")
                #expect(monitor.sectionBy == nil, "\(name)")
            } else {
                #expect(monitor.sectionNames() == ["0", "1", "2"], "\(name)")
                #expect(monitor.objectsInAllSections() == sections.objectsInAllSections(), "\(name)")
            }
        }
        try stack.perform(synchronous: { tx in tx.create(Into<ProbeItem>()).number = 11 })
        #expect(deliveries.monitors["list variadic"]?.objectsInAllSections().first?.number == 11)
        #expect(deliveries.monitors["sections array"]?.numberOfObjects() == 7)
    }

    /// A first fetch that fails (no store added) is logged at `.error` in
    /// `.observation`, naming the call, and the closure is never called.
    @Test
    func aFailedAsynchronousMonitorIsLoggedAndNotDelivered() async throws {
        let capture = LogCapture()
        defer { capture.stop() }
        let stack = DataStack(probeSchema)
        let deliveries = Deliveries()
        stack.monitorList(
            createAsynchronously: deliveries.receiver("list"), From<ProbeItem>(),
            OrderBy<ProbeItem>(.ascending(\.$number)))
        stack.monitorSectionedList(
            createAsynchronously: deliveries.receiver("sections"), From<ProbeItem>(), SectionBy(\.$other))
        let failures = {
            capture.all.filter {
                $0.level == .error && $0.category == .observation
                    && $0.text.contains("(createAsynchronously:") && $0.text.contains("failed")
            }
        }
        try await waitUntil { failures().count == 2 }
        for _ in 0..<10 { await Task.yield() }
        #expect(deliveries.monitors.isEmpty)
        #expect(failures().map(\.text).sorted().map { $0.prefix(28) } == [
            "monitorList(createAsynchrono", "monitorSectionedList(createA",
        ])
    }

    /// A stack with items numbered 1 to 10, `other` their number modulo 3.
    private static func tenItems(in directory: TemporaryDirectory) throws -> DataStack {
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for number in 1...10 {
                let item = tx.create(Into<ProbeItem>())
                (item.number, item.other) = (number, number % 3)
            }
        })
        return stack
    }
}

/// The monitors handed to `createAsynchronously` closures, by name, and
/// those handed over before the call that asked for them returned.
@MainActor
private final class Deliveries {
    var monitors: [String: ListMonitor<ProbeItem>] = [:]
    var hasReturned = false
    var early: [String] = []

    func receiver(_ name: String) -> @MainActor (ListMonitor<ProbeItem>) -> Void {
        { monitor in
            if !self.hasReturned { self.early.append(name) }
            self.monitors[name] = monitor
        }
    }
}
