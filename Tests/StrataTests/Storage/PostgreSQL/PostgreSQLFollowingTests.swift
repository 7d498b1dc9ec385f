import Foundation
import Testing

@testable import Strata
@testable import StrataPostgreSQL
import ThrowawayPostgreSQL

/// A stack observing a PostgreSQL store is woken by the server's commit
/// announcements (`LISTEN`/`NOTIFY`), not by polling: these tests set the
/// polling interval to an hour, so only an announcement can wake the monitor.
@MainActor
@Suite(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
struct PostgreSQLFollowingTests {
    /// Two stacks on one store, as two app servers would have.
    private func openStacks() throws -> (viewer: DataStack, writer: DataStack, directory: TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let viewer = try makeStack(monitorSchema, .postgreSQL, in: directory)
        viewer.pollingInterval = .seconds(3_600)
        let writer = try makeStack(monitorSchema, .postgreSQL, in: directory)
        return (viewer, writer, directory)
    }

    @Test
    func everyCommitOfAnotherStackReachesTheMonitorInOrder() async throws {
        let (viewer, writer, directory) = try openStacks()
        _ = directory
        let monitor = try viewer.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
        let checker = ReplayChecker(monitor)
        var random = SplitMix64(seed: 0x5EED_F011)
        var expected: [Int] = []
        for _ in 0..<20 {
            let ranks = (0..<Int(random.next() % 4 + 1)).map { _ in Int(random.next() % 1_000) }
            try writer.perform(synchronous: { tx in
                for rank in ranks { tx.create(Into<MonItem>()).rank = rank }
            })
            expected += ranks
        }
        try await waitUntil { monitor.numberOfObjects() == expected.count }
        #expect(monitor.objectsInAllSections().map(\.rank) == expected.sorted(), "seed \(random.seed)")
        #expect(checker.failures.isEmpty, "\(checker.failures)")
        #expect(viewer.mergedGeneration == (try writer.currentGeneration()))
    }

    /// The channel `strata:<schema>` of a schema named with 57 to 63 bytes
    /// passes 63 bytes, which the server refuses to notify: it is shortened
    /// as a long table name is, the same for the writer and the listener,
    /// so commits go through and reach the other stack. A schema name past
    /// 63 bytes, which the server would cut, is refused.
    @Test
    func aSchemaNameOf63BytesAnnouncesItsCommitsAndALongerOneIsRefused() async throws {
        let name = "strata_test_" + UUID().uuidString.lowercased() + String(repeating: "s", count: 20)
        func stack(_ schema: Substring) throws -> DataStack {
            let stack = DataStack(monitorSchema)
            let server = try PostgreSQLServer.shared()
            try stack.addStorageAndWait(
                PostgreSQLStore(connectionString: server.connectionString, schema: String(schema)))
            return stack
        }
        let (viewer, writer) = (try stack(name.prefix(63)), try stack(name.prefix(63)))
        viewer.pollingInterval = .seconds(3_600)
        let monitor = try viewer.monitorList(From<MonItem>())
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        try await waitUntil { monitor.numberOfObjects() == 1 }
        #expect(monitor.numberOfObjects() == 1)

        let error = #expect(throws: StrataError.self) { try stack(name.prefix(64)) }
        guard case let .storage(_, reason)? = error else {
            Issue.record("expected .storage, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("64 bytes") && reason.contains("at most 63 bytes"), "\(reason)")
    }

    @Test
    func theListenerStopsWhenNoObserverIsLeft() async throws {
        let (viewer, writer, directory) = try openStacks()
        _ = directory
        var monitor: ListMonitor<MonItem>? = try viewer.monitorList(From<MonItem>())
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        try await waitUntil { monitor?.numberOfObjects() == 1 }
        #expect(monitor?.numberOfObjects() == 1)
        let main = try #require(viewer.mainContexts.first)
        #expect(main.commitListener != nil, "listening while a monitor lives")
        monitor = nil
        // The next announcement finds no observer and stops the listener.
        try writer.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
        try await waitUntil { main.commitListener == nil }
        #expect(main.commitListener == nil)
        #expect(try viewer.fetchCount(From<MonItem>()) == 2, "reads still see every commit")
    }
}
