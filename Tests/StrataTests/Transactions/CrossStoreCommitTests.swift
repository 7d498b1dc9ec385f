import Foundation
import Synchronization
@testable import Strata
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A ledger over three store files: each transfer moves one unit from the
// default store's account to the Savings store's and writes a note numbered
// after it in the Journal store. Whatever happens, the two balances add up
// to the total, and the Journal holds exactly the notes 1...balance(Savings).

final class LedgerAccount: ManagedObject {
    @Field.Stored("balance") var balance: Int = 0
}

final class LedgerNote: ManagedObject {
    @Field.Stored("number") var number: Int = 0
    @Field.Stored("amount") var amount: Double = 1
}

private let ledgerSchema = Schema("LedgerV1", entities: [
    Entity<LedgerAccount>("LedgerAccount", configurations: ["Savings"]),
    Entity<LedgerNote>("LedgerNote", configurations: ["Journal"]),
])

/// The ledger's stores, in store order.
private let ledgerConfigurations: [String?] = [nil, "Journal", "Savings"]

/// The ledger's total.
private let ledgerTotal = 1_000

/// What the ledger's three stores hold, read by a fresh stack.
private struct Ledger: Equatable, CustomStringConvertible {
    var source: Int
    var target: Int
    var notes: [Int]

    var description: String { "source \(source) target \(target) notes \(notes.count)" }

    /// Every transfer is whole: in all three stores or in none.
    var isWhole: Bool {
        source + target == ledgerTotal && notes == Array(0..<target).map { $0 + 1 }
    }

    @MainActor
    static func read(_ stack: DataStack) throws -> Ledger {
        Ledger(
            source: try stack.fetchOne(From<LedgerAccount>(nil))?.balance ?? -1,
            target: try stack.fetchOne(From<LedgerAccount>("Savings"))?.balance ?? -1,
            notes: try stack.fetchAll(From<LedgerNote>().orderBy(.ascending(\.$number))).map(\.number))
    }
}

/// The ledger's stack over the files in `folder`.
@MainActor
private func ledgerStack(in folder: String) throws -> DataStack {
    let stack = DataStack(ledgerSchema)
    for configuration in ledgerConfigurations {
        let url = URL(fileURLWithPath: folder).appendingPathComponent("\(configuration ?? "Default").sqlite")
        try stack.addStorageAndWait(SQLiteStore(fileURL: url, configuration: configuration))
    }
    return stack
}

/// Moves one unit and writes its note, in one transaction over the three stores.
@MainActor
private func transfer(_ stack: DataStack) throws {
    try stack.perform(synchronous: { tx in
        let source = try #require(try tx.fetchOne(From<LedgerAccount>(nil)))
        let target = try #require(try tx.fetchOne(From<LedgerAccount>("Savings")))
        source.balance -= 1
        target.balance += 1
        tx.create(Into<LedgerNote>("Journal")).number = target.balance
    })
}

/// The rows of a store's commit-coordination tables, read from its file.
private func coordinationRows(_ path: String) throws -> (pending: Int, completed: Int) {
    let connection = try Connection(path: path, readOnly: true, create: false)
    defer { connection.close() }
    func count(_ table: String) throws -> Int {
        guard case .integer(let count)? = try connection.scalar("SELECT count(*) FROM \(table)") else { return -1 }
        return Int(count)
    }
    return (try count("_strata_pending"), try count("_strata_completed"))
}

/// What the child of a crash test does: `before` transfers, then one more
/// that dies at `step`.
private enum LedgerCrashChild {
    @MainActor
    static func dieDuringTransfer(folder: String, before: Int, step: String) throws {
        let stack = try ledgerStack(in: folder)
        for _ in 0..<before { try transfer(stack) }
        CrossStoreCommit.stepHook.withLock { hook in
            hook = { reached in if "\(reached)" == step { kill(getpid(), SIGKILL) } }
        }
        try transfer(stack)
        kill(getpid(), SIGKILL)
    }
}

@MainActor
@Suite("Transactions: one commit over several stores, all or nothing")
struct CrossStoreCommitTests {
    /// A fresh ledger in a new folder.
    private func seededLedger() throws -> (TemporaryDirectory, DataStack) {
        let directory = TemporaryDirectory()
        let stack = try ledgerStack(in: directory.url.path)
        try stack.perform(synchronous: { tx in
            tx.create(Into<LedgerAccount>(nil)).balance = ledgerTotal
            tx.create(Into<LedgerAccount>("Savings")).balance = 0
        })
        return (directory, stack)
    }

    @Test
    func transfersOverThreeStoresAreWholeAndLeaveNoRecords() throws {
        let (directory, stack) = try seededLedger()
        for _ in 0..<20 { try transfer(stack) }
        let ledger = try Ledger.read(stack)
        #expect(ledger.isWhole && ledger.target == 20, "\(ledger)")
        // Each commit deletes the one before's pending rows: they never pile up.
        #expect(try coordinationRows(directory.file("Default.sqlite").path).pending == 2)
        // A fresh stack reads the same; opening it deleted the last commit's
        // pending rows; the markers of all but the last commit are gone too.
        #expect(try Ledger.read(try ledgerStack(in: directory.url.path)) == ledger)
        let files = ["Default", "Journal", "Savings"].map { directory.file("\($0).sqlite").path }
        #expect(try files.map { try coordinationRows($0).pending } == [0, 0, 0])
        #expect(try files.map { try coordinationRows($0).completed }.allSatisfy { $0 <= 1 })
    }

    /// A failure in any store's part, found while preparing, saves nothing anywhere.
    @Test
    func aFailureInTheLastStoresPartSavesNothingAnywhere() throws {
        // The folder is kept to the end: deleted, it would take the stores' files.
        let (directory, stack) = try seededLedger()
        defer { withExtendedLifetime(directory) {} }
        try transfer(stack)
        let before = try Ledger.read(stack)
        do {
            try stack.perform(synchronous: { tx in
                try #require(try tx.fetchOne(From<LedgerAccount>(nil))).balance -= 1
                try #require(try tx.fetchOne(From<LedgerAccount>("Savings"))).balance += 1
                // The last store's part fails when it is prepared: the value cannot be stored.
                tx.create(Into<LedgerNote>("Journal")).amount = .nan
            })
            Issue.record("a commit with a NaN committed")
        } catch {
            guard case .invalidValue = error else {
                Issue.record("unexpected \(error)")
                return
            }
        }
        #expect(try Ledger.read(stack) == before)
        try transfer(stack)
        #expect(try Ledger.read(stack).isWhole)
    }

    /// The child dies at each step of the commit; the stores, opened again,
    /// hold the transfer whole or not at all — and once the coordinator
    /// has committed, whole.
    @Test(arguments: ["prepared", "coordinatorCommitted", "participantsCommitted"])
    func aCrashAtAnyStepLeavesEveryTransferWhole(_ step: String) async throws {
        let (directory, stack) = try seededLedger()
        _ = stack
        let folder = directory.url.path
        await #expect(processExitsWith: .signal(SIGKILL)) { [folder = folder as String, step = step as String] in
            try await MainActor.run { try LedgerCrashChild.dieDuringTransfer(folder: folder, before: 3, step: step) }
        }
        let files = ["Default", "Journal", "Savings"].map { directory.file("\($0).sqlite").path }
        // As the crash left them: the coordinator holds two pending rows (one
        // per other store) — the cut-short commit's once it got that far,
        // else the last finished commit's, deleted with the next commit.
        let left = try files.map { try coordinationRows($0).pending }
        #expect(left == [2, 0, 0], "\(step)")
        // Opening them completes it.
        let reopened = try ledgerStack(in: folder)
        let ledger = try Ledger.read(reopened)
        #expect(ledger.isWhole, "\(step): \(ledger)")
        #expect(ledger.target == (step == "prepared" ? 3 : 4), "\(step): \(ledger)")
        #expect(try files.map { try coordinationRows($0).pending } == [0, 0, 0], "\(step)")
        // The stack that was open all along sees the same once it reads again, and goes on.
        #expect(try Ledger.read(stack) == ledger)
        try transfer(reopened)
        #expect(try Ledger.read(reopened).isWhole)
        #expect(try files.map { try coordinationRows($0).completed }.allSatisfy { $0 <= 1 })
    }

    /// Transactions that write the stores in opposite orders, on two
    /// threads at once, never wait for each other forever, and lose no update.
    @Test
    func transactionsWritingStoresInOppositeOrdersNeitherDeadlockNorLoseUpdates() async throws {
        let (directory, stack) = try seededLedger()
        defer { withExtendedLifetime(directory) {} }
        let rounds = 40
        await withTaskGroup(of: Void.self) { group in
            for forward in [true, false] {
                group.addTask {
                    for _ in 0..<rounds {
                        let tx = try! stack.beginUnsafe()
                        let configurations: [String?] = forward ? [nil, "Savings"] : ["Savings", nil]
                        for configuration in configurations {
                            let account = try! tx.fetchOne(From<LedgerAccount>(configuration))!
                            account.balance += configuration == nil ? -1 : 1
                        }
                        _ = try! tx.commitAndWait()
                    }
                }
            }
        }
        let ledger = try Ledger.read(stack)
        #expect(ledger.source == ledgerTotal - 2 * rounds && ledger.target == 2 * rounds, "\(ledger)")
    }
}
