import Foundation
import Testing

@testable import Strata

/// CoreStore's `TransactionTests` of unsafe transactions. A Strata unsafe
/// transaction holds the store's writer from its first read or write until
/// it commits or rolls back (ComingFromCoreStore.md, "Unsafe transactions
/// hold the writer"), which a test on one thread never notices; and it keeps
/// its objects across commits, so its later fetches give back the object it
/// created, which these ports check beyond CoreStore's checks.
extension CoreStoreTransactionPortTests {
    /// `test_ThatUnsafeTransactions_CanPerformCRUDs`: create, update and
    /// delete in one unsafe transaction, each saved by `commitAndWait()`,
    /// which returns with the main context merged.
    @Test(arguments: StoreKind.sqlite)
    func unsafeTransactionsPerformCRUDs(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let tx = try stack.beginUnsafe()
        let now = txPortNow()

        let object = tx.create(Into<PortEntity>())
        #expect(try txPortIsOwn(object, in: tx))
        TxPortValues.created(now).set(on: object)
        #expect(tx.hasChanges)
        try tx.commitAndWait()
        #expect(!tx.hasChanges)
        try txPortExpect(stack, holds: .created(now))
        let held = try #require(try stack.fetchOne(From<PortEntity>()))
        #expect(held !== object, "the main context has its own instance")
        #expect(try stack.fetchExisting(held) === held)

        let fetched = try #require(try tx.fetchOne(From<PortEntity>()))
        #expect(fetched === object, "the transaction keeps its objects across commits")
        TxPortValues.edit(fetched)
        #expect(tx.hasChanges)
        try tx.commitAndWait()
        try txPortExpect(stack, holds: .edited)
        #expect(TxPortValues(of: held) == .edited)

        tx.delete(try tx.fetchOne(From<PortEntity>()))
        #expect(tx.hasChanges)
        try tx.commitAndWait()
        try txPortExpect(stack, holds: nil)
        #expect(held.isDeletedObject)
    }

    /// `test_ThatUnsafeTransactions_CanPerformCRUDsInCorrectConfiguration`.
    @Test(arguments: StoreKind.sqlite)
    func unsafeTransactionsPerformCRUDsInTheirConfiguration(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try txPortConfigStack(kind, in: directory)
        let config1 = From<PortEntity>("Config1")
        let tx = try stack.beginUnsafe()
        let now = txPortNow()

        TxPortValues.created(now).set(on: tx.create(Into<PortEntity>("Config1")))
        #expect(tx.hasChanges)
        try tx.commitAndWait()
        try txPortExpect(stack, config1, holds: .created(now))
        try txPortExpect(stack, From<PortEntity>(nil), holds: nil)

        let object = try #require(try tx.fetchOne(config1))
        TxPortValues.edit(object)
        #expect(tx.hasChanges)
        try tx.commitAndWait()
        try txPortExpect(stack, config1, holds: .edited)
        try txPortExpect(stack, From<PortEntity>(nil), holds: nil)

        // Beyond CoreStore's checks: a rollback over both stores undoes both.
        TxPortValues.created(now).set(on: object)
        TxPortValues.created(now).set(on: tx.create(Into<PortEntity>(nil)))
        #expect(try tx.fetchCount(From<PortEntity>()) == 2)
        tx.rollback()
        #expect(!tx.hasChanges)
        #expect(TxPortValues(of: object) == .edited)
        #expect(try tx.fetchCount(From<PortEntity>(nil)) == 0)
        try txPortExpect(stack, config1, holds: .edited)
        try txPortExpect(stack, From<PortEntity>(nil), holds: nil)

        tx.delete(try tx.fetchOne(config1))
        #expect(tx.hasChanges)
        try tx.commitAndWait()
        try txPortExpect(stack, config1, holds: nil)
        try txPortExpect(stack, From<PortEntity>(nil), holds: nil)
    }

    /// `test_ThatUnsafeTransactions_CanRollbackChanges`: a rolled-back
    /// create, update and delete leave the transaction and the stack as the
    /// last commit left them. CoreStore begins the transaction with
    /// `supportsUndo: true`; Strata's `rollback()` works without it too (a
    /// documented difference: ComingFromCoreStore.md, `tx.rollback()`), so
    /// both are run. Beyond CoreStore's checks: the transaction's own object
    /// takes back its committed values, and is no longer deleted.
    @Test(arguments: StoreKind.sqlite, [true, false])
    func unsafeTransactionsRollBackChanges(_ kind: StoreKind, supportsUndo: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let observer = PortListRecorder()
        let monitor = try stack.monitorList(From<PortEntity>(), OrderBy<PortEntity>(.ascending("testEntityID")))
        monitor.addObserver(observer)
        let tx = try stack.beginUnsafe(supportsUndo: supportsUndo)

        TxPortValues.created(Date()).set(on: tx.create(Into<PortEntity>()))
        tx.rollback()
        #expect(!tx.hasChanges)
        #expect(try tx.fetchCount(From<PortEntity>()) == 0)
        #expect(try tx.fetchOne(From<PortEntity>()) == nil)
        try txPortExpect(stack, holds: nil)

        let now = txPortNow()
        let object = tx.create(Into<PortEntity>())
        TxPortValues.created(now).set(on: object)
        #expect(tx.hasChanges)
        try tx.commitAndWait()

        TxPortValues.edit(try #require(try tx.fetchOne(From<PortEntity>())))
        tx.rollback()
        #expect(!tx.hasChanges)
        #expect(try tx.fetchCount(From<PortEntity>()) == 1)
        let afterEdit = try #require(try tx.fetchOne(From<PortEntity>()))
        #expect(TxPortValues(of: afterEdit) == .created(now))
        #expect(afterEdit === object)
        try txPortExpect(stack, holds: .created(now))

        let toDelete = try #require(try tx.fetchOne(From<PortEntity>()))
        tx.delete(toDelete)
        #expect(object.isDeletedObject)
        #expect(tx.canUndo == supportsUndo)
        tx.rollback()
        #expect(!tx.hasChanges)
        #expect(!tx.canUndo && !tx.canRedo, "a rollback ends the undo history, as Core Data's does")
        #expect(!object.isDeletedObject)
        #expect(try tx.fetchCount(From<PortEntity>()) == 1)
        let afterDelete = try #require(try tx.fetchOne(From<PortEntity>()))
        #expect(TxPortValues(of: afterDelete) == .created(now))
        #expect(afterDelete === object)
        try txPortExpect(stack, holds: .created(now))
        // Beyond CoreStore's checks: observers hear of the one commit only.
        #expect(observer.events == ["willChange", "insert #1 at 0.0", "didChange"])
        #expect(monitor.numberOfObjects() == 1)
    }
}
