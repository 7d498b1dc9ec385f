import Foundation
@testable import Strata
import Testing

/// Checks every batch of a monitor's callbacks as it ends: applied to the
/// list after the batch before, the batch gives the list the monitor shows
/// now. Follows any number of batches between two looks.
@MainActor
final class ReplayChecker<Item: ManagedObject>: ListSectionObserver {
    typealias ListEntityType = Item
    private var last: SectionedList<Int64>
    private var changes = ListChanges()
    private(set) var failures: [String] = []
    private(set) var batches = 0
    private(set) var refetches = 0
    private var open = 0

    init(_ monitor: ListMonitor<Item>) {
        last = monitor.sectionedRowIDs()
        monitor.addObserver(self)
    }

    func listMonitorWillChange(_ monitor: ListMonitor<Item>) {
        open += 1
        changes = ListChanges()
    }

    func listMonitorDidChange(_ monitor: ListMonitor<Item>) {
        open -= 1
        batches += 1
        let now = monitor.sectionedRowIDs()
        let applied = try? changes.apply(to: last, insertingFrom: now)
        if applied.map(ListMonitorModelTests.plain) != ListMonitorModelTests.plain(now) {
            failures.append("batch \(batches): \(changes) on \(ListMonitorModelTests.plain(last)) "
                + "gave \(applied.map(ListMonitorModelTests.plain) ?? ["(invalid)"]), "
                + "the monitor shows \(ListMonitorModelTests.plain(now))")
        }
        if open != 0 { failures.append("batch \(batches): willChange and didChange nest wrongly") }
        last = now
    }

    func listMonitorWillRefetch(_ monitor: ListMonitor<Item>) {}

    func listMonitorDidRefetch(_ monitor: ListMonitor<Item>) {
        refetches += 1
        last = monitor.sectionedRowIDs()
    }

    func listMonitor(_ monitor: ListMonitor<Item>, didInsertObject object: Item, toIndexPath indexPath: IndexPath) {
        changes.inserts.append(indexPath)
    }
    func listMonitor(_ monitor: ListMonitor<Item>, didDeleteObject object: Item, fromIndexPath indexPath: IndexPath) {
        changes.deletes.append(indexPath)
    }
    func listMonitor(_ monitor: ListMonitor<Item>, didUpdateObject object: Item, atIndexPath indexPath: IndexPath) {
        changes.updates.append(indexPath)
    }
    func listMonitor(
        _ monitor: ListMonitor<Item>, didMoveObject object: Item, fromIndexPath: IndexPath, toIndexPath: IndexPath
    ) {
        changes.moves.append(ListChanges.Move(from: fromIndexPath, to: toIndexPath))
    }
    func listMonitor(
        _ monitor: ListMonitor<Item>, didInsertSection sectionInfo: ListSectionInfo<Item>, toSectionIndex sectionIndex: Int
    ) {
        changes.insertedSections.append(sectionIndex)
    }
    func listMonitor(
        _ monitor: ListMonitor<Item>, didDeleteSection sectionInfo: ListSectionInfo<Item>, fromSectionIndex sectionIndex: Int
    ) {
        changes.deletedSections.append(sectionIndex)
    }
}

/// Records an object monitor's events.
@MainActor
final class ObjectEvents: ObjectObserver {
    typealias ObjectEntityType = MonItem
    var updates = 0
    var deleted = false

    func objectMonitor(_ monitor: ObjectMonitor<MonItem>, didUpdateObject object: MonItem, changedPersistentKeys: Set<String>) {
        updates += 1
    }

    func objectMonitor(_ monitor: ObjectMonitor<MonItem>, didDeleteObject object: MonItem) {
        deleted = true
    }
}

/// What one stack watches in a following test: list monitors of random
/// shapes, object monitors, and every object it fetched at the start.
@MainActor
struct Watcher {
    let stack: DataStack
    var lists: [(monitor: ListMonitor<MonItem>, checker: ReplayChecker<MonItem>, shape: ListMonitorModelTests.Shape)] = []
    /// Object monitors, and whether each had its object when it began: one
    /// made for an item another writer deleted just before (a read in a new
    /// snapshot merges the deletion) begins without it, and hears nothing.
    var objects: [(monitor: ObjectMonitor<MonItem>, events: ObjectEvents, hadObject: Bool)] = []
    var held: [MonItem] = []

    init(_ stack: DataStack, random: inout SplitMix64, lists count: Int = 3) throws {
        self.stack = stack
        for _ in 0..<count {
            let shape = ListMonitorModelTests.randomShape(&random)
            var query = From<MonItem>().orderBy(OrderBy(shape.order))
            if let predicate = shape.predicate { query = query.where(predicate) }
            let monitor = try ListMonitor(
                main: stack.main(), query: query, sectionBy: shape.sectioning.sectionBy, chunkCapacity: 3)
            lists.append((monitor, ReplayChecker(monitor), shape))
        }
        held = try stack.fetchAll(From<MonItem>())
        for item in held.shuffled(using: &random).prefix(3) {
            let monitor = try stack.monitorObject(item)
            let events = ObjectEvents()
            monitor.addObserver(events)
            objects.append((monitor, events, monitor.object != nil))
        }
    }

    /// Checks everything the stack shows against the store's rows, read by a
    /// connection of its own; `context` names the case in failures.
    func check(rows: [Int64: ContiguousArray<StoredValue>], _ context: String) throws {
        for (index, list) in lists.enumerated() {
            #expect(list.checker.failures.isEmpty, "\(context), list \(index) \(list.shape): \(list.checker.failures)")
            var query = From<MonItem>().orderBy(list.monitor.orderForFetch)
            if let predicate = list.shape.predicate { query = query.where(predicate) }
            let fresh = try stack.fetchAll(query).map(\.rowID)
            #expect(list.monitor.objectsInAllSections().map(\.rowID) == fresh, "\(context), list \(index) \(list.shape)")
            list.monitor.members.checkInvariants()
        }
        for item in held {
            if let row = rows[item.rowID] {
                #expect(!item.isDeletedObject && item.values == row, "\(context), held item \(item.rowID)")
            } else {
                #expect(item.isDeletedObject, "\(context), held item \(item.rowID) was deleted")
            }
        }
        for (monitor, events, hadObject) in objects {
            let row = rows[monitor.objectID.rowID]
            #expect(hadObject || row == nil, "\(context), object monitor \(monitor.objectID) began without a stored row")
            #expect((row == nil && hadObject) == events.deleted, "\(context), object monitor \(monitor.objectID)")
            #expect((row == nil) == (monitor.object == nil), "\(context), object monitor \(monitor.objectID)")
            if let row, let object = monitor.object { #expect(object.values == row, "\(context)") }
        }
    }
}

/// Every item's row, read by a read-only connection of its own (not
/// through a stack, which would answer from what it knows), from a store
/// of any kind.
func itemRows(in storage: any StorageInterface) throws -> [Int64: ContiguousArray<StoredValue>] {
    let connection = try storage.settings.openConnection(.inspector)
    defer { connection.close() }
    let entity = monitorSchema.entity(of: MonItem.self)
    let count = Int32(entity.attributes.count)
    var rows: [Int64: ContiguousArray<StoredValue>] = [:]
    for (rowID, row) in try connection.query("SELECT \(entity.selectList) FROM \(entity.quotedTable)", [], { statement in
        (statement.int64(at: 0), ContiguousArray((0..<count).map { statement.value(at: $0 + 1) }))
    }) {
        rows[rowID] = row
    }
    return rows
}

/// A stack on the store of `kind` in `directory` (the SQLite file unless
/// told), beside any other.
@MainActor
func openStack(_ kind: StoreKind = .file, in directory: TemporaryDirectory, author: String? = nil) throws -> DataStack {
    try openStack(at: StoreAddress(kind, in: directory), author: author)
}

/// A stack on the store at `address`, whose commits are logged as `author`'s.
@MainActor
func openStack(at address: StoreAddress, author: String? = nil) throws -> DataStack {
    let stack = DataStack(monitorSchema)
    stack.defaultAuthor = author
    try stack.addStorageAndWait(address.storage)
    return stack
}
