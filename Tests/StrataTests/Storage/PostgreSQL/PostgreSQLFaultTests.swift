import Foundation
import Testing

@testable import Strata
@testable import StrataPostgreSQL
import ThrowawayPostgreSQL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Faults on a PostgreSQL store (issue #16): the server restarted in the
/// middle of a run, a writer process killed in the middle of a commit. Each
/// test runs its own server (``PostgreSQLServer/start()``), which it
/// restarts, never the one the other suites share. The law they check:
/// a commit that returned is in the store, whole; one that failed, or whose
/// process died before COMMIT, left nothing; stacks connect again by
/// themselves and catch up.
@MainActor
@Suite(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
struct PostgreSQLFaultTests {
    // MARK: Sessions

    @Test
    func aSessionConnectsAgainAfterARestartWithItsPreparedStatements() throws {
        let server = try PostgreSQLServer.start()
        defer { server.stop() }
        let session = try PostgreSQLSession(connectionString: server.connectionString)
        try session.execute("CREATE TABLE t (i BIGINT)")
        let insert = try session.prepare("INSERT INTO t VALUES (?)")
        try insert.bind([.integer(1)])
        _ = try insert.step()
        try server.restart()
        // The first statement after the restart finds the connection closed,
        // connects again, and prepares the statement again on the new one.
        insert.reset()
        try insert.bind([.integer(2)])
        _ = try insert.step()
        let count = try session.prepare("SELECT count(*) FROM t")
        #expect(try count.step() && count.int64(at: 0) == 2)
        #expect(session.connectionNumber == 2)
    }

    @Test
    func aTransactionLostWithItsConnectionRunsNothingMoreUntilItEnds() throws {
        let server = try PostgreSQLServer.start()
        defer { server.stop() }
        let session = try PostgreSQLSession(connectionString: server.connectionString)
        try session.execute("CREATE TABLE t (i BIGINT)")
        let insert = try session.prepare("INSERT INTO t VALUES (?)")
        for end in ["ROLLBACK", "COMMIT"] {
            try session.execute("BEGIN")
            try insert.bind([.integer(1)])
            _ = try insert.step()
            try server.restart()
            // Not one statement meant for the transaction runs on a new
            // connection, outside it, where each would commit on its own.
            for attempt in 2...3 {
                insert.reset()
                do {
                    try insert.bind([.integer(Int64(attempt))])
                    _ = try insert.step()
                    Issue.record("\(end): statement \(attempt) ran after its transaction was lost")
                } catch let error as DatabaseError {
                    #expect(error.isConnectionFailure, "\(end): \(error)")
                }
                #expect(session.isInTransaction, "\(end): open until it ends")
            }
            #expect(throws: DatabaseError.self) { try session.prepare("SELECT 1") }
            // It ends as ROLLBACK says; a COMMIT of it fails.
            if end == "ROLLBACK" {
                try session.execute(end)
            } else {
                #expect(throws: DatabaseError.self) { try session.execute(end) }
            }
            #expect(!session.isInTransaction)
            let count = try session.prepare("SELECT count(*) FROM t")
            #expect(try count.step() && count.int64(at: 0) == 0, "\(end)")
        }
    }

    // MARK: A restart

    /// Where a restart cuts a transfer's transaction.
    enum Cut: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// The transaction has read (and taken the write lock), nothing written.
        case afterItsFirstRead
        /// Half the transfer is written to the server (a fetch flushed it).
        case afterAFlush
        /// As `afterAFlush`, then a read fails and the transaction swallows
        /// the error (`try?`) and goes on to commit.
        case afterASwallowedFailure
        /// Everything is written, the log record too; COMMIT is not sent.
        case beforeItsCommit

        var testDescription: String { rawValue }
    }

    @Test(arguments: Cut.allCases)
    func aTransactionCutByARestartFailsAsServerUnavailableAndSavesNothing(_ cut: Cut) throws {
        let (server, address) = try privateLedger()
        defer { server.stop() }
        let stack = try FaultLedger.open(at: address)
        try FaultLedger.seed(stack)
        let before = try LedgerState.read(at: address)
        if cut == .beforeItsCommit {
            // Once, for this test's store only: the other suites commit meanwhile.
            let store = address.storage.settings.displayPath
            StoreRuntime.commitStepHook.withLock { hook in
                hook = { step, runtime in
                    guard step == .written, runtime.path == store else { return }
                    StoreRuntime.commitStepHook.withLock { $0 = nil }
                    try? server.restart()
                }
            }
        }
        defer { if cut == .beforeItsCommit { StoreRuntime.commitStepHook.withLock { $0 = nil } } }
        let transfer = FaultLedger.Transfer(number: 0, source: 0, target: 1, amount: 7)
        do {
            try stack.perform(synchronous: { tx in
                let accounts = try FaultLedger.accounts(in: tx)
                if cut == .afterItsFirstRead { try server.restart() }
                accounts[transfer.source].balance -= transfer.amount
                if cut == .afterAFlush || cut == .afterASwallowedFailure {
                    _ = try tx.fetchCount(From<FaultTransfer>())  // flushes the debit
                    try server.restart()
                }
                if cut == .afterASwallowedFailure {
                    let count = try? tx.fetchCount(From<FaultTransfer>())
                    #expect(count == nil, "the read after the restart fails")
                }
                accounts[transfer.target].balance += transfer.amount
                FaultLedger.record(transfer, in: tx)
            })
            Issue.record("\(cut): the transfer committed")
        } catch {
            guard case .serverUnavailable = error else {
                Issue.record("\(cut): \(error)")
                return
            }
        }
        let after = try LedgerState.read(at: address)
        #expect(after == before, "\(cut): nothing of the transfer, nor a log record, was saved")
        #expect(after.problems().isEmpty, "\(cut): \(after.problems())")
        // The stack connects again by itself and carries on.
        let next = FaultLedger.Transfer(number: 1, source: 2, target: 3, amount: 11)
        try FaultLedger.commit(next, on: stack)
        let final = try LedgerState.read(at: address)
        #expect(final.numbers == [1] && final.generation == before.generation + 1, "\(cut)")
        #expect(final.problems().isEmpty, "\(cut): \(final.problems())")
        let accounts = try stack.fetchAll(From<FaultAccount>().orderBy(.ascending(\.$number)))
        #expect(accounts.map(\.balance) == final.balances, "\(cut): its reads come back too")
    }

    /// A viewer stack follows the ledger with monitors while a writer stack
    /// commits transfers, and the server restarts three times meanwhile.
    @Test
    func aServerRestartedMidRunLosesNoCommitAndHalfCommitsNone() async throws {
        let (server, address) = try privateLedger()
        defer { server.stop() }
        let writer = try FaultLedger.open(at: address)
        try FaultLedger.seed(writer)
        let viewer = try FaultLedger.open(at: address)
        viewer.pollingInterval = .seconds(3_600)  // only the listener wakes it
        let journal = try viewer.monitorList(From<FaultTransfer>().orderBy(.ascending(\.$number)))
        let accounts = try viewer.monitorList(From<FaultAccount>().orderBy(.ascending(\.$number)))
        let checker = ReplayChecker(journal)
        let run = TransferRun(writer, seed: 0x4E57_A47E)
        // The failure first met after a restart began: its COMMIT may have
        // reached the server just before it stopped, as with any connection
        // lost during COMMIT; the log then holds it.
        var inDoubt: Set<Int> = []
        for round in 1...3 {
            for _ in 0..<8 {
                if let error = run.attempt() {
                    Issue.record("round \(round), before the restart: \(error)")
                }
            }
            let firstFailure = run.failed.count
            let restart = BackgroundWork { try server.restart() }
            while !restart.isDone {
                _ = run.attempt()
                try await Task.sleep(for: .milliseconds(2))
            }
            try await restart.finish()
            if run.failed.count > firstFailure { inDoubt.insert(run.failed[firstFailure].number) }
            // Connections open again on next use: the next transfers commit.
            for _ in 0..<8 {
                if let error = run.attempt() {
                    Issue.record("round \(round), after the restart: \(error)")
                }
            }
        }
        for (number, error) in run.failed {
            if case .serverUnavailable = error { continue }
            Issue.record("transfer #\(number) failed with \(error), not serverUnavailable")
        }
        let state = try LedgerState.read(at: address)
        #expect(state.problems().isEmpty, "seed \(run.seed): \(state.problems())")
        let stored = Set(state.numbers)
        #expect(Set(run.committed).isSubset(of: stored), "every commit that returned is stored")
        // No failed transfer is in the store, but one whose COMMIT was cut.
        let storedFailures = stored.subtracting(run.committed).sorted()
        #expect(Set(storedFailures).isSubset(of: inDoubt), "\(storedFailures), in doubt \(inDoubt)")
        // The viewer, which never read, caught up from its listener's wakes.
        try await waitUntil { viewer.mergedGeneration == state.generation }
        #expect(viewer.mergedGeneration == state.generation, "seed \(run.seed)")
        #expect(journal.objectsInAllSections().map(\.number) == state.numbers)
        #expect(accounts.objectsInAllSections().map(\.balance) == state.balances)
        #expect(checker.failures.isEmpty, "\(checker.failures)")
        let fresh = try viewer.fetchAll(From<FaultTransfer>().orderBy(.ascending(\.$number)))
        #expect(journal.objectsInAllSections().map(\.rowID) == fresh.map(\.rowID))
    }

    /// The viewer's role may not log in while the server restarts and the
    /// writer commits: none of the viewer's connections is there to hear
    /// those commits. Once it may, its listener connects again and wakes it
    /// once, and that alone — the viewer never reads — brings its monitor
    /// up to the store.
    @Test
    func aViewerThatNeverReadsCatchesUpFromItsListenersReconnection() async throws {
        let (server, address) = try privateLedger()
        defer { server.stop() }
        let admin = try PostgreSQLSession(connectionString: server.connectionString)
        try admin.execute("CREATE ROLE strata_viewer LOGIN SUPERUSER")
        let writer = try FaultLedger.open(at: address)
        try FaultLedger.seed(writer)
        var random = SplitMix64(seed: 0x11_57E4)
        for number in 0..<3 { try FaultLedger.commit(.random(number: number, &random), on: writer) }
        guard case .postgreSQL(let connectionString, let schema) = address else { return }
        let viewerConnection = connectionString.replacingOccurrences(
            of: "user=strata", with: "user=strata_viewer")
        let viewer = try FaultLedger.open(
            at: .postgreSQL(connectionString: viewerConnection, schema: schema))
        viewer.pollingInterval = .seconds(3_600)
        let journal = try viewer.monitorList(From<FaultTransfer>().orderBy(.ascending(\.$number)))
        let checker = ReplayChecker(journal)
        #expect(journal.numberOfObjects() == 3)
        try admin.execute("ALTER ROLE strata_viewer NOLOGIN")
        try server.restart()
        for number in 3..<6 { try FaultLedger.commit(.random(number: number, &random), on: writer) }
        let generation = try writer.currentGeneration()
        // Nothing can wake the viewer while its role may not log in.
        try await Task.sleep(for: .milliseconds(600))
        #expect(journal.numberOfObjects() == 3)
        try admin.execute("ALTER ROLE strata_viewer LOGIN")
        try await waitUntil { viewer.mergedGeneration == generation }
        #expect(viewer.mergedGeneration == generation, "seed \(random.seed)")
        #expect(journal.objectsInAllSections().map(\.number) == Array(0..<6))
        #expect(checker.failures.isEmpty, "\(checker.failures)")
    }

    // MARK: A writer killed

    /// Three writer processes at a time commit transfers, each killing itself
    /// (SIGKILL) after a random delay, twice over: wherever each died —
    /// waiting for the write lock, holding it, in COMMIT — the store holds
    /// whole transfers only, and the lock went with the dead connection.
    @Test
    func writersKilledAtRandomLeaveNoPartialState() async throws {
        let (server, address) = try privateLedger()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        try FaultLedger.seed(FaultLedger.open(at: address))
        var random = SplitMix64(seed: 0xD1ED_5EED)
        var firsts: [Int] = []
        for round in 0..<2 {
            let children = (0..<3).map { index in ((round * 3 + index) * 100_000, random.next()) }
            firsts += children.map(\.0)
            await withTaskGroup(of: Void.self) { group in
                for (first, seed) in children {
                    let record = directory.file("committed \(first)").path
                    group.addTask(executorPreference: ThreadPerJobExecutor.shared) {
                        await #expect(processExitsWith: .signal(SIGKILL)) {
                            [address = address as StoreAddress, first = first as Int,
                             seed = seed as UInt64, record = record as String] in
                            try await MainActor.run {
                                try FaultChild.transferUntilKilled(
                                    at: address, first: first, seed: seed, record: record)
                            }
                        }
                    }
                }
            }
        }
        let state = try LedgerState.read(at: address)
        #expect(state.problems().isEmpty, "seed \(random.seed): \(state.problems())")
        for first in firsts {
            let file = directory.file("committed \(first)").path
            let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
            let returned = text.split(separator: "\n").compactMap { Int($0) }
            let stored = state.numbers.filter { $0 >= first && $0 < first + 100_000 }
            // Each child commits in order: the store holds the ones whose
            // commit returned, and at most the one its death cut after COMMIT.
            #expect(returned == Array(first..<(first + returned.count)), "child \(first)")
            #expect(stored == Array(first..<(first + stored.count)), "child \(first): \(stored)")
            #expect(stored.count == returned.count || stored.count == returned.count + 1,
                    "child \(first): committed \(returned.count), stored \(stored.count)")
        }
        try expectANewStackCommits(at: address, after: state)
    }

    @Test(arguments: [StoreRuntime.CommitStep.written, .committed])
    func aWriterKilledAtAStepOfItsCommitLeavesItWholeOrAbsent(
        _ step: StoreRuntime.CommitStep
    ) async throws {
        let (server, address) = try privateLedger()
        defer { server.stop() }
        try FaultLedger.seed(FaultLedger.open(at: address))
        let name = step.rawValue
        await Task(executorPreference: ThreadPerJobExecutor.shared) {
            _ = await #expect(processExitsWith: .signal(SIGKILL)) {
                [address = address as StoreAddress, name = name as String] in
                try await MainActor.run {
                    try FaultChild.dieDuringTransfer(at: address, before: 3, step: name)
                }
            }
        }.value
        let state = try LedgerState.read(at: address)
        #expect(state.problems().isEmpty, "\(step): \(state.problems())")
        #expect(state.numbers == (step == .written ? [0, 1, 2] : [0, 1, 2, 3]), "\(step)")
        try expectANewStackCommits(at: address, after: state)
    }

    // MARK: Helpers

    /// A server of this test's own and the address of a ledger on it.
    private func privateLedger() throws -> (PostgreSQLServer, StoreAddress) {
        let server = try PostgreSQLServer.start()
        return (server, .postgreSQL(connectionString: server.connectionString, schema: "ledger"))
    }

    /// A new stack opens the store and commits a transfer: no dead writer
    /// holds the write lock, and the ledger stays whole.
    private func expectANewStackCommits(at address: StoreAddress, after state: LedgerState) throws {
        let transfer = FaultLedger.Transfer(number: 9_999_999, source: 3, target: 0, amount: 1)
        try FaultLedger.commit(transfer, on: FaultLedger.open(at: address))
        let after = try LedgerState.read(at: address)
        #expect(after.numbers == (state.numbers + [transfer.number]).sorted())
        #expect(after.generation == state.generation + 1)
        #expect(after.problems().isEmpty, "\(after.problems())")
    }
}

/// A writer stack's transfers, numbered in order, and what became of each.
@MainActor
private final class TransferRun {
    let stack: DataStack
    let seed: UInt64
    private var random: SplitMix64
    private var next = 0
    private(set) var committed: [Int] = []
    private(set) var failed: [(number: Int, error: StrataError)] = []

    init(_ stack: DataStack, seed: UInt64) {
        self.stack = stack
        self.seed = seed
        random = SplitMix64(seed: seed)
    }

    /// Commits the next transfer; returns the error when it failed.
    func attempt() -> StrataError? {
        let transfer = FaultLedger.Transfer.random(number: next, &random)
        next += 1
        do {
            try FaultLedger.commit(transfer, on: stack)
            committed.append(transfer.number)
            return nil
        } catch {
            failed.append((transfer.number, error))
            return error
        }
    }
}

/// Blocking work (`pg_ctl`) on a thread of its own, so that the main actor
/// goes on committing and following meanwhile.
private final class BackgroundWork: Sendable {
    private let outcome = Locked<Result<Void, any Error>?>(nil)

    init(_ body: @escaping @Sendable () throws -> Void) {
        Thread.detachNewThread {
            let result = Result { try body() }
            self.outcome.withLock { $0 = result }
        }
    }

    var isDone: Bool { outcome.withLock { $0 != nil } }

    /// Waits until it is done, and throws what it threw.
    func finish() async throws {
        while !isDone { try await Task.sleep(for: .milliseconds(5)) }
        try outcome.withLock { $0! }.get()
    }
}

/// What the writer processes of the kill tests do.
enum FaultChild {
    /// Commits transfers numbered from `first`, appending each number to the
    /// file `record` once its commit returned, and kills itself (SIGKILL)
    /// at a random moment after the first.
    @MainActor
    static func transferUntilKilled(
        at address: StoreAddress, first: Int, seed: UInt64, record: String
    ) throws {
        let stack = try FaultLedger.open(at: address)
        var random = SplitMix64(seed: seed)
        let delay = useconds_t(random.next() % 60_000)
        let file = open(record, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var number = first
        while true {
            try FaultLedger.commit(.random(number: number, &random), on: stack)
            let line = Array("\(number)\n".utf8)
            _ = write(file, line, line.count)  // in the kernel once written: no kill loses it
            if number == first {
                Thread.detachNewThread {
                    usleep(delay)
                    kill(getpid(), SIGKILL)
                }
            }
            number += 1
        }
    }

    /// Commits `before` transfers, then dies at `step` of the next one's commit.
    @MainActor
    static func dieDuringTransfer(at address: StoreAddress, before: Int, step: String) throws {
        let stack = try FaultLedger.open(at: address)
        var random = SplitMix64(seed: 0x57E9)
        for number in 0..<before {
            try FaultLedger.commit(.random(number: number, &random), on: stack)
        }
        StoreRuntime.commitStepHook.withLock { hook in
            hook = { reached, _ in if reached.rawValue == step { kill(getpid(), SIGKILL) } }
        }
        try FaultLedger.commit(.random(number: before, &random), on: stack)
        kill(getpid(), SIGKILL)
    }
}
