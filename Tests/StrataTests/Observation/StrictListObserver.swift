import Foundation
import Testing

@testable import Strata

/// One callback as an observer received it, with what it could read at that moment.
struct ObservedEvent {
    enum Kind: Equatable {
        case willChange, didChange, willRefetch, didRefetch
        case delete(IndexPath), insert(IndexPath), move(IndexPath, IndexPath), update(IndexPath)
        case deleteSection(Int), insertSection(Int)
    }

    var kind: Kind
    var rowID: Int64? = nil
    /// The object's fields as the callback could read them.
    var values: ItemValues? = nil
    var isDeletedObject = false
    /// The rows of the section a section callback was handed.
    var sectionRows: [Int64] = []
    /// The monitor's list as it stood during the callback.
    var monitorList: SectionedList<Int64>? = nil

    /// The order categories come in (Docs/Observing.md, Rule 3).
    var category: Int {
        switch kind {
        case .willChange, .willRefetch: return 0
        case .delete: return 1
        case .deleteSection: return 2
        case .insertSection: return 3
        case .insert: return 4
        case .move: return 5
        case .update: return 6
        case .didChange, .didRefetch: return 7
        }
    }
}

/// An item's stored fields and its owner, to compare before and after a commit.
struct ItemValues: Equatable {
    var group: Int
    var rank: Int
    var label: String?
    var flag: Bool
    var owner: Int64?

    init(_ item: MonItem) {
        group = item.group
        rank = item.rank
        label = item.label
        flag = item.flag
        owner = item.owner?.rowID
    }
}

/// Records every callback into a log that several observers may share.
@MainActor
final class StrictObserver: ListSectionObserver {
    typealias ListEntityType = MonItem
    let name: String
    let log: EventLog

    final class EventLog {
        var entries: [(observer: String, event: ObservedEvent)] = []
    }

    init(_ name: String, log: EventLog) {
        self.name = name
        self.log = log
    }

    private func record(
        _ kind: ObservedEvent.Kind, _ object: MonItem? = nil, _ monitor: ListMonitor<MonItem>
    ) {
        var event = ObservedEvent(kind: kind)
        if let object {
            event.rowID = object.rowID
            event.isDeletedObject = object.isDeletedObject
            if !object.isDeletedObject { event.values = ItemValues(object) }
        }
        if kind != .willChange, kind != .willRefetch {
            event.monitorList = monitor.sectionedRowIDs()
        }
        log.entries.append((name, event))
    }

    func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) {
        record(.willChange, nil, monitor)
    }
    func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { record(.didChange, nil, monitor) }
    func listMonitorWillRefetch(_ monitor: ListMonitor<MonItem>) {
        record(.willRefetch, nil, monitor)
    }
    func listMonitorDidRefetch(_ monitor: ListMonitor<MonItem>) {
        record(.didRefetch, nil, monitor)
    }
    func listMonitor(
        _ monitor: ListMonitor<MonItem>, didInsertObject object: MonItem,
        toIndexPath indexPath: IndexPath
    ) {
        record(.insert(indexPath), object, monitor)
    }
    func listMonitor(
        _ monitor: ListMonitor<MonItem>, didDeleteObject object: MonItem,
        fromIndexPath indexPath: IndexPath
    ) {
        record(.delete(indexPath), object, monitor)
    }
    func listMonitor(
        _ monitor: ListMonitor<MonItem>, didUpdateObject object: MonItem,
        atIndexPath indexPath: IndexPath
    ) {
        record(.update(indexPath), object, monitor)
    }
    func listMonitor(
        _ monitor: ListMonitor<MonItem>, didMoveObject object: MonItem, fromIndexPath: IndexPath,
        toIndexPath: IndexPath
    ) {
        record(.move(fromIndexPath, toIndexPath), object, monitor)
    }
    func listMonitor(
        _ monitor: ListMonitor<MonItem>, didInsertSection sectionInfo: ListSectionInfo<MonItem>,
        toSectionIndex sectionIndex: Int
    ) {
        var event = ObservedEvent(kind: .insertSection(sectionIndex))
        event.sectionRows = sectionInfo.objects.map(\.rowID)
        log.entries.append((name, event))
    }
    func listMonitor(
        _ monitor: ListMonitor<MonItem>, didDeleteSection sectionInfo: ListSectionInfo<MonItem>,
        fromSectionIndex sectionIndex: Int
    ) {
        var event = ObservedEvent(kind: .deleteSection(sectionIndex))
        event.sectionRows = sectionInfo.objects.map(\.rowID)
        log.entries.append((name, event))
    }
}
