import Foundation
@testable import Strata
import Testing

/// Rule 1 of Docs/Observing.md: "When any callback runs, every object and
/// every monitor already shows the same commit, so a callback may read any of
/// them without seeing a half-applied state." Checked from each kind of
/// monitor callback, reading monitors made before it and after it.
@MainActor
@Suite("Observing.md Rule 1: a callback sees every monitor at the same commit")
struct ObservingPassTests {
    /// Reads the other monitors whenever its own monitor calls it.
    final class Reader: ListObjectObserver, ObjectObserver {
        typealias ListEntityType = MonItem
        typealias ObjectEntityType = MonItem
        var others: [ListMonitor<MonItem>] = []
        /// Each callback's view of the other monitors' counts.
        var seen: [String] = []

        func look(_ callback: String) {
            seen.append("\(callback): \(others.map { $0.numberOfObjects() })")
        }
        func listMonitorWillChange(_ monitor: ListMonitor<MonItem>) { look("willChange") }
        func listMonitorDidChange(_ monitor: ListMonitor<MonItem>) { look("didChange") }
        func listMonitor(_ monitor: ListMonitor<MonItem>, didInsertObject object: MonItem, toIndexPath indexPath: IndexPath) {
            look("insert")
        }
        func objectMonitor(
            _ monitor: ObjectMonitor<MonItem>, didUpdateObject object: MonItem, changedPersistentKeys: Set<String>
        ) {
            look("objectUpdate")
        }
    }

    @Test(arguments: StoreKind.sqlite)
    func everyCallbackReadsOtherMonitorsAtItsCommit(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        let first = try stack.perform(synchronous: { tx in
            let item = tx.create(Into<MonItem>())
            item.flag = true
            return item.objectID
        })
        let query = From<MonItem>().where(\.$flag == true).orderBy(.ascending(\.$rank))
        let before = try stack.monitorList(query)
        let listReader = Reader()
        let objectReader = Reader()
        let listed = try stack.monitorList(query)
        listed.addObserver(listReader)
        let watched = try stack.monitorObject(first)
        watched.addObserver(objectReader)
        let fieldReader = Reader()
        let item = try #require(try stack.fetchExisting(first))
        let token = item.$rank.observe { _, _ in fieldReader.look("field") }
        let after = try stack.monitorList(query)
        for reader in [listReader, objectReader, fieldReader] { reader.others = [before, after] }

        // One commit inserts a member and changes the watched one.
        try stack.perform(synchronous: { tx in
            tx.create(Into<MonItem>()).flag = true
            tx.edit(first)?.rank = 5
        })
        #expect(listReader.seen == ["willChange: [2, 2]", "insert: [2, 2]", "didChange: [2, 2]"])
        #expect(objectReader.seen == ["objectUpdate: [2, 2]"])
        #expect(fieldReader.seen == ["field: [2, 2]"])
        withExtendedLifetime(token) {}
    }
}
