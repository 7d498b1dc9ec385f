import CSQLite
import Foundation
@testable import Strata
import Testing

/// Runs `sql` on the store file with the SQLite C API, as a program that
/// does not use Strata would: no log record, no generation.
func writeBypassingStrata(_ sql: String, at url: URL) throws {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
        sqlite3_close(db)
        throw StrataError.storage(path: url.path, reason: "cannot open")
    }
    defer { sqlite3_close(db) }
    sqlite3_busy_timeout(db, 5_000)
    let code = sqlite3_exec(db, sql, nil, nil, nil)
    guard code == SQLITE_OK else {
        throw StrataError.sqlite(code: code, message: String(cString: sqlite3_errmsg(db)), sql: sql)
    }
}

/// A stack that watches items in every way there is, for refresh tests.
@MainActor
struct RefreshScene {
    let stack: DataStack
    let held: [MonItem]
    let list: ListMonitor<MonItem>
    let checker: ReplayChecker<MonItem>
    let kept: ObjectMonitor<MonItem>
    let keptEvents = ObjectEvents()
    let doomed: ObjectMonitor<MonItem>
    let doomedEvents = ObjectEvents()
    let publisher: ObjectPublisher<MonItem>
    let observation: FieldObservation
    let observedRanks: Box<[Int]>

    final class Box<Value> {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    /// Items ranked 0...4; the scene keeps the one ranked 0 and watches the one ranked 4 die.
    init(_ stack: DataStack) throws {
        self.stack = stack
        held = try stack.fetchAll(From<MonItem>().orderBy(.ascending(\.$rank)))
        list = try stack.monitorList(From<MonItem>().where(\.$rank < 100).orderBy(.descending(\.$rank)))
        checker = ReplayChecker(list)
        kept = try stack.monitorObject(held[0])
        kept.addObserver(keptEvents)
        doomed = try stack.monitorObject(held[4])
        doomed.addObserver(doomedEvents)
        publisher = try stack.publishObject(held[0])
        let ranks = Box<[Int]>([])
        observedRanks = ranks
        observation = held[0].$rank.observe { _, new in ranks.value.append(new) }
    }

    /// Checks that the scene shows the store as it is.
    func expectCurrent(at url: URL, _ comment: Comment) throws {
        let rows = try itemRows(in: SQLiteStore(fileURL: url))
        for item in held {
            if let row = rows[item.rowID] {
                #expect(!item.isDeletedObject && item.values == row, comment)
            } else {
                #expect(item.isDeletedObject, comment)
            }
        }
        let fresh = try stack.fetchAll(From<MonItem>().where(\.$rank < 100).orderBy(.descending(\.$rank)))
        #expect(list.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID), comment)
        #expect(checker.failures.isEmpty, comment)
    }
}

@MainActor
@Suite("Main context: refreshing when the log cannot tell what changed")
struct MainContextRefreshTests {
    /// A store of five items ranked 0...4, and a stack on it.
    func makeStore(_ directory: TemporaryDirectory) throws -> DataStack {
        let stack = try openStack(in: directory)
        try stack.perform(synchronous: { tx in
            for rank in 0..<5 { tx.create(Into<MonItem>()).rank = rank }
        })
        return stack
    }

    @Test
    func aWriteThatBypassesTheLogRefreshesObjectsMonitorsAndPublishers() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStore(directory)
        let scene = try RefreshScene(stack)
        let keptID = scene.held[0].rowID
        try writeBypassingStrata(
            "UPDATE MonItem SET rank = 50 WHERE _pk = \(keptID); DELETE FROM MonItem WHERE rank = 4; "
                + "INSERT INTO MonItem (_pk, \"group\", rank, flag) VALUES (1000, 0, 7, 0)",
            at: storeURL(in: directory))
        // Another process's commit shows from the next main-actor job; its
        // first read notices the file changed with no commit logged.
        await Task.yield()
        _ = try stack.fetchCount(From<MonOwner>())
        try scene.expectCurrent(at: storeURL(in: directory), "after the bypass")
        #expect(scene.held[0].rank == 50)
        #expect(scene.held[4].isDeletedObject)
        #expect(scene.checker.refetches == 1, "the list re-fetched, with willRefetch/didRefetch")
        #expect(scene.list.objectsInAllSections().map(\.rank) == [50, 7, 3, 2, 1])
        #expect(scene.keptEvents.updates == 1, "\(scene.keptEvents.updates)")
        #expect(!scene.keptEvents.deleted)
        #expect(scene.doomedEvents.deleted)
        #expect(scene.publisher.snapshot?.$rank == 50)
        #expect(scene.observedRanks.value == [50])
        #expect(stack.mergedGeneration == 1, "no commit was logged: the generation stays")
    }

    @Test
    func theWatcherNoticesABypassWriteWithNoRead() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStore(directory)
        stack.pollingInterval = .milliseconds(5)
        let scene = try RefreshScene(stack)
        try writeBypassingStrata("UPDATE MonItem SET rank = 60 WHERE rank = 0", at: storeURL(in: directory))
        try await waitUntil { scene.checker.refetches > 0 }
        #expect(scene.checker.refetches == 1)
        #expect(scene.held[0].rank == 60)
    }

    /// The stated limit: the data version moves once for any number of
    /// commits between two looks, so a bypass write in the same interval as
    /// a logged commit hides behind it. The next bypass-only change, or any
    /// refresh, brings the row back in line.
    @Test
    func aBypassWriteInTheSameIntervalAsALoggedCommitIsNotSeen() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStore(directory)
        let other = try openStack(in: directory)
        let scene = try RefreshScene(stack)
        try writeBypassingStrata("UPDATE MonItem SET rank = 70 WHERE rank = 0", at: storeURL(in: directory))
        try other.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 5 })
        _ = try stack.fetchCount(From<MonOwner>())
        #expect(stack.mergedGeneration == 2, "the logged commit is merged")
        #expect(scene.held[0].rank == 0, "the bypass write behind it is not seen")
        #expect(scene.checker.refetches == 0)
        try writeBypassingStrata("UPDATE MonItem SET rank = 8 WHERE rank = 3", at: storeURL(in: directory))
        await Task.yield()  // another process's commit shows from the next main-actor job
        _ = try stack.fetchCount(From<MonOwner>())
        #expect(scene.checker.refetches == 1)
        try scene.expectCurrent(at: storeURL(in: directory), "after the next bypass-only change")
        #expect(scene.held[0].rank == 70)
    }

    @Test
    func aStackBehindPurgedHistoryRefreshes() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStore(directory)
        let other = try openStack(in: directory)
        let scene = try RefreshScene(stack)
        try other.perform(synchronous: { tx in
            try tx.fetchOne(From<MonItem>().where(\.$rank == 0))!.rank = 20
        })
        try other.perform(synchronous: { tx in tx.delete(try tx.fetchOne(From<MonItem>().where(\.$rank == 4))!) })
        try other.purgeHistory(through: try other.currentGeneration())
        _ = try stack.fetchCount(From<MonOwner>())
        #expect(scene.checker.refetches == 1)
        try scene.expectCurrent(at: storeURL(in: directory), "behind the horizon")
        #expect(scene.doomedEvents.deleted && scene.keptEvents.updates == 1)
        #expect(stack.mergedGeneration == (try other.currentGeneration()))
        // Following goes on commit by commit after the refresh.
        try other.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 9 })
        _ = try stack.fetchCount(From<MonOwner>())
        #expect(scene.checker.refetches == 1 && scene.checker.batches == 1)
        try scene.expectCurrent(at: storeURL(in: directory), "after the refresh")
    }

    @Test
    func aReadOnlyStoreWithoutALogRefreshesOnEveryChange() async throws {
        let directory = TemporaryDirectory()
        do {
            _ = try makeStore(directory)
        }
        try writeBypassingStrata(
            "DROP TABLE _strata_log; DELETE FROM _strata_meta WHERE key = 'log_horizon'", at: storeURL(in: directory))
        let stack = DataStack(monitorSchema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory), isReadOnly: true))
        let scene = try RefreshScene(stack)
        try writeBypassingStrata("UPDATE MonItem SET rank = 30 WHERE rank = 0", at: storeURL(in: directory))
        await Task.yield()  // another process's commit shows from the next main-actor job
        _ = try stack.fetchCount(From<MonOwner>())
        #expect(scene.checker.refetches == 1)
        #expect(scene.held[0].rank == 30)
        #expect(try stack.history().isEmpty)
        // Opened read-only, the store did not gain a log.
        let rows = try Connection(path: storeURL(in: directory).path, readOnly: true)
            .scalar("SELECT count(*) FROM sqlite_master WHERE name = '_strata_log'")
        #expect(rows == .integer(0))
    }
}
