import Foundation
import Strata
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the child processes of the crash tests do. Each runs in a process of
/// its own (an exit test), which it ends with SIGKILL: no cleanup, no
/// `deinit`, no SQLite shutdown, as in a crash or a power cut of the app.
enum CrashChild {
    /// How many objects the large transactions write.
    static let largeCount = 200_000

    @MainActor
    static func openStack(at path: String) throws -> DataStack {
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: URL(fileURLWithPath: path)))
        return stack
    }

    /// Creates `count` blobs of `batch`, forces them into the open SQLite
    /// transaction, then dies before the commit.
    @MainActor
    static func killBeforeCommit(path: String, count: Int, batch: String) throws {
        let stack = try openStack(at: path)
        try stack.perform(synchronous: { tx in
            for index in 0..<count {
                let blob = tx.create(Into<TxBlob>())
                blob.index = index
                blob.batch = batch
            }
            // A read autoflushes: every row is now written into the SQLite transaction.
            let written = try tx.fetchCount(From<TxBlob>().where(\.$batch == batch))
            guard written == count else { throw TxValueError(code: written) }
            kill(getpid(), SIGKILL)
        })
    }

    /// Writes `count` blobs with an unsafe transaction and flushes them, twice.
    /// The first commit ("calibrate") is timed; during the second ("maybe")
    /// another thread kills the process at `fraction` of that time, so that
    /// the kill lands inside the commit, around SQLite's COMMIT at its end.
    @MainActor
    static func killDuringCommit(path: String, count: Int, fraction: Double) throws {
        let stack = try openStack(at: path)
        func writeBatch(_ batch: String) throws -> UnsafeDataTransaction {
            let tx = try stack.beginUnsafe()
            for index in 0..<count {
                let blob = tx.create(Into<TxBlob>())
                blob.index = index
                blob.batch = batch
            }
            try tx.flush()
            return tx
        }
        let calibration = try writeBatch("calibrate")
        let start = ContinuousClock.now
        try calibration.commitAndWait()
        let commitTime = ContinuousClock.now - start
        let delay = UInt32(max(0, Double(commitTime.components.attoseconds) / 1e12 * fraction
            + Double(commitTime.components.seconds) * 1e6 * fraction))
        let doomed = try writeBatch("maybe")
        Thread.detachNewThread {
            usleep(delay)
            kill(getpid(), SIGKILL)
        }
        try doomed.commitAndWait()
        kill(getpid(), SIGKILL)
    }

    /// Commits `count` blobs of `batch`, then dies.
    @MainActor
    static func killAfterCommit(path: String, count: Int, batch: String) throws {
        let stack = try openStack(at: path)
        try stack.perform(synchronous: { tx in
            for index in 0..<count {
                let blob = tx.create(Into<TxBlob>())
                blob.index = index
                blob.batch = batch
            }
        })
        kill(getpid(), SIGKILL)
    }

    // MARK: Programmer errors

    @MainActor
    static func setFieldOnMainContextObject() throws {
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(InMemoryStore())
        try stack.perform(synchronous: { tx in tx.create(Into<TxPerson>()).name = "Ann" })
        let ann = try stack.fetchOne(From<TxPerson>())
        ann?.name = "Changed"
    }

    static func setFieldOnDetachedObject() {
        let person = TxPerson()
        person.name = "Detached"
    }

    @MainActor
    static func setFieldAfterTransactionEnded() throws {
        let stack = DataStack(TxSchema.schema)
        try stack.addStorageAndWait(InMemoryStore())
        let escaped = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<TxPerson>())
            ann.name = "Ann"
            return ann
        })
        escaped.name = "Changed"
    }
}

/// A store with `count` committed blobs of the batch "kept", at a path a child can open.
@MainActor
private func seedKeptBlobs(in directory: TemporaryDirectory, count: Int) throws -> String {
    let url = storeURL(in: directory)
    let stack = DataStack(TxSchema.schema)
    try stack.addStorageAndWait(SQLiteStore(fileURL: url))
    try stack.perform(synchronous: { tx in
        for index in 0..<count {
            let blob = tx.create(Into<TxBlob>())
            blob.index = index
            blob.batch = "kept"
        }
    })
    return url.path
}

/// How many blobs of each batch the store at `path` holds, read by a fresh stack.
@MainActor
private func blobCounts(at path: String) throws -> [String: Int] {
    let stack = try CrashChild.openStack(at: path)
    var counts: [String: Int] = [:]
    for batch in ["kept", "doomed", "calibrate", "maybe", "committed"] {
        counts[batch] = try stack.fetchCount(From<TxBlob>().where(\.$batch == batch))
    }
    // Row IDs of the committed data are intact and dense: nothing half-written.
    let kept = try stack.fetchAll(From<TxBlob>().where(\.$batch == "kept").orderBy(.ascending(\.$index)))
    #expect(kept.map(\.index) == Array(0..<kept.count))
    return counts
}

@Suite("Transactions: crashes")
struct CrashTests {
    @Test
    @MainActor
    func killedBeforeCommitLeavesNothingOfTheTransaction() async throws {
        let directory = TemporaryDirectory()
        let path = try seedKeptBlobs(in: directory, count: 50)
        let count = CrashChild.largeCount
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String, count = count as Int] in
            try await CrashChild.killBeforeCommit(path: path, count: count, batch: "doomed")
        }
        let counts = try blobCounts(at: path)
        #expect(counts["kept"] == 50)
        #expect(counts["doomed"] == 0)
        // The store still works.
        let stack = try CrashChild.openStack(at: path)
        try stack.perform(synchronous: { tx in tx.create(Into<TxBlob>()).batch = "kept" })
        #expect(try stack.fetchCount(From<TxBlob>()) == 51)
    }

    @Test(arguments: [0.5, 0.75, 1.0])
    @MainActor
    func killedDuringCommitLeavesAllOrNothing(fraction: Double) async throws {
        let directory = TemporaryDirectory()
        let path = try seedKeptBlobs(in: directory, count: 50)
        let count = CrashChild.largeCount / 2
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [path = path as String, count = count as Int, fraction = fraction as Double] in
            try await CrashChild.killDuringCommit(path: path, count: count, fraction: fraction)
        }
        let counts = try blobCounts(at: path)
        #expect(counts["kept"] == 50)
        #expect(counts["calibrate"] == count)
        let maybe = counts["maybe"] ?? -1
        #expect(maybe == 0 || maybe == count, "all or nothing, found \(maybe) of \(count)")
        // The log went with the data: a record for each commit that stayed, none for the other.
        let stack = try CrashChild.openStack(at: path)
        let records = try stack.history()
        #expect(records.map(\.generation) == (maybe == 0 ? [1, 2] : [1, 2, 3]))
        #expect(records.last?.insertedIDs(entity: "TxBlob").count == count)
        #expect(try stack.currentGeneration() == UInt64(records.count))
    }

    @Test
    @MainActor
    func killedAfterCommitKeepsTheCommit() async throws {
        let directory = TemporaryDirectory()
        let path = try seedKeptBlobs(in: directory, count: 50)
        await #expect(processExitsWith: .signal(SIGKILL)) { [path = path as String] in
            try await CrashChild.killAfterCommit(path: path, count: 5_000, batch: "committed")
        }
        let counts = try blobCounts(at: path)
        #expect(counts["kept"] == 50)
        #expect(counts["committed"] == 5_000)
        let stack = try CrashChild.openStack(at: path)
        #expect(stack.mergedGeneration == 2, "the generation of the commit survived too")
    }

    // MARK: Programmer errors trap

    @Test
    func settingAFieldOnAMainContextObjectTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await CrashChild.setFieldOnMainContextObject()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("read-only"), "\(message)")
    }

    @Test
    func settingAFieldOnAnObjectCreatedDirectlyTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            CrashChild.setFieldOnDetachedObject()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("create(Into<TxPerson>())"), "\(message)")
    }

    @Test
    func settingAFieldAfterTheTransactionEndedTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            try await CrashChild.setFieldAfterTransactionEnded()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("has ended"), "\(message)")
    }
}
