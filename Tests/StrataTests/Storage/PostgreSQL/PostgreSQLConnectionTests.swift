import Foundation
@testable import Strata
@testable import StrataPostgreSQL
import Testing
import ThrowawayPostgreSQL

/// Law: a stack's connections to the server (writer, reader, commit
/// listener) end with the stack, or when its store is removed; nothing a
/// test typically does with a stack leaves a client connected.
///
/// Each test starts a private server, so that the count of client backends
/// is its own, whatever else runs in parallel. The counts are waited for
/// without yielding the main actor: connections must close when their
/// stack goes, not when the main actor comes to a job left behind for it
/// (in a parallel test run the main actor is busy with other tests for long
/// stretches, and connections waiting for it piled up past 300).
@MainActor
@Suite(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
struct PostgreSQLConnectionTests {
    /// A private server and a session of the test's own, which counts the
    /// other client backends of the test's database. Not a baseline taken
    /// at the start: `createdb`'s backend (in another database) can still be
    /// exiting then, under load, and a count one too high never settled.
    private final class Backends {
        let server: PostgreSQLServer
        let session: PostgreSQLSession

        init() throws {
            server = try PostgreSQLServer.start()
            do {
                session = try PostgreSQLSession(connectionString: server.connectionString)
            } catch {
                server.stop()
                throw error
            }
        }

        func stop() {
            session.close()
            server.stop()
        }

        /// A store in `schema` of the private server.
        func store(_ schema: String = "leak") -> PostgreSQLStore {
            PostgreSQLStore(connectionString: server.connectionString, schema: schema)
        }

        /// The client backends connected to the test's database now, not
        /// counting the counting session's own.
        func count() throws -> Int {
            let statement = try session.prepare("""
                SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'
                AND datname = current_database() AND pid <> pg_backend_pid()
                """)
            return try statement.step() ? Int(statement.int64(at: 0)) : -1
        }

        /// Waits, holding the caller's actor, until `expected` client
        /// backends are connected (a backend exits after its client hangs
        /// up, and the listener connects and stops on a thread of its own);
        /// returns how many there are then. At most two minutes: a liveness
        /// guard far beyond what a loaded machine takes, not a timing
        /// assertion, so that a connection too many fails the test instead
        /// of hanging it.
        func settle(at expected: Int) throws -> Int {
            var now = try count()
            for _ in 0..<6_000 where now != expected {
                usleep(20_000)
                now = try count()
            }
            return now
        }
    }

    /// A stack on `storage`, polled never: only the server's announcements wake it.
    private func openStack(_ storage: PostgreSQLStore) throws -> DataStack {
        let stack = DataStack(monitorSchema)
        stack.pollingInterval = .seconds(3_600)
        try stack.addStorageAndWait(storage)
        return stack
    }

    @Test
    func aStackReleasedWithoutObserversClosesItsConnections() async throws {
        let backends = try Backends()
        defer { backends.stop() }
        weak var released: DataStack?
        do {
            let stack = try openStack(backends.store())
            released = stack
            _ = try await stack.perform { tx in tx.create(Into<MonItem>()).rank = 0 }
            try stack.perform(synchronous: { tx in
                for rank in 1...3 { tx.create(Into<MonItem>()).rank = rank }
            })
            #expect(try stack.fetchAll(From<MonItem>()).count == 4)
            #expect(try backends.settle(at: 2) == 2, "a writer and a reader")
        }
        #expect(released == nil, "nothing keeps the stack, not even a merge the commit asked for")
        #expect(try backends.settle(at: 0) == 0)
    }

    @Test
    func aStackReleasedWhileMonitorsLiveClosesItsConnectionsWithTheMonitors() throws {
        let backends = try Backends()
        defer { backends.stop() }
        weak var releasedStack: DataStack?
        weak var releasedMain: MainContext?
        var list: ListMonitor<MonItem>?
        var single: ObjectMonitor<MonItem>?
        let observer = RecordingObserver()
        do {
            let stack = try openStack(backends.store())
            releasedStack = stack
            releasedMain = stack.mainContexts.first
            let id = try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).objectID })
            list = try stack.monitorList(From<MonItem>().orderBy(.ascending(\.$rank)))
            list?.addObserver(observer)
            single = try stack.monitorObject(id)
            #expect(try backends.settle(at: 3) == 3, "a writer, a reader and the listener")
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        }
        #expect(releasedStack == nil, "the monitors keep the main context, not the stack")
        #expect(try backends.settle(at: 3) == 3, "the monitors still follow the store")
        #expect(list?.numberOfObjects() == 2 && single?.object != nil)
        list = nil
        single = nil
        #expect(releasedMain == nil, "nothing else keeps the main context")
        #expect(try backends.settle(at: 0) == 0)
    }

    @Test
    func removingTheStoreClosesEveryConnectionWhileTheStackAndMonitorsLive() throws {
        let backends = try Backends()
        defer { backends.stop() }
        let stack = try openStack(backends.store())
        let id = try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).objectID })
        let list = try stack.monitorList(From<MonItem>())
        let observer = RecordingObserver()
        list.addObserver(observer)
        let single = try stack.monitorObject(id)
        #expect(try backends.settle(at: 3) == 3, "a writer, a reader and the listener")
        try stack.removeStorage()
        #expect(try backends.settle(at: 0) == 0)
        // The removed store's main context, which the monitors keep, starts
        // no listener for an observer added after it closed.
        let observation = try #require(single.object).$rank.observe { _, _ in }
        #expect(single.main.commitListener == nil)
        observation.cancel()
        // Added again, the store connects again: no listener without an observer.
        try stack.addStorageAndWait(backends.store())
        #expect(try backends.settle(at: 2) == 2)
        try stack.removeStorage()
        #expect(try backends.settle(at: 0) == 0)
        withExtendedLifetime((list, single, observer)) {}  // alive throughout
    }

    @Test
    func failedTransactionsLeaveNoConnectionBehind() async throws {
        struct Refusal: Error {}
        let backends = try Backends()
        defer { backends.stop() }
        do {
            let stack = try openStack(backends.store())
            let list = try stack.monitorList(From<MonItem>())
            #expect(try backends.settle(at: 3) == 3)
            #expect(throws: StrataError.self) {
                try stack.perform(synchronous: { tx in
                    tx.create(Into<MonItem>()).rank = 1
                    throw Refusal()
                })
            }
            // PostgreSQL's text cannot hold NUL: the commit itself fails.
            #expect(throws: StrataError.self) {
                try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).label = "a\0b" })
            }
            await #expect(throws: StrataError.self) {
                try await stack.perform { tx in tx.create(Into<MonItem>()).label = "c\0d" }
            }
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
            #expect(try stack.fetchCount(From<MonItem>()) == 1)
            #expect(list.numberOfObjects() == 1)
            #expect(try backends.settle(at: 3) == 3, "no connection more than before")
        }
        #expect(try backends.settle(at: 0) == 0)
    }

    @Test
    func aStoreThatFailsToOpenLeavesNoConnectionBehind() throws {
        let backends = try Backends()
        defer { backends.stop() }
        do {
            let stack = try openStack(backends.store())
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
            // Another schema, same store: refused after the writer connected.
            let other = DataStack(membersTestSchema)
            #expect(throws: StrataError.self) { try other.addStorageAndWait(backends.store()) }
            #expect(try backends.settle(at: 2) == 2, "the first stack's only")
        }
        #expect(try backends.settle(at: 0) == 0)
    }
}
