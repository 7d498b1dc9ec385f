import Foundation
@testable import Strata
import Testing

final class MonItem: ManagedObject {
    @Field.Stored("group") var group: Int = 0
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("label") var label: String? = nil
    @Field.Stored("flag") var flag: Bool = false
    @Field.Relationship("owner") var owner: MonOwner?
    @Field.Relationship("buddy") var buddy: MonItem?
}

final class MonOwner: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("items", inverse: \MonItem.$owner, deleteRule: .cascade)
    var items: Set<MonItem>
}

let monitorSchema = Schema("M1", entities: [Entity<MonItem>("MonItem"), Entity<MonOwner>("MonOwner")])

/// Records a monitor's callbacks as one batch of ``ListChanges``.
@MainActor
final class RecordingObserver: ListSectionObserver {
    typealias ListEntityType = MonItem
    var changes = ListChanges()
    var updated: Set<Int64> = []
    var willChangeCount = 0
    var didChangeCount = 0
    var refetched = false
    var events: [String] = []
    /// The row IDs each inserted or deleted section's info held, by section index.
    var insertedSectionRows: [Int: [Int64]] = [:]
    var deletedSectionRows: [Int: [Int64]] = [:]

    func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) {
        willChangeCount += 1
        events.append("willChange")
    }
    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) {
        didChangeCount += 1
        events.append("didChange")
    }
    func listMonitorDidRefetch(_ monitor: ListMonitor<MonItem>) {
        refetched = true
    }
    func listMonitor(_ monitor: ListMonitor<MonItem>, didInsertObject object: MonItem, toIndexPath indexPath: IndexPath) {
        changes.inserts.append(indexPath)
        events.append("insert \(indexPath.section).\(indexPath.item)")
    }
    func listMonitor(_ monitor: ListMonitor<MonItem>, didDeleteObject object: MonItem, fromIndexPath indexPath: IndexPath) {
        changes.deletes.append(indexPath)
        events.append("delete \(indexPath.section).\(indexPath.item)")
    }
    func listMonitor(_ monitor: ListMonitor<MonItem>, didUpdateObject object: MonItem, atIndexPath indexPath: IndexPath) {
        changes.updates.append(indexPath)
        events.append("update \(indexPath.section).\(indexPath.item)")
    }
    func listMonitor(_ monitor: ListMonitor<MonItem>, didMoveObject object: MonItem, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        changes.moves.append(ListChanges.Move(from: fromIndexPath, to: toIndexPath))
        events.append("move \(fromIndexPath.section).\(fromIndexPath.item)->\(toIndexPath.section).\(toIndexPath.item)")
    }
    func listMonitor(_ monitor: ListMonitor<MonItem>, didInsertSection sectionInfo: ListSectionInfo<MonItem>, toSectionIndex sectionIndex: Int) {
        changes.insertedSections.append(sectionIndex)
        insertedSectionRows[sectionIndex] = sectionInfo.objects.map(\.rowID)
        events.append("insertSection \(sectionIndex)")
    }
    func listMonitor(_ monitor: ListMonitor<MonItem>, didDeleteSection sectionInfo: ListSectionInfo<MonItem>, fromSectionIndex sectionIndex: Int) {
        changes.deletedSections.append(sectionIndex)
        deletedSectionRows[sectionIndex] = sectionInfo.objects.map(\.rowID)
        events.append("deleteSection \(sectionIndex)")
    }

    func reset() {
        changes = ListChanges()
        refetched = false
        events = []
        insertedSectionRows = [:]
        deletedSectionRows = [:]
    }
}

@MainActor
@Suite("ListMonitor: applying the emitted changes gives a fresh fetch")
struct ListMonitorModelTests {
    struct Shape: CustomStringConvertible {
        var predicate: Where<MonItem>?
        var predicateText: String
        var order: [OrderBy<MonItem>.SortKey]
        var orderText: String
        var sectioning: Sectioning
        var description: String { "where \(predicateText), order \(orderText), sections \(sectioning)" }
    }

    /// How a list is sectioned: by group (names follow the key), or by rank
    /// with names that repeat ("r0", "r1", "r2" for rank modulo 3), so that
    /// commits split and join sections of the same name.
    enum Sectioning: CaseIterable {
        case none, byGroup, byRankModulo3

        var sectionBy: SectionBy<MonItem>? {
            switch self {
            case .none: return nil
            case .byGroup: return SectionBy(\.$group) { "g\($0)" }
            case .byRankModulo3: return SectionBy(\.$rank) { "r\($0 % 3)" }
            }
        }

        func name(of item: MonItem) -> String {
            switch self {
            case .none: return ""
            case .byGroup: return "g\(item.group)"
            case .byRankModulo3: return "r\(item.rank % 3)"
            }
        }
    }

    static func randomShape(_ random: inout SplitMix64) -> Shape {
        let predicates: [(Where<MonItem>?, String)] = [
            (nil, "none"), (Where(\.$flag == true), "flag"), (Where(\.$rank > 40), "rank > 40"),
            (Where(\.$label != nil), "label != nil"), (Where(\.$rank < 70) && \.$flag == false, "rank < 70 && !flag"),
            (Where(\.$label, .hasPrefix("b", .caseInsensitive)), "label hasPrefix b"),
            (\.$owner ~ \.$name == "o1", "owner.name == o1"),
            (Where(\.$owner != nil) && \.$rank > 20, "owner != nil && rank > 20"),
        ]
        let orders: [([OrderBy<MonItem>.SortKey], String)] = [
            ([], "rowID"), ([.ascending(\.$rank)], "rank asc"), ([.descending(\.$rank)], "rank desc"),
            ([.ascending(\.$label, .caseInsensitive), .descending(\.$rank)], "label ci, rank desc"),
            ([.ascending(\.$owner ~ \.$name), .ascending(\.$rank)], "owner.name, rank"),
        ]
        let predicate = predicates[Int(random.next() % UInt64(predicates.count))]
        let order = orders[Int(random.next() % UInt64(orders.count))]
        return Shape(predicate: predicate.0, predicateText: predicate.1, order: order.0, orderText: order.1,
                     sectioning: Sectioning.allCases[Int(random.next() % 3)])
    }

    /// Sections as name and items: repeated names carry an occurrence
    /// number in their identifier, which inserting a section before them shifts.
    static func plain(_ list: SectionedList<Int64>) -> [String] {
        list.sections.map { "\($0.identifier.prefix { $0 != "\u{0}" }): \($0.items)" }
    }

    nonisolated static let labels: [String?] = [nil, "alpha", "Beta", "beta", "gamma", "Émile", "b", ""]

    nonisolated static func randomize(_ item: MonItem, _ random: inout SplitMix64) {
        switch random.next() % 4 {
        case 0: item.rank = Int(random.next() % 100)
        case 1: item.group = Int(random.next() % 5)
        case 2: item.flag.toggle()
        default: item.label = labels[Int(random.next() % UInt64(labels.count))]
        }
    }

    /// Ten seeds on a SQLite file, the first three (chunked and not) on PostgreSQL.
    nonisolated static let modelCases: [(StoreKind, UInt64)] =
        (1...10).map { (StoreKind.file, UInt64($0)) } + StoreKind.enabled([.postgreSQL]).flatMap { kind in
            (1...3).map { (kind, UInt64($0)) }
        }

    @Test(arguments: modelCases)
    func randomCommitsKeepEveryMonitorExact(kind: StoreKind, seed: UInt64) throws {
        try checkMonitors(kind: kind, seed: seed, items: 60, commits: 120) { tx, commit, random in
            let operations = Int(random.next() % (commit % 10 == 0 ? 40 : 4)) + 1
            try MonWorkload.change(tx, &random, operations: operations, cascades: commit % 15 == 0)
        }
    }

    /// Commits that change 64 members and more of lists of hundreds, without
    /// the owner renames that make a list read through a relationship
    /// re-fetch: the monitor finds such a batch's old positions by walking
    /// the list, not by searching.
    @Test(arguments: [UInt64(31), 32, 33])
    func largeCommitsKeepEveryMonitorExact(seed: UInt64) throws {
        try checkMonitors(kind: .file, seed: seed, items: 1_200, commits: 12) { tx, _, random in
            let items = try tx.fetchAll(From<MonItem>())
            for _ in 0..<(100 + Int(random.next() % 150)) {
                let item = items[Int(random.next() % UInt64(items.count))]
                switch random.next() % 10 {
                case 0 where !item.isDeletedObject: tx.delete(item)
                case 1: Self.randomize(tx.create(Into<MonItem>()), &random)
                default: if !item.isDeletedObject { Self.randomize(item, &random) }
                }
            }
        }
    }

    /// Random commits made by `change` on `items` items, under four
    /// monitors of random shapes: after each, the batch each monitor
    /// reported turns its old list into its new one, and the new one is what
    /// a fresh fetch returns.
    func checkMonitors(
        kind: StoreKind, seed: UInt64, items: Int, commits: Int,
        change: (BaseDataTransaction, Int, inout SplitMix64) throws -> Void
    ) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try MonWorkload.seed(stack, count: items, random: &random)
        let shapes = (0..<4).map { _ in Self.randomShape(&random) }
        var monitors: [(ListMonitor<MonItem>, RecordingObserver, Shape)] = []
        for shape in shapes {
            var query = From<MonItem>().orderBy(OrderBy(shape.order))
            if let predicate = shape.predicate { query = query.where(predicate) }
            // Odd seeds keep the list in chunks of 3, so that every commit
            // crosses chunk boundaries; even seeds use the default size.
            let monitor = try ListMonitor(
                main: stack.main(), query: query,
                sectionBy: shape.sectioning.sectionBy,
                chunkCapacity: seed % 2 == 1 ? 3 : ListMembers.defaultChunkCapacity)
            let observer = RecordingObserver()
            monitor.addObserver(observer)
            monitors.append((monitor, observer, shape))
        }
        for commit in 0..<commits {
            let before = monitors.map { $0.0.sectionedRowIDs() }
            for (_, observer, _) in monitors { observer.reset() }
            try stack.perform(synchronous: { tx in try change(tx, commit, &random) })
            for (index, (monitor, observer, shape)) in monitors.enumerated() {
                let context = "\(kind), seed \(seed), commit \(commit), monitor \(index): \(shape)"
                monitor.members.checkInvariants()
                let now = monitor.sectionedRowIDs()
                // Applying the emitted batch to the previous list gives the new
                // one, unless the monitor told its observers to reload.
                if !observer.refetched {
                    let applied = try? observer.changes.apply(to: before[index], insertingFrom: now)
                    #expect(applied.map(Self.plain) == Self.plain(now), "\(context)\nevents: \(observer.events)")
                    // A deleted section's info holds what it had; an inserted one's, what it has.
                    for (section, rows) in observer.deletedSectionRows {
                        #expect(rows == before[index].sections[section].items, "\(context): deleted section \(section)")
                    }
                    for (section, rows) in observer.insertedSectionRows {
                        #expect(rows == now.sections[section].items, "\(context): inserted section \(section)")
                    }
                }
                #expect(observer.willChangeCount == observer.didChangeCount, "\(context)")
                // The new one is what a fresh fetch returns.
                var query = From<MonItem>().orderBy(monitor.orderForFetch)
                if let predicate = shape.predicate { query = query.where(predicate) }
                let fresh = try stack.fetchAll(query)
                #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), "\(context)")
                if shape.sectioning != .none {
                    var runs: [String] = []
                    for name in fresh.map(shape.sectioning.name) where runs.last != name { runs.append(name) }
                    #expect(monitor.sectionNames() == runs, "\(context)")
                }
            }
        }
    }

    @Test
    func aCommitThatChangesNothingShownSendsNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            tx.create(Into<MonItem>()).flag = true
            tx.create(Into<MonItem>()).flag = false
        })
        let monitor = try stack.monitorList(From<MonItem>().where(\.$flag == true))
        let observer = RecordingObserver()
        monitor.addObserver(observer)
        try stack.perform(synchronous: { tx in
            let hidden = try #require(try tx.fetchOne(From<MonItem>().where(\.$flag == false)))
            hidden.rank = 5
        })
        #expect(observer.events.isEmpty)
        #expect(monitor.numberOfObjects() == 1)
    }

    @Test
    func aDeleteBetweenTwoSectionsOfOneNameJoinsThem() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            [1, 2, 3].map { rank -> ObjectID<MonItem> in
                let item = tx.create(Into<MonItem>())
                item.rank = rank
                return item.objectID
            }
        })
        let query = From<MonItem>().orderBy(.ascending(\.$rank)).sectionBy(\.$rank) { $0 % 2 == 0 ? "even" : "odd" }
        let monitor = try stack.monitorList(query)
        let observer = RecordingObserver()
        monitor.addObserver(observer)
        #expect(monitor.sectionNames() == ["odd", "even", "odd"])
        try stack.perform(synchronous: { tx in tx.delete(ids[1]) })
        #expect(monitor.sectionNames() == ["odd"])
        #expect(monitor.numberOfObjects(in: 0) == 2)
        #expect(observer.refetched, "joining sections is announced as a refetch: \(observer.events)")
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 5 })
        #expect(monitor.sectionNames() == ["odd"])
        #expect(monitor.numberOfObjects(in: 0) == 3)
    }

    @Test
    func textsEqualInSwiftButNotInBytesKeepTheirOwnSectionNames() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        // "é" composed and decomposed: equal Strings, different bytes, so they sort apart.
        try stack.perform(synchronous: { tx in
            for label in ["e\u{301}", "f", "\u{e9}"] { tx.create(Into<MonItem>()).label = label }
        })
        let firstScalar: @Sendable (String?) -> String = { label in
            label?.unicodeScalars.first.map { String($0) } ?? ""
        }
        let monitor = try stack.monitorList(From<MonItem>().sectionBy(\.$label, firstScalar))
        let expected = try stack.fetchAll(From<MonItem>().orderBy(.ascending(\.$label))).map { firstScalar($0.label) }
        #expect(monitor.sectionNames().map { Array($0.unicodeScalars) } == expected.map { Array($0.unicodeScalars) })
    }

    /// Lists with a fetch limit or offset (Rule 4: they re-fetch and diff,
    /// since what slides into the window depends on objects outside it),
    /// sectioned or not, under random commits: the batch applied to the old
    /// list gives the new one, which is what a fresh fetch returns.
    @Test(arguments: [UInt64(21), 22, 23, 24])
    func randomCommitsKeepLimitedAndOffsetListsExact(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try MonWorkload.seed(stack, count: 30, random: &random)
        let windows: [(limit: Int?, offset: Int, sectioning: Sectioning)] = [
            (7, 0, .none), (7, 3, .none), (nil, 5, .none), (6, 2, .byGroup), (8, 1, .byRankModulo3),
        ]
        var monitors: [(ListMonitor<MonItem>, RecordingObserver, From<MonItem>, String)] = []
        for window in windows {
            let query = From<MonItem>().where(\.$flag == true).orderBy(.ascending(\.$rank))
                .tweak { $0.fetchLimit = window.limit; $0.fetchOffset = window.offset }
            let monitor = try ListMonitor(main: stack.main(), query: query, sectionBy: window.sectioning.sectionBy)
            let observer = RecordingObserver()
            monitor.addObserver(observer)
            monitors.append((monitor, observer, query, "\(window)"))
        }
        for commit in 0..<60 {
            let before = monitors.map { $0.0.sectionedRowIDs() }
            for (_, observer, _, _) in monitors { observer.reset() }
            try stack.perform(synchronous: { tx in
                try MonWorkload.change(tx, &random, operations: Int(random.next() % 4) + 1, cascades: commit % 15 == 0)
            })
            for (index, (monitor, observer, query, window)) in monitors.enumerated() {
                let context = "seed \(seed), commit \(commit), window \(window)"
                let now = monitor.sectionedRowIDs()
                if !observer.refetched {
                    let applied = try? observer.changes.apply(to: before[index], insertingFrom: now)
                    #expect(applied.map(Self.plain) == Self.plain(now), "\(context)\nevents: \(observer.events)")
                }
                #expect(observer.willChangeCount == observer.didChangeCount, "\(context)")
                let fresh = try stack.fetchAll(query.ordered(by: monitor.orderForFetch))
                #expect(monitor.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), "\(context)")
            }
        }
    }
}
