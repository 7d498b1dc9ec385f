import Foundation
import Testing
@testable import Strata

/// A transaction waits for the store's write lock at most the store's
/// `busyTimeoutMilliseconds`, on PostgreSQL as on an SQLite file: a stack
/// whose unsafe transaction keeps the lock (it read after its last commit)
/// stops other stacks' writers with a typed error, not for ever.
@Suite("Waiting for the write lock")
struct WriteLockWaitTests {
    @Test(arguments: StoreKind.enabled([.file, .postgreSQL]))
    @MainActor
    func aWriterWaitsForTheLockNoLongerThanTheBusyTimeout(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let holder = try makeStack(TxSchema.schema, kind, in: directory)
        let writer = DataStack(TxSchema.schema)
        try writer.addStorageAndWait(Self.storage(kind, in: directory, busyTimeoutMilliseconds: 200))

        let unsafe = try holder.beginUnsafe()
        unsafe.create(Into<TxPerson>()).name = "held"
        try unsafe.commitAndWait()
        // Reading again opens the next write transaction, which takes the lock.
        #expect(try unsafe.fetchCount(From<TxPerson>()) == 1)

        let finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<Void, any Error>?>(nil)
        DispatchQueue.global().async {
            let result = Result { try writer.perform(synchronous: { tx in tx.create(Into<TxPerson>()).name = "blocked" }) }
            outcome.withLock { $0 = result.map { _ in } }
            finished.signal()
        }
        // A liveness guard, not a timing assertion: far beyond the 200 ms.
        let ended = finished.wait(timeout: .now() + 120) == .success
        unsafe.rollback()
        if !ended { _ = finished.wait(timeout: .now() + 120) }
        #expect(ended, "the writer still waited for the lock after 120 s")
        guard case .failure(let error)? = outcome.withLock({ $0 }) else {
            Issue.record("the writer committed while another stack held the write lock")
            return
        }
        #expect(error is StrataError, "\(error)")

        // The lock free, the same stack writes; its failed wait left nothing open.
        try writer.perform(synchronous: { tx in tx.create(Into<TxPerson>()).name = "after" })
        #expect(try writer.fetchAll(From<TxPerson>()).map(\.name).sorted() == ["after", "held"])
    }

    private static func storage(
        _ kind: StoreKind, in directory: TemporaryDirectory, busyTimeoutMilliseconds: Int32
    ) throws -> any StorageInterface {
        switch kind {
        case .postgreSQL:
            var store = try postgreSQLStore(in: directory)
            store.settings.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            return store
        default:
            var store = SQLiteStore(fileURL: storeURL(in: directory))
            store.settings.busyTimeoutMilliseconds = busyTimeoutMilliseconds
            return store
        }
    }
}
