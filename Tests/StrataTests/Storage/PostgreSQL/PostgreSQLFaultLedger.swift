import Foundation
@testable import Strata
import Testing

// The fault tests' ledger: accounts, and a journal of transfers, one a
// transaction, each moving an amount from one account to another. Whatever
// a fault cuts short, every account holds its opening balance plus what the
// journal moved in and out of it, and the commit log holds one record a
// transfer, which inserts its journal row and updates its two accounts.

final class FaultAccount: ManagedObject {
    @Field.Stored("number") var number: Int = 0
    @Field.Stored("balance") var balance: Int = 0
}

final class FaultTransfer: ManagedObject {
    @Field.Stored("number") var number: Int = 0
    @Field.Stored("source") var source: Int = 0
    @Field.Stored("target") var target: Int = 0
    @Field.Stored("amount") var amount: Int = 0
}

enum FaultLedger {
    static let schema = Schema("FaultLedgerV1", entities: [
        Entity<FaultAccount>("FaultAccount"),
        Entity<FaultTransfer>("FaultTransfer"),
    ])
    static let accounts = 4
    static let openingBalance = 1_000

    /// One transfer: `amount` from account `source` to account `target`,
    /// `number` naming it in the journal.
    struct Transfer: Hashable, Sendable, CustomStringConvertible {
        var number: Int
        var source: Int
        var target: Int
        var amount: Int

        var description: String { "#\(number) \(amount) \(source)→\(target)" }

        /// A transfer between two different accounts, drawn from `random`.
        static func random(number: Int, _ random: inout SplitMix64) -> Transfer {
            let source = Int(random.next() % UInt64(accounts))
            let target = (source + 1 + Int(random.next() % UInt64(accounts - 1))) % accounts
            let amount = Int(random.next() % 50) + 1
            return Transfer(number: number, source: source, target: target, amount: amount)
        }
    }

    /// A stack on the ledger at `address`.
    @MainActor
    static func open(at address: StoreAddress) throws -> DataStack {
        let stack = DataStack(schema)
        try stack.addStorageAndWait(address.storage)
        return stack
    }

    /// Opens the accounts: the ledger's first commit.
    @MainActor
    static func seed(_ stack: DataStack) throws {
        try stack.perform(synchronous: { tx in
            for number in 0..<accounts {
                let account = tx.create(Into<FaultAccount>())
                account.number = number
                account.balance = openingBalance
            }
        })
    }

    /// The accounts in `tx`, in number order.
    static func accounts(in tx: BaseDataTransaction) throws -> [FaultAccount] {
        try tx.fetchAll(From<FaultAccount>().orderBy(.ascending(\.$number)))
    }

    /// Writes the journal row of `transfer` in `tx`.
    static func record(_ transfer: Transfer, in tx: BaseDataTransaction) {
        let row = tx.create(Into<FaultTransfer>())
        row.number = transfer.number
        row.source = transfer.source
        row.target = transfer.target
        row.amount = transfer.amount
    }

    /// Commits `transfer` in a transaction of its own: reads the accounts,
    /// moves the amount, writes the journal row.
    @MainActor
    static func commit(_ transfer: Transfer, on stack: DataStack) throws(StrataError) {
        try stack.perform(synchronous: { tx in
            let accounts = try accounts(in: tx)
            accounts[transfer.source].balance -= transfer.amount
            accounts[transfer.target].balance += transfer.amount
            record(transfer, in: tx)
        })
    }
}

/// What a ledger's store holds, read by a new stack of its own (opening it
/// is part of the check: the store opens whatever a fault left).
struct LedgerState: Equatable {
    /// A journal row.
    struct Entry: Equatable {
        var transfer: FaultLedger.Transfer
        var rowID: Int64
    }

    /// Each account's balance, by account number.
    var balances: [Int] = []
    /// Each account's row ID, by account number.
    var accountRowIDs: [Int64] = []
    /// The journal: each transfer and its row ID, by transfer number.
    var transfers: [Int: Entry] = [:]
    /// The store's commit generation.
    var generation: UInt64 = 0
    /// The commit log.
    var records: [CommitRecord] = []

    @MainActor
    static func read(at address: StoreAddress) throws -> LedgerState {
        let stack = try FaultLedger.open(at: address)
        var state = LedgerState()
        let accounts = try stack.fetchAll(From<FaultAccount>().orderBy(.ascending(\.$number)))
        state.balances = accounts.map(\.balance)
        state.accountRowIDs = accounts.map(\.rowID)
        for row in try stack.fetchAll(From<FaultTransfer>()) {
            let transfer = FaultLedger.Transfer(
                number: row.number, source: row.source, target: row.target, amount: row.amount)
            state.transfers[row.number] = Entry(transfer: transfer, rowID: row.rowID)
        }
        state.generation = try stack.currentGeneration()
        state.records = try stack.history()
        return state
    }

    /// The transfer numbers in the journal, in order.
    var numbers: [Int] { transfers.keys.sorted() }

    /// What is wrong with the ledger, if anything: a balance the journal does
    /// not explain (half a transfer), a journal number twice, or a log that
    /// skips a generation or does not match the journal.
    func problems() -> [String] {
        var problems: [String] = []
        guard balances.count == FaultLedger.accounts else {
            return ["\(balances.count) accounts, not \(FaultLedger.accounts)"]
        }
        var expected = Array(repeating: FaultLedger.openingBalance, count: FaultLedger.accounts)
        for transfer in transfers.values.map(\.transfer) {
            expected[transfer.source] -= transfer.amount
            expected[transfer.target] += transfer.amount
        }
        if balances != expected {
            problems.append("the balances are \(balances), the journal makes them \(expected)")
        }
        let generations = records.map(\.generation)
        if generations != Array(1..<(generation + 1)) {
            problems.append(
                "the log holds generations \(generations.first ?? 0)...\(generations.last ?? 0) "
                    + "(\(generations.count) records), not each of 1...\(generation)")
        }
        guard let first = records.first,
              first.insertedRowIDs(entity: "FaultAccount") == Set(accountRowIDs)
        else { return problems + ["the first record does not open the accounts"] }
        let transfersByRowID = Dictionary(
            uniqueKeysWithValues: transfers.values.map { ($0.rowID, $0.transfer) })
        var logged: Set<Int64> = []
        for record in records.dropFirst() {
            let inserted = record.insertedRowIDs(entity: "FaultTransfer")
            guard inserted.count == 1, let rowID = inserted.first else {
                problems.append("record \(record.generation) inserts \(inserted.count) transfers")
                continue
            }
            logged.insert(rowID)
            guard let transfer = transfersByRowID[rowID] else {
                problems.append(
                    "record \(record.generation) inserts row \(rowID), which the journal lacks")
                continue
            }
            let moved = Set([transfer.source, transfer.target].map { accountRowIDs[$0] })
            let updated = record.updatedRowIDs(entity: "FaultAccount")
            if updated != moved {
                problems.append("record \(record.generation) of \(transfer) updates the accounts "
                    + "\(updated.sorted()), not \(moved.sorted())")
            }
        }
        let unlogged = Set(transfersByRowID.keys).subtracting(logged)
        if !unlogged.isEmpty {
            problems.append("no record inserts the journal's rows \(unlogged.sorted())")
        }
        return problems
    }
}
