import Foundation
@testable import Strata
import Testing

// Random unique imports checked against a plain in-memory model of the rules
// in Docs/Importing.md (CoreStore's semantics, with Strata's documented
// differences): mixes of new and existing IDs, repeated IDs, nil IDs, hooks
// that decline or throw, preProcess, hooks that delete, create and import
// objects of the same entity, relationships to earlier imports, deletes
// between imports, rollbacks, and undo in an unsafe transaction.

struct ModelRecord: Sendable, CustomStringConvertible {
    var id: Int?
    var name: String
    var skipInsert = false
    var skipUpdateStatic = false
    var skipUpdate = false
    var throwID = false
    var throwInsert = false
    var throwUpdate = false
    /// The hook deletes the object with this ID, if any.
    var deleteID: Int? = nil
    /// The hook creates an object with this ID (plain `create`) unless one exists.
    var createID: Int? = nil
    /// The hook points `ref` at the object with this ID (fetched), or at nothing.
    var refID: Int? = nil
    /// The hook points `ref` at what a nested unique import of this ID returns.
    var parentID: Int? = nil

    var description: String {
        var text = (id.map { String($0) } ?? "nil") + ":" + name
        if skipInsert { text += " !i" }
        if skipUpdateStatic { text += " !U" }
        if skipUpdate { text += " !u" }
        if throwID { text += " tID" }
        if throwInsert { text += " tI" }
        if throwUpdate { text += " tU" }
        if let deleteID { text += " del\(deleteID)" }
        if let createID { text += " mk\(createID)" }
        if let refID { text += " ref\(refID)" }
        if let parentID { text += " par\(parentID)" }
        return text
    }
}

struct ModelImportError: Error, Equatable {
    let reason: String
}

final class ModelItem: ManagedObject, ImportableUniqueObject {
    @Field.Stored("remoteID", .unique) var remoteID: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("inserts") var inserts: Int = 0
    @Field.Stored("updates") var updates: Int = 0
    @Field.Relationship("ref", inverse: \ModelItem.$referrers) var ref: ModelItem?
    @Field.Relationship("referrers") var referrers: Set<ModelItem>

    typealias ImportSource = ModelRecord

    static var uniqueIDKeyPath: KeyPath<ModelItem, Field.Stored<Int>> { \.$remoteID }

    static func uniqueID(from source: ModelRecord, in transaction: BaseDataTransaction) throws -> Int? {
        if source.throwID { throw ModelImportError(reason: "id \(source.name)") }
        return source.id
    }

    static func shouldInsert(from source: ModelRecord, in transaction: BaseDataTransaction) -> Bool {
        !source.skipInsert
    }

    static func shouldUpdate(from source: ModelRecord, in transaction: BaseDataTransaction) -> Bool {
        !source.skipUpdateStatic
    }

    func shouldUpdate(from source: ModelRecord, in transaction: BaseDataTransaction) -> Bool {
        !source.skipUpdate
    }

    func didInsert(from source: ModelRecord, in transaction: BaseDataTransaction) throws {
        if source.throwInsert { throw ModelImportError(reason: "insert \(source.name)") }
        inserts += 1
        try fill(from: source, in: transaction)
    }

    func update(from source: ModelRecord, in transaction: BaseDataTransaction) throws {
        if source.throwUpdate { throw ModelImportError(reason: "update \(source.name)") }
        updates += 1
        try fill(from: source, in: transaction)
    }

    private func fill(from source: ModelRecord, in transaction: BaseDataTransaction) throws {
        if !source.name.isEmpty { name = source.name }
        if let deleteID = source.deleteID {
            let doomed = try transaction.fetchOne(From<ModelItem>().where(\.$remoteID == deleteID))
            transaction.delete(doomed)
        }
        if let createID = source.createID,
           try transaction.fetchCount(From<ModelItem>().where(\.$remoteID == createID)) == 0
        {
            let made = transaction.create(Into<ModelItem>())
            made.remoteID = createID
            made.name = "stub"
        }
        if let refID = source.refID {
            ref = try transaction.fetchOne(From<ModelItem>().where(\.$remoteID == refID))
        }
        if let parentID = source.parentID {
            ref = try transaction.importUniqueObject(
                Into<ModelItem>(), source: ModelRecord(id: parentID, name: ""))
        }
    }
}

let modelImportSchema = Schema("MI1", entities: [Entity<ModelItem>("ModelItem")])

/// The store as the rules say it should be.
struct ImportModel {
    struct Item: Equatable {
        var incarnation: Int
        var name = ""
        var inserts = 0
        var updates = 0
        var ref: (id: Int, incarnation: Int)?

        static func == (a: Item, b: Item) -> Bool {
            a.incarnation == b.incarnation && a.name == b.name && a.inserts == b.inserts
                && a.updates == b.updates && a.ref?.id == b.ref?.id
                && a.ref?.incarnation == b.ref?.incarnation
        }
    }

    var live: [Int: Item] = [:]
    var nextIncarnation = 0
    /// Whether anything was changed since this was last reset (an undo group opened).
    var touched = false

    /// Each live object as `remoteID:name:inserts/updates->ref`, by ID.
    var rows: [String] {
        live.keys.sorted().map { id in
            let item = live[id]!
            let ref = item.ref.flatMap { live[$0.id]?.incarnation == $0.incarnation ? $0.id : nil }
            return "\(id):\(item.name):\(item.inserts)/\(item.updates)->\(ref.map(String.init) ?? "-")"
        }
    }

    mutating func create(_ id: Int, name: String = "") -> (id: Int, incarnation: Int) {
        nextIncarnation += 1
        live[id] = Item(incarnation: nextIncarnation, name: name)
        touched = true
        return (id, nextIncarnation)
    }

    mutating func delete(_ id: Int) {
        if live.removeValue(forKey: id) != nil { touched = true }
    }

    /// `importUniqueObjects` with `preProcess` dropping `drop`, renaming
    /// `rename` and adding `add`; the result as (ID, incarnation).
    mutating func importMany(
        _ records: [ModelRecord], drop: Set<Int> = [], rename: Set<Int> = [], add: ModelRecord? = nil
    ) throws -> [(id: Int, incarnation: Int)] {
        var order: [Int] = []
        var last: [Int: ModelRecord] = [:]
        for record in records {
            if record.throwID { throw ModelImportError(reason: "id \(record.name)") }
            guard let id = record.id else { continue }
            if last.updateValue(record, forKey: id) == nil { order.append(id) }
        }
        var pending = order.filter { !drop.contains($0) }.map { id -> (Int, ModelRecord) in
            var source = last[id]!
            if rename.contains(id) { source.name = "renamed-\(id)" }
            return (id, source)
        }
        if let add, let id = add.id, last[id] == nil { pending.append((id, add)) }
        var result: [(id: Int, incarnation: Int)] = []
        for (id, source) in pending {
            if let imported = try importOne(id, source) { result.append(imported) }
        }
        return result
    }

    mutating func importOne(_ id: Int, _ source: ModelRecord) throws -> (id: Int, incarnation: Int)? {
        if live[id] != nil {
            if source.skipUpdateStatic || source.skipUpdate { return nil }
            if source.throwUpdate { throw ModelImportError(reason: "update \(source.name)") }
            let incarnation = live[id]!.incarnation
            live[id]!.updates += 1
            touched = true
            try fill(id, incarnation, source)
            return (id, incarnation)
        }
        if source.skipInsert { return nil }
        let made = create(id)
        if source.throwInsert { throw ModelImportError(reason: "insert \(source.name)") }
        live[id]!.inserts += 1
        try fill(id, made.incarnation, source)
        return made
    }

    private mutating func fill(_ id: Int, _ incarnation: Int, _ source: ModelRecord) throws {
        if !source.name.isEmpty, live[id]?.incarnation == incarnation { live[id]!.name = source.name }
        if let deleteID = source.deleteID { delete(deleteID) }
        if let createID = source.createID, live[createID] == nil { _ = create(createID, name: "stub") }
        if let refID = source.refID {
            let target = live[refID].map { (id: refID, incarnation: $0.incarnation) }
            if live[id]?.incarnation == incarnation { live[id]!.ref = target }
        }
        if let parentID = source.parentID {
            let parent = try importOne(parentID, ModelRecord(id: parentID, name: ""))
            if live[id]?.incarnation == incarnation { live[id]!.ref = parent }
        }
    }
}

@MainActor
@Suite("Import: random workloads against a model of the rules")
struct ImportModelTests {
    static let idSpace = 24

    static func chance(_ oneIn: Int, _ random: inout SplitMix64) -> Bool {
        Int.random(in: 0..<oneIn, using: &random) == 0
    }

    static func record(_ random: inout SplitMix64, _ label: String) -> ModelRecord {
        let id: Int? = chance(12, &random) ? nil : Int.random(in: 0..<idSpace, using: &random)
        var record = ModelRecord(id: id, name: label)
        record.skipInsert = chance(8, &random)
        record.skipUpdateStatic = chance(10, &random)
        record.skipUpdate = chance(10, &random)
        record.throwID = chance(60, &random)
        record.throwInsert = chance(25, &random)
        record.throwUpdate = chance(25, &random)
        if chance(4, &random) { record.deleteID = Int.random(in: 0..<idSpace, using: &random) }
        if chance(4, &random) { record.createID = Int.random(in: 0..<idSpace, using: &random) }
        if chance(4, &random) {
            record.refID = Int.random(in: 0..<idSpace, using: &random)
        } else if chance(6, &random) {
            record.parentID = Int.random(in: 0..<idSpace, using: &random)
        }
        if record.deleteID == record.id { record.deleteID = nil }
        return record
    }

    static func rows(_ items: [ModelItem]) -> [String] {
        items.sorted { $0.remoteID < $1.remoteID }.map {
            let ref = $0.ref.map { String($0.remoteID) } ?? "-"
            return "\($0.remoteID):\($0.name):\($0.inserts)/\($0.updates)->\(ref)"
        }
    }

    /// The import calls' results, as `id` or `id†` for an object deleted since.
    static func describe(_ objects: [ModelItem], in tx: BaseDataTransaction) throws -> [String] {
        try objects.map { object in
            if object.isDeletedObject { return "†" }
            let current = try tx.fetchOne(From<ModelItem>().where(\.$remoteID == object.remoteID))
            return current === object ? "\(object.remoteID)" : "\(object.remoteID)?"
        }
    }

    static func describe(_ result: [(id: Int, incarnation: Int)], in model: ImportModel) -> [String] {
        result.map { model.live[$0.id]?.incarnation == $0.incarnation ? "\($0.id)" : "†" }
    }

    /// One random import call (or delete) in `tx`, and the same in `model`;
    /// returns a description of what differed, if anything.
    static func step(
        _ random: inout SplitMix64, _ tx: BaseDataTransaction, _ model: inout ImportModel, label: String
    ) throws -> String? {
        let kind = Int.random(in: 0..<10, using: &random)
        if kind == 0 {
            let id = Int.random(in: 0..<idSpace, using: &random)
            tx.delete(try tx.fetchOne(From<ModelItem>().where(\.$remoteID == id)))
            model.delete(id)
            return nil
        }
        var records: [ModelRecord]
        if kind == 1 {
            records = [record(&random, label)]
        } else {
            let count = Int.random(in: 0...(kind == 9 ? 40 : 12), using: &random)
            records = (0..<count).map { record(&random, "\(label).\($0)") }
        }
        let usePreProcess = kind >= 7
        var drop = Set<Int>()
        var rename = Set<Int>()
        var add: ModelRecord?
        if usePreProcess {
            for record in records {
                guard let id = record.id else { continue }
                if Int.random(in: 0..<4, using: &random) == 0 { drop.insert(id) }
                if Int.random(in: 0..<4, using: &random) == 0 { rename.insert(id) }
            }
            if Int.random(in: 0..<2, using: &random) == 0 {
                var extra = record(&random, "\(label).add")
                extra.throwID = false
                extra.id = Int.random(in: 0..<idSpace, using: &random)
                add = extra
            }
        }
        // The model, then the store.
        var expected: Result<[String], ModelImportError>
        var after = model
        do {
            let result =
                kind == 1
                ? try after.importMany(records)
                : try after.importMany(records, drop: drop, rename: rename, add: add)
            expected = .success(describe(result, in: after))
        } catch let error as ModelImportError {
            expected = .failure(error)
        }
        model = after

        var actual: Result<[String], ModelImportError>
        do {
            let objects: [ModelItem]
            if kind == 1 {
                let one = try tx.importUniqueObject(Into<ModelItem>(), source: records[0])
                objects = one.map { [$0] } ?? []
            } else if usePreProcess {
                objects = try tx.importUniqueObjects(Into<ModelItem>(), sourceArray: records) { byID in
                    var kept = byID
                    for id in drop { kept[id] = nil }
                    for id in rename where kept[id] != nil { kept[id]!.name = "renamed-\(id)" }
                    if let add, let id = add.id, byID[id] == nil { kept[id] = add }
                    return kept
                }
            } else {
                objects = try tx.importUniqueObjects(Into<ModelItem>(), sourceArray: records)
            }
            actual = .success(try describe(objects, in: tx))
        } catch {
            guard case .userError(let wrapped as ModelImportError)? = error as? StrataError else {
                throw error
            }
            actual = .failure(wrapped)
        }
        if actual != expected {
            return "records \(records) drop \(drop) rename \(rename) add \(add.map(\.description) ?? "-"): "
                + "returned \(actual), expected \(expected)"
        }
        let inTransaction = rows(try tx.fetchAll(From<ModelItem>()))
        if inTransaction != model.rows {
            return "records \(records) drop \(drop) rename \(rename) add \(add.map(\.description) ?? "-"): "
                + "in the transaction \(inTransaction), expected \(model.rows)"
        }
        return nil
    }

    /// Transactions of several random import calls, some rolled back;
    /// after each, the store must be what the model says.
    @Test(arguments: StoreKind.allCases, [UInt64(1), 2, 3, 0x1A2B, 0xC0DE])
    func randomImportsMatchTheModel(_ kind: StoreKind, _ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(modelImportSchema, kind, in: directory)
        var model = ImportModel()
        for round in 0..<25 {
            var working = model
            let steps = Int.random(in: 1...4, using: &random)
            let rollBack = Int.random(in: 0..<6, using: &random) == 0
            var failure: String?
            do {
                try stack.perform(synchronous: { tx in
                    for index in 0..<steps where failure == nil {
                        failure = try Self.step(&random, tx, &working, label: "r\(round)s\(index)")
                    }
                    if rollBack { try tx.cancel() }
                })
            } catch {
                if !(rollBack && error == .userCancelled) {
                    Issue.record("seed \(seed), round \(round): the transaction failed: \(error)")
                    return
                }
            }
            if let failure {
                Issue.record("seed \(seed), round \(round): \(failure)")
                return
            }
            if !rollBack { model = working }
            let stored = Self.rows(try stack.fetchAll(From<ModelItem>()))
            #expect(stored == model.rows, "seed \(seed), round \(round)")
            if stored != model.rows { return }
        }
    }

    /// Import calls in an unsafe transaction with an undo history, each
    /// flushed (one undo group each), with undos, redos and commits between
    /// them: undoing an import takes back what it created, updated and its
    /// hooks changed; the store after each commit is what the model says.
    @Test(arguments: StoreKind.allCases, [UInt64(11), 12, 13, 0x0DD0])
    func undoneImportsMatchTheModel(_ kind: StoreKind, _ seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(modelImportSchema, kind, in: directory)
        let tx = try stack.beginUnsafe(supportsUndo: true)
        var model = ImportModel()
        var undoStack: [ImportModel] = []
        var redoStack: [ImportModel] = []
        for round in 0..<60 {
            let action = Int.random(in: 0..<10, using: &random)
            var did = "import"
            if action < 2, let previous = undoStack.popLast() {
                tx.undo()
                redoStack.append(model)
                model = previous
                did = "undo"
            } else if action == 2, let next = redoStack.popLast() {
                tx.redo()
                undoStack.append(model)
                model = next
                did = "redo"
            } else if action == 3 {
                do {
                    try tx.commitAndWait()
                } catch {
                    Issue.record("seed \(seed), round \(round): the commit failed: \(error)")
                    return
                }
                did = "commit"
                let stored = Self.rows(try stack.fetchAll(From<ModelItem>()))
                #expect(stored == model.rows, "seed \(seed), round \(round), after commit")
                if stored != model.rows { return }
            } else {
                var after = model
                after.touched = false
                if let failure = try Self.step(&random, tx, &after, label: "u\(round)") {
                    Issue.record("seed \(seed), round \(round): \(failure)")
                    return
                }
                do {
                    try tx.flush()
                } catch {
                    Issue.record("seed \(seed), round \(round): the flush failed: \(error)")
                    return
                }
                if after.touched {
                    undoStack.append(model)
                    redoStack.removeAll()
                }
                model = after
            }
            let seen = Self.rows(try tx.fetchAll(From<ModelItem>()))
            #expect(seen == model.rows, "seed \(seed), round \(round), after \(did)")
            if seen != model.rows { return }
        }
        try tx.commitAndWait()
        let stored = Self.rows(try stack.fetchAll(From<ModelItem>()))
        #expect(stored == model.rows, "seed \(seed), last commit")
    }
}
