import Foundation
import Testing

@testable import Strata

// MARK: What the transaction ports share

/// CoreStore's test model with its "Config1" configuration: ``PortEntity``
/// (CoreStore's `TestEntity1`) in the default configuration and in "Config1".
let txPortConfigSchema = Schema(
    "TxPortConfig1", entities: [Entity<PortEntity>("PortEntity", configurations: ["Config1"])])

/// CoreStore's `prepareStack(configurations: [nil, "Config1"])`: a stack of
/// ``txPortConfigSchema`` with a store of the default configuration and one of "Config1".
@MainActor
func txPortConfigStack(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
    let stack = DataStack(txPortConfigSchema)
    for configuration in [nil, "Config1"] as [String?] {
        try stack.addStorageAndWait(configurationStorage(configuration, kind, in: directory))
    }
    return stack
}

/// `Date()` to the millisecond. CoreStore's tests store `Date()` and expect
/// the very same date back; Strata keeps a date as seconds since 1970, exact
/// to about a quarter of a microsecond, so an arbitrary instant may come
/// back one unit in the last place away, while a millisecond date comes
/// back exactly (a documented difference: ComingFromCoreStore.md, "Dates
/// are exact to about a quarter of a microsecond").
func txPortNow() -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
}

/// The four fields CoreStore's transaction tests set and check, read from one object.
extension TxPortValues {
    init(of object: PortEntity) {
        self.init(
            testEntityID: object.testEntityID, testString: object.testString,
            testNumber: object.testNumber, testDate: object.testDate)
    }
}

/// The four fields CoreStore's transaction tests set and check.
struct TxPortValues: Equatable, Sendable, CustomStringConvertible {
    var testEntityID: Int?
    var testString: String?
    var testNumber: Int?
    var testDate: Date?

    /// What CoreStore's tests create: ID 1, "string1", 100 and `date`.
    static func created(_ date: Date) -> TxPortValues {
        TxPortValues(testEntityID: 1, testString: "string1", testNumber: 100, testDate: date)
    }

    /// What CoreStore's tests change the created object to.
    static let edited = TxPortValues(
        testEntityID: 1, testString: "string1_edit", testNumber: 200, testDate: .distantFuture)

    /// Sets every field of `object` to these values.
    func set(on object: PortEntity) {
        object.testEntityID = testEntityID
        object.testString = testString
        object.testNumber = testNumber
        object.testDate = testDate
    }

    /// CoreStore's edit of an object it created: the string, number and date.
    static func edit(_ object: PortEntity) {
        object.testString = edited.testString
        object.testNumber = edited.testNumber
        object.testDate = edited.testDate
    }

    var description: String {
        "\(testEntityID.map(String.init) ?? "nil") \(testString ?? "nil") "
            + "\(testNumber.map(String.init) ?? "nil") \(testDate.map { "\($0.timeIntervalSince1970)" } ?? "nil")"
    }
}

/// CoreStore's checks after a commit: how many objects `from` finds on the
/// stack's main context, one or none, and the values of the one.
@MainActor
func txPortExpect(
    _ stack: DataStack, _ from: From<PortEntity> = From<PortEntity>(), holds expected: TxPortValues?,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(try stack.fetchCount(from) == (expected == nil ? 0 : 1), sourceLocation: sourceLocation)
    let object = try stack.fetchOne(from)
    #expect(object.map(TxPortValues.init(of:)) == expected, sourceLocation: sourceLocation)
}

/// What a transaction saw of its own objects: whether `edit` and
/// `fetchExisting` give back the object it created (CoreStore's check that
/// the object's fetch and query sources are the transaction's context).
func txPortIsOwn(_ object: PortEntity, in transaction: BaseDataTransaction) throws -> Bool {
    let existing = try transaction.fetchExisting(object)
    return transaction.edit(object) === object && existing === object
}

/// CoreStore's `TransactionTests`, ported on ``PortEntity`` (its
/// `TestEntity1`). CoreStore checks that a transaction's objects come from
/// the transaction's context and fetched ones from the main context
/// (`fetchSource()`, `querySource()`); Strata has no context to compare, so
/// the ports check identity instead: the transaction's `edit` and
/// `fetchExisting` give back the object it made, and the stack's
/// `fetchExisting` the object the stack fetched. `transaction.context`,
/// `unsafeContext()`, `isTransactionContext` and `isDataStackContext` are
/// Core Data plumbing Strata has none of (ComingFromCoreStore.md: "not in
/// Strata"). Dates are millisecond dates (``txPortNow()``).
@MainActor
@Suite("CoreStore port: TransactionTests")
struct CoreStoreTransactionPortTests {
    // MARK: Synchronous

    /// `test_ThatSynchronousTransactions_CanPerformCRUDs`. Beyond CoreStore's
    /// checks: an object the main context holds follows each commit.
    @Test(arguments: StoreKind.sqlite)
    func synchronousTransactionsPerformCRUDs(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let now = txPortNow()

        let created = try stack.perform(synchronous: { tx in
            let object = tx.create(Into<PortEntity>())
            let isOwn = try txPortIsOwn(object, in: tx)
            TxPortValues.created(now).set(on: object)
            return (hasChanges: tx.hasChanges, isOwn: isOwn)
        }, waitForAllObservers: true)
        #expect(created.hasChanges)
        #expect(created.isOwn)
        try txPortExpect(stack, holds: .created(now))
        let held = try #require(try stack.fetchOne(From<PortEntity>()))
        #expect(try stack.fetchExisting(held) === held, "a fetched object is the main context's")

        let updated = try stack.perform(synchronous: { tx in
            guard let object = try tx.fetchOne(From<PortEntity>()) else { try tx.cancel() }
            TxPortValues.edit(object)
            return tx.hasChanges
        }, waitForAllObservers: true)
        #expect(updated)
        try txPortExpect(stack, holds: .edited)
        #expect(TxPortValues(of: held) == .edited)

        let deleted = try stack.perform(synchronous: { tx in
            tx.delete(try tx.fetchOne(From<PortEntity>()))
            // Beyond CoreStore's checks: the transaction's reads leave out what it deleted.
            let left = try tx.fetchCount(From<PortEntity>())
            return (hasChanges: tx.hasChanges, left: left, found: try tx.fetchOne(From<PortEntity>()) != nil)
        })
        #expect(deleted.hasChanges)
        #expect(deleted.left == 0)
        #expect(!deleted.found)
        try txPortExpect(stack, holds: nil)
        #expect(held.isDeletedObject)
    }

    /// `test_ThatSynchronousTransactions_CanPerformCRUDs` with CoreStore's
    /// own date, `Date()`: where CoreStore reads back the very same date,
    /// Strata reads back one within about a quarter of a microsecond (the
    /// documented difference ``txPortNow()`` names), on the transaction's
    /// object and on the main context's.
    @Test(arguments: StoreKind.sqlite)
    func synchronousTransactionsKeepAnArbitraryDateToAQuarterMicrosecond(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let date = Date()
        let onTransaction = try stack.perform(synchronous: { tx in
            let object = tx.create(Into<PortEntity>())
            object.testDate = date
            return object.testDate
        })
        let onMain = try stack.fetchOne(From<PortEntity>())?.testDate
        for readBack in [onTransaction, onMain] {
            let error = abs((readBack ?? .distantPast).timeIntervalSince(date))
            #expect(error < 0.000_000_5, "\(String(describing: readBack)) for \(date)")
        }
    }

    /// `test_ThatSynchronousTransactions_CanPerformCRUDsInCorrectConfiguration`:
    /// the object goes to the "Config1" store and only there.
    @Test(arguments: StoreKind.sqlite)
    func synchronousTransactionsPerformCRUDsInTheirConfiguration(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try txPortConfigStack(kind, in: directory)
        let config1 = From<PortEntity>("Config1")
        let now = txPortNow()

        let created = try stack.perform(synchronous: { tx in
            TxPortValues.created(now).set(on: tx.create(Into<PortEntity>("Config1")))
            return tx.hasChanges
        })
        #expect(created)
        try txPortExpect(stack, config1, holds: .created(now))
        try txPortExpect(stack, From<PortEntity>(nil), holds: nil)

        let updated = try stack.perform(synchronous: { tx in
            guard let object = try tx.fetchOne(config1) else { try tx.cancel() }
            TxPortValues.edit(object)
            return tx.hasChanges
        })
        #expect(updated)
        try txPortExpect(stack, config1, holds: .edited)
        try txPortExpect(stack, From<PortEntity>(nil), holds: nil)
        try txPortExpect(stack, From<PortEntity>(), holds: .edited)

        let deleted = try stack.perform(synchronous: { tx in
            tx.delete(try tx.fetchOne(config1))
            return tx.hasChanges
        })
        #expect(deleted)
        try txPortExpect(stack, config1, holds: nil)
        try txPortExpect(stack, From<PortEntity>(nil), holds: nil)
    }

    /// `test_ThatSynchronousTransactions_CanDiscardUncommittedChanges`: a
    /// create, an update and a delete that each end in `cancel()` save
    /// nothing. CoreStore ignores the error (`try?`); its asynchronous
    /// counterpart checks it is `userCancelled`, and so does this port.
    @Test(arguments: StoreKind.sqlite)
    func synchronousTransactionsDiscardUncommittedChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        // Beyond CoreStore's checks: observers hear of the one commit only.
        let observer = PortListRecorder()
        let monitor = try stack.monitorList(From<PortEntity>(), OrderBy<PortEntity>(.ascending("testEntityID")))
        monitor.addObserver(observer)

        let createDiscarded = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                TxPortValues.created(Date()).set(on: tx.create(Into<PortEntity>()))
                try tx.cancel()
            })
        }
        #expect(createDiscarded == .userCancelled)
        try txPortExpect(stack, holds: nil)

        let now = txPortNow()
        try stack.perform(synchronous: { tx in TxPortValues.created(now).set(on: tx.create(Into<PortEntity>())) })
        // Beyond CoreStore's checks: an object the main context holds is left as it was.
        let held = try #require(try stack.fetchOne(From<PortEntity>()))

        let updateDiscarded = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                guard let object = try tx.fetchOne(From<PortEntity>()) else { return }
                TxPortValues.edit(object)
                try tx.cancel()
            })
        }
        #expect(updateDiscarded == .userCancelled)
        try txPortExpect(stack, holds: .created(now))

        let deleteDiscarded = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                guard let object = try tx.fetchOne(From<PortEntity>()) else { return }
                tx.delete(object)
                try tx.cancel()
            })
        }
        #expect(deleteDiscarded == .userCancelled)
        try txPortExpect(stack, holds: .created(now))
        #expect(TxPortValues(of: held) == .created(now))
        #expect(!held.isDeletedObject)
        #expect(try stack.fetchOne(From<PortEntity>()) === held)
        #expect(observer.events == ["willChange", "insert #1 at 0.0", "didChange"])
        #expect(monitor.objectsInAllSections() == [held])
    }

    /// `test_ThatSynchronousTransactions_CanCommitWithoutWaitingForMerges`:
    /// with `waitForAllObservers: false` the call returns before the
    /// monitor hears of the commit; it hears of it afterwards, as one insert
    /// between `willChange` and `didChange`.
    @Test(arguments: StoreKind.sqlite)
    func synchronousTransactionsCommitWithoutWaitingForMerges(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try portStack(kind, in: directory, prepared: false)
        let observer = PortListRecorder()
        let monitor = try stack.monitorList(From<PortEntity>(), OrderBy<PortEntity>(.ascending("testEntityID")))
        monitor.addObserver(observer)
        #expect(!monitor.hasObjects())

        let hasChanges = try stack.perform(synchronous: { tx in
            let object = tx.create(Into<PortEntity>())
            object.testBoolean = true
            object.testNumber = 1
            object.testDecimal = Decimal(string: "1")
            object.testString = "nil:TestEntity1:1"
            return tx.hasChanges
        }, waitForAllObservers: false)
        #expect(hasChanges)
        #expect(observer.events.isEmpty)
        #expect(monitor.numberOfObjects() == 0)

        // The merge comes when the main actor gets to it, however long that
        // takes on a loaded machine: no deadline (a hang is CI's to report).
        while observer.events.count < 3 {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(observer.events == ["willChange", "insert #nil at 0.0", "didChange"])
        let object = try #require(observer.objects.first)
        #expect(object.testBoolean == true)
        #expect(object.testNumber == 1)
        #expect(object.testDecimal == Decimal(string: "1"))
        #expect(object.testString == "nil:TestEntity1:1")
        #expect(monitor.numberOfObjects() == 1)
    }
}
