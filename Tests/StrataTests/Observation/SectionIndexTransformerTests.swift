import Foundation
@testable import Strata
import Testing

/// CoreStore's `SectionBy(_:sectionIndexTransformer:)`: the law is that each
/// section's index title is what the transformer gives its name (none for
/// `nil` or "", and none at all without a transformer, as in CoreStore), and
/// that the monitor, its sections' infos and a publisher's snapshots answer
/// the same section index, through random commits.
@MainActor
@Suite("SectionBy's sectionIndexTransformer titles the section index")
struct SectionIndexTransformerTests {
    typealias Transformer = @Sendable (String?) -> String?

    /// Transformers that share titles between sections, leave some out,
    /// leave all out (""), and show a `nil` name if one were ever passed.
    nonisolated static let transformers: [(String, Transformer)] = [
        ("length mod 3", { $0.map { "#\($0.count % 3)" } }),
        ("nil for names ending in 1", { $0?.hasSuffix("1") == true ? nil : $0?.uppercased() }),
        ("always empty", { _ in "" }),
        ("reversed, NIL for nil", { $0.map { String($0.reversed()) } ?? "NIL" }),
    ]

    /// Every form a transformer is given in: `SectionBy` by key path (with
    /// and without a name closure), by name, by a path, and `From.sectionBy`.
    static func queries(_ transform: @escaping Transformer) -> [(String, SectionedQuery<MonItem>)] {
        let order = OrderBy<MonItem>(.ascending(\.$rank))
        return [
            ("key path", From<MonItem>().sectionBy(SectionBy(\.$group, sectionIndexTransformer: transform))),
            ("key path, named", From<MonItem>().sectionBy(
                SectionBy(\.$group, { "g\($0)" }, sectionIndexTransformer: transform))),
            ("name", From<MonItem>().sectionBy(SectionBy("label", sectionIndexTransformer: transform))),
            ("path", From<MonItem>().sectionBy(SectionBy(\.$owner ~ \.$name, sectionIndexTransformer: transform))),
            ("From, key path", From<MonItem>().sectionBy(\.$label, sectionIndexTransformer: transform)),
            ("From, name", From<MonItem>().sectionBy("group", sectionIndexTransformer: transform)),
        ].map { ($0.0, $0.1.orderBy(order)) }
    }

    /// The same forms without a transformer, and a list not sectioned at all.
    static func untitledQueries() -> [(String, any ListQuery<MonItem>)] {
        let order = OrderBy<MonItem>(.ascending(\.$rank))
        return [
            ("unsectioned", From<MonItem>().orderBy(order)),
            ("key path", From<MonItem>().sectionBy(SectionBy(\.$group)).orderBy(order)),
            ("key path, named", From<MonItem>().sectionBy(\.$group) { "g\($0)" }.orderBy(order)),
            ("name", From<MonItem>().sectionBy(SectionBy("label")).orderBy(order)),
            ("path", From<MonItem>().sectionBy(SectionBy(\.$owner ~ \.$name)).orderBy(order)),
            ("From, key path", From<MonItem>().sectionBy(\.$label).orderBy(order)),
            ("From, name", From<MonItem>().sectionBy("group").orderBy(order)),
        ]
    }

    nonisolated static let cases: [(StoreKind, UInt64)] =
        StoreKind.allCases.map { ($0, 0x5EC7_1D01) } + [(.inMemory, SplitMix64.random().seed)]

    /// CoreStore's `SectionByTests`: a `SectionBy` names its key path, and
    /// its `sectionIndexTransformer` answers `nil` unless one is given, else
    /// what the given closure answers (`nil` for `nil` here), in every form
    /// of `SectionBy` and of `From.sectionBy`.
    @Test
    func sectionByConfiguresAsCoreStoresDoes() {
        let suffix: Transformer = { $0.flatMap { "\($0):suffix" } }
        let untitled: [(String, SectionBy<MonItem>)] = [
            ("label", SectionBy("label")),
            ("label", SectionBy(\.$label)),
            ("group", SectionBy(\.$group) { "g\($0)" }),
            ("owner.name", SectionBy(\.$owner ~ \.$name)),
            ("label", From<MonItem>().sectionBy("label").sections),
            ("group", From<MonItem>().sectionBy(\.$group).sections),
        ]
        for (keyPath, sectionBy) in untitled {
            #expect(sectionBy.sectionKeyPath == keyPath)
            #expect(sectionBy.sectionIndexTransformer("key") == nil, "\(keyPath)")
            #expect(sectionBy.sectionIndexTransformer(nil) == nil, "\(keyPath)")
        }
        let titled: [(String, SectionBy<MonItem>)] = [
            ("label", SectionBy("label", sectionIndexTransformer: suffix)),
            ("label", SectionBy(\.$label, sectionIndexTransformer: suffix)),
            ("group", SectionBy(\.$group, { "g\($0)" }, sectionIndexTransformer: suffix)),
            ("owner.name", SectionBy(\.$owner ~ \.$name, sectionIndexTransformer: suffix)),
            ("label", From<MonItem>().sectionBy("label", sectionIndexTransformer: suffix).sections),
            ("group", From<MonItem>().sectionBy(\.$group, sectionIndexTransformer: suffix).sections),
        ]
        for (keyPath, sectionBy) in titled {
            #expect(sectionBy.sectionKeyPath == keyPath)
            #expect(sectionBy.sectionIndexTransformer("key") == "key:suffix", "\(keyPath)")
            #expect(sectionBy.sectionIndexTransformer(nil) == nil, "\(keyPath)")
        }
        // CoreStore's own test names the key "key", which no field of the
        // model is: the sectioning is invalid (a monitor made with it
        // throws), but it still answers the name it was given.
        let unknown = SectionBy<MonItem>("key")
        #expect(unknown.sectionKeyPath == "key")
        #expect(unknown.problem != nil)
        #expect(unknown.sectionIndexTransformer("key") == nil)
        // The transformer is the closure given: its "" is kept, and only
        // the section index leaves such a section out.
        let empty = SectionBy<MonItem>(\.$group, sectionIndexTransformer: { _ in "" })
        #expect(empty.sectionIndexTransformer("1") == "")
    }

    /// Random items, each transformer in each form: the titles are the
    /// transformer's, on the monitor, its section infos and the publisher's
    /// snapshot, and each index entry leads to the first section with its
    /// title; after each of a few random commits too.
    @Test(arguments: cases)
    func titlesAreTheTransformersThroughRandomCommits(kind: StoreKind, seed: UInt64) throws {
        typealias Form = (String, any ListQuery<MonItem>, Transformer)
        let lists = Self.transformers.flatMap { transformName, transform in
            Self.queries(transform).map { form, query -> Form in
                ("\(form), \(transformName)", query, transform)
            }
        }
        try Self.checkThroughRandomCommits(kind: kind, seed: seed, lists)
    }

    /// Random items, each form without a transformer and an unsectioned
    /// list: no section has an index title (every info's `indexTitle` is
    /// "", the snapshot's `sectionIndexTitle(for:)` is `nil`), the index is
    /// `[]` on the monitor and the snapshot, and any title leads to the last
    /// section; after each of a few random commits too.
    @Test(arguments: cases)
    func withoutATransformerNoSectionHasAnIndexTitle(kind: StoreKind, seed: UInt64) throws {
        let none: Transformer = { _ in nil }
        let lists = Self.untitledQueries().map { ($0.0, $0.1, none) }
        try Self.checkThroughRandomCommits(kind: kind, seed: seed, lists) { monitor, snapshot in
            let infos = monitor.sections().map(\.indexTitle)
            return [
                monitor.sectionIndexTitles() == [] ? nil : "monitor \(monitor.sectionIndexTitles())",
                snapshot.sectionIndexTitles() == [] ? nil : "snapshot \(snapshot.sectionIndexTitles())",
                infos.allSatisfy { $0 == "" } ? nil : "infos \(infos)",
            ].compactMap { $0 }
        }
    }

    /// Makes a monitor and a publisher of each list's query over `seed`'s
    /// random items, and holds them to `disagreements` with the list's
    /// transformer, and to `also`, before and after each of four random commits.
    static func checkThroughRandomCommits(
        kind: StoreKind, seed: UInt64, _ forms: [(String, any ListQuery<MonItem>, Transformer)],
        also: (ListMonitor<MonItem>, ListSnapshot<MonItem>) -> [String] = { _, _ in [] }
    ) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try MonWorkload.seed(stack, count: 40, random: &random)
        var lists: [(String, ListMonitor<MonItem>, ListPublisher<MonItem>, Transformer)] = []
        for (name, query, transform) in forms {
            lists.append((name, try stack.monitorList(query), try stack.publishList(query), transform))
        }
        var failures: [String] = []
        for round in 0...4 {
            if round > 0 { try stack.perform(synchronous: { tx in try randomCommit(tx, &random) }) }
            for (name, monitor, publisher, transform) in lists {
                let snapshot = publisher.snapshot
                failures += (disagreements(monitor, snapshot, transform) + also(monitor, snapshot))
                    .map { "seed \(seed), round \(round), \(name): \($0)" }
            }
        }
        for failure in failures.prefix(5) { Issue.record("\(failure)") }
        #expect(failures.count == 0)
    }

    /// How `monitor` and `snapshot` differ from the section index `transform` makes of the names.
    static func disagreements(
        _ monitor: ListMonitor<MonItem>, _ snapshot: ListSnapshot<MonItem>, _ transform: Transformer
    ) -> [String] {
        let names = monitor.sectionNames()
        let titles = names.map { transform($0).flatMap { $0.isEmpty ? nil : $0 } }
        var index: [String] = []
        for case let title? in titles where !index.contains(title) { index.append(title) }
        var failures: [String] = []
        func check(_ holds: Bool, _ what: @autoclosure () -> String) {
            if !holds { failures.append(what()) }
        }
        check(monitor.sections().map(\.indexTitle) == titles.map { $0 ?? "" }, "infos \(monitor.sections().map(\.indexTitle)), names \(names)")
        check(monitor.sectionIndexTitles() == index, "monitor \(monitor.sectionIndexTitles()) != \(index)")
        check(snapshot.sectionIDs == names, "snapshot sections \(snapshot.sectionIDs) != \(names)")
        check(snapshot.sectionIndexTitles() == index, "snapshot \(snapshot.sectionIndexTitles()) != \(index)")
        check(names.indices.map(snapshot.sectionIndexTitle(for:)) == titles, "snapshot titles, names \(names)")
        check(snapshot.sectionIndexTitle(for: names.count) == nil && snapshot.sectionIndexTitle(for: -1) == nil, "outside")
        for (position, title) in index.enumerated() {
            let first = titles.firstIndex(of: title)
            check(monitor.targetSection(forSectionIndexTitle: title, at: position) == first, "monitor target of \(title)")
            check(snapshot.targetSection(forSectionIndexTitle: title, at: position) == first, "snapshot target of \(title)")
        }
        // A title no section has leads to the section of the entry at its
        // position, past the index's end to the last section (0 for none).
        let absent = "\u{1}absent"
        for position in 0...index.count {
            let expected = position < index.count
                ? titles.firstIndex(of: index[position]) : max(names.count - 1, 0)
            let monitorTarget = monitor.targetSection(forSectionIndexTitle: absent, at: position)
            let snapshotTarget = snapshot.targetSection(forSectionIndexTitle: absent, at: position)
            check(monitorTarget == expected, "monitor target at \(position): \(monitorTarget)")
            check(snapshotTarget == expected, "snapshot target at \(position): \(snapshotTarget)")
        }
        return failures
    }

    /// CoreStore's shape: a transformer's `nil` leaves a section out of the
    /// index (its info's title is ""), and a title no section has leads to
    /// the section of the entry at its position. A trailing closure is
    /// still the section name, and titles nothing.
    @Test(arguments: StoreKind.allCases)
    func aNilTitleLeavesTheSectionOutOfTheIndex(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for group in [2, 0, 1, 2] { tx.create(Into<MonItem>()).group = group }
        })
        let titled = SectionBy<MonItem>(\.$group, sectionIndexTransformer: { $0 == "1" ? nil : $0.map { "G" + $0 } })
        let monitor = try stack.monitorSectionedList(From<MonItem>(), titled)
        #expect(monitor.sectionNames() == ["0", "1", "2"])
        #expect(monitor.sectionIndexTitles() == ["G0", "G2"])
        #expect(monitor.sections().map(\.indexTitle) == ["G0", "", "G2"])
        #expect(monitor.targetSection(forSectionIndexTitle: "G2", at: 1) == 2)
        #expect(monitor.targetSection(forSectionIndexTitle: "X", at: 1) == 2)
        let snapshot = try stack.publishList(From<MonItem>().sectionBy(titled)).snapshot
        #expect((0..<3).map(snapshot.sectionIndexTitle(for:)) == ["G0", nil, "G2"])

        let named = try stack.monitorList(From<MonItem>().sectionBy(\.$group) { "g\($0)" })
        #expect(named.sectionNames() == ["g0", "g1", "g2"])
        #expect(named.sectionIndexTitles() == [])
        #expect(named.sections().map(\.indexTitle) == ["", "", ""])
        let byName = try stack.monitorSectionedList(From<MonItem>(), SectionBy<MonItem>("group"))
        #expect(byName.sectionIndexTitles() == [])
        #expect(byName.targetSection(forSectionIndexTitle: "0", at: 0) == 2)
    }

    /// A publisher's snapshot keeps its SectionBy's titles through edits (an
    /// added section is titled by the transformer too), a snapshot made by
    /// hand has no titles, and equality leaves titles out.
    @Test
    func anEditedSnapshotKeepsItsSectionBysTitles() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        let ids = try stack.perform(synchronous: { tx in
            (0..<3).map { group -> ObjectID<MonItem> in
                let item = tx.create(Into<MonItem>())
                item.group = group
                return item.objectID
            }
        })
        let query = From<MonItem>().sectionBy(\.$group, sectionIndexTransformer: { $0.map { "<\($0)>" } })
        var snapshot = try stack.publishList(query).snapshot
        #expect(snapshot.sectionIndexTitles() == ["<0>", "<1>", "<2>"])
        snapshot.appendSections(withIDs: ["zebra"])
        snapshot.deleteSections(withIDs: ["1"])
        #expect(snapshot.sectionIndexTitles() == ["<0>", "<2>", "<zebra>"])
        let byHand = ListSnapshot(sections: [("0", [ids[0]]), ("2", [ids[2]]), ("zebra", [])])
        #expect(byHand.sectionIndexTitles() == [])
        #expect(byHand.sectionIndexTitle(for: 0) == nil)
        #expect(byHand == snapshot)
        var untitled = try stack.publishList(From<MonItem>().sectionBy(\.$group)).snapshot
        untitled.appendSections(withIDs: ["zebra"])
        #expect(untitled.sectionIndexTitles() == [])
    }
}
