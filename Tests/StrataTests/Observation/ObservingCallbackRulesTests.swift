import Foundation
import Testing

@testable import Strata

/// Rule 3 of Docs/Observing.md, checked on the callbacks themselves (not
/// only on the list they produce) over random commits and list shapes, on
/// both the in-memory path and the re-fetch path (a window, a sort through
/// a relationship).
@MainActor
@Suite("Observing.md Rule 3: the callbacks of a batch, one by one")
struct ObservingCallbackRulesTests {
    struct Shape: CustomStringConvertible {
        var description: String
        var query: any ListQuery<MonItem>
        /// The fields (and owner's name) the list orders by, section key first.
        var key: (ItemValues, [Int64: String]) -> [String]
        /// Whether it reads through a relationship (a rename moves members that did not change).
        var readsRelationship = false
        /// Whether section names repeat (a split or join is announced as a refetch).
        var repeatsNames = false
    }

    /// Built for each test, not kept in a static: a predicate's indirect case keeps its box
    /// pointer with an enum tag in its top bits, which the address sanitizer's leak checker
    /// does not recognise, so a predicate alive at exit reads as leaked.
    static var shapes: [Shape] { [
        Shape(
            description: "rank asc", query: From<MonItem>().orderBy(.ascending(\.$rank)),
            key: { v, _ in ["\(v.rank)"] }),
        Shape(
            description: "flag, by group, rank desc",
            query: From<MonItem>().where(\.$flag == true).orderBy(.descending(\.$rank))
                .sectionBy(SectionBy(\.$group) { "g\($0)" }),
            key: { v, _ in ["\(v.group)", "\(v.rank)"] }),
        Shape(
            description: "label != nil, by group / 2, label",
            query: From<MonItem>().where(\.$label != nil).orderBy(.ascending(\.$label))
                .sectionBy(SectionBy(\.$group) { "g\($0 / 2)" }),
            key: { v, _ in ["\(v.group)", v.label.map { "text " + $0 } ?? "null"] }),
        Shape(
            description: "rank < 60, limit 9 offset 2, by group",
            query: From<MonItem>().where(\.$rank < 60).orderBy(.ascending(\.$rank))
                .tweak {
                    $0.fetchLimit = 9; $0.fetchOffset = 2
                }
                .sectionBy(SectionBy(\.$group) { "g\($0)" }),
            key: { v, _ in ["\(v.group)", "\(v.rank)"] }),
        Shape(
            description: "owner.name, rank",
            query: From<MonItem>().orderBy(.ascending(\.$owner ~ \.$name), .ascending(\.$rank)),
            key: { v, owners in [v.owner.flatMap { owners[$0] } ?? "", "\(v.rank)"] },
            readsRelationship: true),
        // CoreStore's dotted spelling, through a relationship; no owner is the section "".
        Shape(
            description: "by owner.name, rank desc",
            query: From<MonItem>().orderBy(.descending(\.$rank)).sectionBy("owner.name"),
            key: { v, owners in [v.owner.flatMap { owners[$0] } ?? "null", "\(v.rank)"] },
            readsRelationship: true),
        Shape(
            description: "by rank % 3, label",
            query: From<MonItem>().orderBy(.ascending(\.$label))
                .sectionBy(SectionBy(\.$rank) { "r\($0 % 3)" }),
            key: { v, _ in ["\(v.rank)", v.label.map { "text " + $0 } ?? "null"] },
            repeatsNames: true),
    ] }

    init() {}

    /// Seeds whose commits this stack makes, and seeds whose commits a
    /// second stack on the same file makes (Rule 10: read from the commit
    /// log, merged when this stack next reads, with the same callbacks).
    nonisolated static let cases: [(seed: UInt64, foreign: Bool)] =
        [101, 102, 103, 104].map { ($0, false) } + [105, 106, 107].map { ($0, true) }

    @Test(arguments: cases)
    func everyCallbackFollowsRule3(seed: UInt64, foreign: Bool) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        let writer = foreign ? try makeStack(monitorSchema, .file, in: directory) : stack
        try MonWorkload.seed(writer, count: 40, random: &random)
        let log = StrictObserver.EventLog()
        var monitors: [(ListMonitor<MonItem>, [StrictObserver], Shape)] = []
        for (index, shape) in Self.shapes.enumerated() {
            let monitor = try stack.monitorList(shape.query)
            // Two observers of each monitor, to check how their callbacks interleave.
            let observers = [
                StrictObserver("\(index)a", log: log), StrictObserver("\(index)b", log: log),
            ]
            for observer in observers { monitor.addObserver(observer) }
            monitors.append((monitor, observers, shape))
        }
        for commit in 0..<80 {
            let valuesBefore = try Self.values(in: stack)
            let before = monitors.map { $0.0.sectionedRowIDs() }
            log.entries = []
            try writer.perform(synchronous: { tx in try randomCommit(tx, &random) })
            // Another stack's commit merges here, as this read catches up.
            let valuesAfter = try Self.values(in: stack)
            for (index, (monitor, observers, shape)) in monitors.enumerated() {
                let context =
                    "seed \(seed)\(foreign ? " foreign" : ""), commit \(commit), monitor \(index) (\(shape))"
                let names = Set(observers.map(\.name))
                let events = log.entries.filter { names.contains($0.observer) }
                try check(
                    events: events, observers: observers.map(\.name), before: before[index],
                    after: monitor.sectionedRowIDs(), valuesBefore: valuesBefore,
                    valuesAfter: valuesAfter,
                    shape: shape, context: context)
            }
        }
    }

    /// Every item's values and every owner's name.
    static func values(in stack: DataStack) throws -> (
        items: [Int64: ItemValues], owners: [Int64: String]
    ) {
        let items = try stack.fetchAll(From<MonItem>())
        let owners = try stack.fetchAll(From<MonOwner>())
        return (
            Dictionary(uniqueKeysWithValues: items.map { ($0.rowID, ItemValues($0)) }),
            Dictionary(uniqueKeysWithValues: owners.map { ($0.rowID, $0.name) })
        )
    }

    func check(
        events: [(observer: String, event: ObservedEvent)], observers: [String],
        before: SectionedList<Int64>, after: SectionedList<Int64>,
        valuesBefore: (items: [Int64: ItemValues], owners: [Int64: String]),
        valuesAfter: (items: [Int64: ItemValues], owners: [Int64: String]),
        shape: Shape, context: String
    ) throws {
        let all = events.map { "\($0.observer) \($0.event.kind)" }
        let updated = Set(
            valuesAfter.items.keys.filter { rowID in
                valuesBefore.items[rowID].map { $0 != valuesAfter.items[rowID] } ?? false
            })
        let oldRows = Set(before.sections.flatMap(\.items))
        let newRows = Set(after.sections.flatMap(\.items))
        if events.contains(where: { $0.event.kind == .willRefetch }) {
            // A split or join of same-named sections: announced as a refetch, nothing else.
            #expect(shape.repeatsNames, "\(context): only repeated names refetch: \(all)")
            #expect(
                events.allSatisfy { [.willRefetch, .didRefetch].contains($0.event.kind) },
                "\(context): \(all)")
            return
        }
        // A commit that adds, removes and changes no member sends nothing.
        let touched = oldRows != newRows || !oldRows.isDisjoint(with: updated)
        if !touched && before == after {
            #expect(events.isEmpty, "\(context): nothing shown changed, yet \(all)")
            return
        }
        if before != after || !oldRows.isDisjoint(with: updated) {
            #expect(!events.isEmpty, "\(context): the list changed and no one was told")
        }
        guard !events.isEmpty else { return }
        // willChange to all observers first, didChange to all last, each's events between.
        let count = observers.count
        #expect(
            events.prefix(count).map(\.event.kind) == Array(repeating: .willChange, count: count),
            "\(context): \(all)")
        #expect(
            events.suffix(count).map(\.event.kind) == Array(repeating: .didChange, count: count),
            "\(context): \(all)")
        let middle = events.dropFirst(count).dropLast(count)
        var perObserver: [[ObservedEvent]] = []
        for name in observers {
            let own = middle.filter { $0.observer == name }.map(\.event)
            perObserver.append(own)
        }
        // One observer's events come together, not interleaved with another's.
        let order = middle.map { entry in observers.firstIndex(of: entry.observer)! }
        #expect(order == order.sorted(), "\(context): \(all)")
        #expect(
            perObserver.dropFirst().allSatisfy { $0.map(\.kind) == perObserver[0].map(\.kind) },
            "\(context): \(all)")
        let batch = perObserver[0]
        let kinds = batch.map(\.kind)
        // Categories in Rule 3's order.
        #expect(
            zip(batch, batch.dropFirst()).allSatisfy { $0.category <= $1.category },
            "\(context): \(kinds)")
        func paths(_ pick: (ObservedEvent.Kind) -> IndexPath?) -> [IndexPath] {
            kinds.compactMap(pick)
        }
        let deletes = paths { if case .delete(let p) = $0 { p } else { nil } }
        let inserts = paths { if case .insert(let p) = $0 { p } else { nil } }
        let sectionDeletes = kinds.compactMap {
            if case .deleteSection(let s) = $0 { s } else { nil }
        }
        let sectionInserts = kinds.compactMap {
            if case .insertSection(let s) = $0 { s } else { nil }
        }
        #expect(
            zip(deletes, deletes.dropFirst()).allSatisfy { $0 > $1 },
            "\(context): deletes last first: \(kinds)")
        #expect(
            zip(inserts, inserts.dropFirst()).allSatisfy { $0 < $1 },
            "\(context): inserts first first: \(kinds)")
        #expect(
            zip(sectionDeletes, sectionDeletes.dropFirst()).allSatisfy { $0 > $1 },
            "\(context): \(kinds)")
        #expect(
            zip(sectionInserts, sectionInserts.dropFirst()).allSatisfy { $0 < $1 },
            "\(context): \(kinds)")
        // Each object once, and each callback names the object at its paths.
        var seen: Set<Int64> = []
        for event in batch {
            if let rowID = event.rowID {
                #expect(
                    seen.insert(rowID).inserted, "\(context): row \(rowID) appears twice: \(kinds)")
            }
            // The monitor already shows the new list in every per-object callback.
            if event.category > 0, event.category < 7, event.rowID != nil {
                #expect(
                    event.monitorList == after,
                    "\(context): \(event.kind) saw a list other than the new one")
            }
            switch event.kind {
            case .delete(let path):
                #expect(before[path] == event.rowID, "\(context): \(event.kind)")
                #expect(
                    !newRows.contains(event.rowID!), "\(context): a survivor deleted: \(event.kind)"
                )
                if valuesAfter.items[event.rowID!] == nil {
                    #expect(
                        event.isDeletedObject, "\(context): a deleted object not isDeletedObject")
                }
            case .insert(let path):
                #expect(after[path] == event.rowID, "\(context): \(event.kind)")
                #expect(
                    !oldRows.contains(event.rowID!),
                    "\(context): a survivor inserted: \(event.kind)")
                #expect(
                    event.values == valuesAfter.items[event.rowID!],
                    "\(context): inserted with old values")
            case .move(let from, let to):
                #expect(
                    before[from] == event.rowID && after[to] == event.rowID,
                    "\(context): \(event.kind)")
                #expect(
                    event.values == valuesAfter.items[event.rowID!],
                    "\(context): moved with old values")
            case .update(let path):
                #expect(
                    before[path] == event.rowID && newRows.contains(event.rowID!),
                    "\(context): \(event.kind)")
                #expect(
                    event.values == valuesAfter.items[event.rowID!],
                    "\(context): updated with old values")
            case .deleteSection(let index):
                #expect(
                    event.sectionRows == before.sections[index].items, "\(context): \(event.kind)")
            case .insertSection(let index):
                #expect(
                    event.sectionRows == after.sections[index].items, "\(context): \(event.kind)")
            default: break
            }
        }
        // Survivors: an updated one whose key changed is a move; one whose key
        // stayed is an update; one not updated is not reported (unless the
        // list reads through a relationship, where renames move members).
        for rowID in oldRows.intersection(newRows) {
            let event = batch.first { $0.rowID == rowID }?.kind
            let isMove = if case .move = event { true } else { false }
            guard updated.contains(rowID) else {
                if !shape.readsRelationship {
                    #expect(
                        event == nil,
                        "\(context): row \(rowID) did not change, yet \(String(describing: event))")
                }
                continue
            }
            let oldKey = shape.key(valuesBefore.items[rowID]!, valuesBefore.owners)
            let newKey = shape.key(valuesAfter.items[rowID]!, valuesAfter.owners)
            if oldKey != newKey {
                #expect(
                    isMove,
                    "\(context): row \(rowID)'s key \(oldKey) -> \(newKey), yet \(String(describing: event))"
                )
            } else if !shape.readsRelationship {
                let isUpdate = if case .update = event { true } else { false }
                #expect(
                    isUpdate,
                    "\(context): row \(rowID) changed in place, yet \(String(describing: event))")
            }
        }
        let changes = ListChanges(
            deletedSections: sectionDeletes.sorted(), insertedSections: sectionInserts.sorted(),
            deletes: deletes.sorted(), inserts: inserts,
            moves: kinds.compactMap {
                if case .move(let f, let t) = $0 { .init(from: f, to: t) } else { nil }
            },
            updates: paths { if case .update(let p) = $0 { p } else { nil } }.sorted())
        // Repeated names carry an occurrence number that an earlier section shifts.
        let applied = try? changes.apply(to: before, insertingFrom: after)
        #expect(
            applied.map(ListMonitorModelTests.plain) == ListMonitorModelTests.plain(after),
            "\(context): \(kinds)")
    }
}
