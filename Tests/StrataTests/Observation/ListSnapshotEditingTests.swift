import Foundation
import Testing

@testable import Strata

/// CoreStore's mutating `ListSnapshot` methods, checked against a model:
/// sections as (name, row IDs), edited the plain way.
@Suite("ListSnapshot: editing")
struct ListSnapshotEditingTests {
    private typealias Model = [(id: String, rows: [Int64])]

    private static func id(_ row: Int64) -> ObjectID<MonItem> { ObjectID(entityName: "MonItem", rowID: row) }

    private static func snapshot(_ model: Model) -> ListSnapshot<MonItem> {
        ListSnapshot(sections: model.map { ($0.id, $0.rows.map(id)) })
    }

    private static func path(of row: Int64, in model: Model) -> IndexPath? {
        for (section, entry) in model.enumerated() {
            if let item = entry.rows.firstIndex(of: row) { return IndexPath(item: item, section: section) }
        }
        return nil
    }

    /// Random valid edits, each applied to a snapshot and to the model: the
    /// snapshot always equals the model's, reloaded items are the ones
    /// marked and still there, and the snapshot it was copied from never changes.
    @Test func everyEditChangesTheCopyAsTheModelSays() {
        var random = SplitMix64.random()
        for round in 0..<40 {
            var model: Model = (0..<Int.random(in: 0...3, using: &random)).map { section in
                ("s\(section)", (0..<Int64.random(in: 0...3, using: &random)).map { Int64(section * 10) + $0 + 1 })
            }
            var nextRow: Int64 = 1_000, nextSection = 100
            let original = Self.snapshot(model)
            var snapshot = original
            var reloaded: Set<Int64> = []
            for step in 0..<30 {
                let rows = model.flatMap(\.rows)
                let context = "seed \(random.seed), round \(round), step \(step), \(snapshot)"
                func anyRow() -> Int64? { rows.randomElement(using: &random) }
                func anySection() -> Int? { model.indices.randomElement(using: &random) }
                func newRows() -> [Int64] {
                    (0..<Int.random(in: 1...3, using: &random)).map { _ in nextRow += 1; return nextRow }
                }
                switch Int.random(in: 0..<16, using: &random) {
                case 0:
                    guard !model.isEmpty else { continue }
                    let new = newRows()
                    let named = Bool.random(using: &random)
                    let section = named ? anySection()! : model.count - 1
                    model[section].rows += new
                    snapshot.appendItems(withIDs: new.map(Self.id), toSectionWithID: named ? model[section].id : nil)
                case 1:
                    guard let section = anySection() else { continue }
                    let new = newRows()
                    model[section].rows += new
                    snapshot.appendItems(with: new.map(Self.id), toSectionAt: section)
                case 2, 3:
                    guard let anchor = anyRow() else { continue }
                    let new = newRows(), path = Self.path(of: anchor, in: model)!
                    let after = Bool.random(using: &random)
                    model[path.section].rows.insert(contentsOf: new, at: path.item + (after ? 1 : 0))
                    if after {
                        snapshot.insertItems(withIDs: new.map(Self.id), afterItemID: Self.id(anchor))
                    } else {
                        snapshot.insertItems(withIDs: new.map(Self.id), beforeItemID: Self.id(anchor))
                    }
                case 4:
                    guard let section = anySection() else { continue }
                    let item = Int.random(in: 0...model[section].rows.count, using: &random)
                    let new = newRows()
                    model[section].rows.insert(contentsOf: new, at: item)
                    snapshot.insertItems(withIDs: new.map(Self.id), at: IndexPath(item: item, section: section))
                case 5:
                    let gone = Set(rows.filter { _ in Int.random(in: 0..<4, using: &random) == 0 })
                    for section in model.indices { model[section].rows.removeAll(where: gone.contains) }
                    snapshot.deleteItems(withIDs: gone.map(Self.id) + [Self.id(999_999)])
                case 6:
                    let gone = rows.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
                    let paths = gone.map { Self.path(of: $0, in: model)! }
                    for section in model.indices { model[section].rows.removeAll(where: gone.contains) }
                    snapshot.deleteItems(at: paths)
                case 7:
                    guard let moved = anyRow(), let anchor = anyRow() else { continue }
                    let after = Bool.random(using: &random)
                    if moved != anchor {
                        let from = Self.path(of: moved, in: model)!
                        model[from.section].rows.remove(at: from.item)
                        let to = Self.path(of: anchor, in: model)!
                        model[to.section].rows.insert(moved, at: to.item + (after ? 1 : 0))
                    }
                    if after {
                        snapshot.moveItem(withID: Self.id(moved), afterItemID: Self.id(anchor))
                    } else {
                        snapshot.moveItem(withID: Self.id(moved), beforeItemID: Self.id(anchor))
                    }
                case 8:
                    guard let moved = anyRow() else { continue }
                    let from = Self.path(of: moved, in: model)!
                    model[from.section].rows.remove(at: from.item)
                    let section = anySection()!
                    let item = Int.random(in: 0...model[section].rows.count, using: &random)
                    model[section].rows.insert(moved, at: item)
                    snapshot.moveItem(at: from, to: IndexPath(item: item, section: section))
                case 9:
                    let marked = rows.filter { _ in Bool.random(using: &random) }
                    reloaded.formUnion(marked)
                    if Bool.random(using: &random) {
                        snapshot.reloadItems(withIDs: marked.map(Self.id))
                    } else {
                        snapshot.reloadItems(at: marked.map { Self.path(of: $0, in: model)! })
                    }
                case 10:
                    let names = (0..<Int.random(in: 1...2, using: &random)).map { _ in
                        nextSection += 1
                        return "s\(nextSection)"
                    }
                    if let anchor = anySection(), Bool.random(using: &random) {
                        let after = Bool.random(using: &random)
                        let name = model[anchor].id
                        model.insert(contentsOf: names.map { ($0, []) }, at: anchor + (after ? 1 : 0))
                        if after {
                            snapshot.insertSections(withIDs: names, afterSectionID: name)
                        } else {
                            snapshot.insertSections(withIDs: names, beforeSectionID: name)
                        }
                    } else {
                        model.append(contentsOf: names.map { ($0, []) })
                        snapshot.appendSections(withIDs: names)
                    }
                case 11:
                    let index = Int.random(in: 0...model.count, using: &random)
                    nextSection += 1
                    model.insert(("s\(nextSection)", []), at: index)
                    snapshot.insertSections(["s\(nextSection)"], at: index)
                case 12:
                    guard let section = anySection() else { continue }
                    if Bool.random(using: &random) {
                        snapshot.deleteSections(withIDs: [model[section].id, "absent"])
                    } else {
                        snapshot.deleteSections(at: [section])
                    }
                    model.remove(at: section)
                case 13:
                    guard let moved = anySection(), let anchor = anySection() else { continue }
                    let after = Bool.random(using: &random)
                    let (movedName, anchorName) = (model[moved].id, model[anchor].id)
                    if moved != anchor {
                        let entry = model.remove(at: moved)
                        let to = model.firstIndex { $0.id == anchorName }!
                        model.insert(entry, at: to + (after ? 1 : 0))
                    }
                    if after {
                        snapshot.moveSection(withID: movedName, afterSectionID: anchorName)
                    } else {
                        snapshot.moveSection(withID: movedName, beforeSectionID: anchorName)
                    }
                case 14:
                    guard let moved = anySection() else { continue }
                    let entry = model.remove(at: moved)
                    let to = Int.random(in: 0...model.count, using: &random)
                    model.insert(entry, at: to)
                    snapshot.moveSection(at: moved, to: to)
                default:
                    guard let section = anySection() else { continue }
                    reloaded.formUnion(model[section].rows)
                    if Bool.random(using: &random) {
                        snapshot.reloadSections(withIDs: [model[section].id])
                    } else {
                        snapshot.reloadSections(at: [section])
                    }
                }
                reloaded.formIntersection(model.flatMap(\.rows))
                #expect(snapshot == Self.snapshot(model), "\(context)")
                #expect(snapshot.sectionIDs == model.map(\.id), "\(context)")
                #expect(snapshot.updatedItemIDs == Set(reloaded.map(Self.id)), "\(context)")
            }
            if Bool.random(using: &random) {
                snapshot.deleteAllItems()
                #expect(snapshot.sectionIDs == model.map(\.id) && snapshot.isEmpty && snapshot.updatedItemIDs.isEmpty)
            }
            #expect(original == Self.snapshot(Model(original.sectionIDs.indices.map {
                (original.sectionIDs[$0], original.itemIDs(inSection: $0).map(\.rowID))
            })))
        }
    }

    /// A monitor's snapshot may hold two sections of one name; edits that
    /// add none keep it, and a publisher's snapshot is not changed by a copy's edits.
    @Test func aRepeatedSectionNameOfTheListStaysAllowed() {
        var snapshot = Self.snapshot([("a", [1]), ("b", [2]), ("a", [3])])
        snapshot.appendItems(withIDs: [Self.id(4)], toSectionWithID: "a")
        #expect(snapshot == Self.snapshot([("a", [1, 4]), ("b", [2]), ("a", [3])]))
        snapshot.deleteSections(withIDs: ["a"])
        #expect(snapshot == Self.snapshot([("b", [2])]))
    }

    /// Adding an item or a section the snapshot holds already, or naming one
    /// it does not have, traps with a message saying what is wrong.
    @Test func editsThatNameWhatIsNotThereTrap() async {
        var results: [(String, ExitTest.Result?)] = []
        results.append(("would hold item", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            var snapshot = ListSnapshot<MonItem>(sections: [("a", [ObjectID<MonItem>(entityName: "MonItem", rowID: 1)])])
            snapshot.appendItems(withIDs: [ObjectID<MonItem>(entityName: "MonItem", rowID: 1)])
        }))
        results.append(("no section with ID \"b\"", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            var snapshot = ListSnapshot<MonItem>(sections: [("a", [])])
            snapshot.appendItems(withIDs: [ObjectID<MonItem>(entityName: "MonItem", rowID: 2)], toSectionWithID: "b")
        }))
        results.append(("no section to append items to", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            var snapshot = ListSnapshot<MonItem>()
            snapshot.appendItems(withIDs: [ObjectID<MonItem>(entityName: "MonItem", rowID: 2)])
        }))
        results.append(("holds no item", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            var snapshot = ListSnapshot<MonItem>(sections: [("a", [ObjectID<MonItem>(entityName: "MonItem", rowID: 1)])])
            snapshot.moveItem(
                withID: ObjectID<MonItem>(entityName: "MonItem", rowID: 5), beforeItemID: ObjectID<MonItem>(entityName: "MonItem", rowID: 1))
        }))
        results.append(("two sections with ID", await #expect(
            processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
            var snapshot = ListSnapshot<MonItem>(sections: [("a", [])])
            snapshot.appendSections(withIDs: ["a"])
        }))
        for (message, result) in results {
            let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(output.contains(message), "\(output)")
        }
    }
}
