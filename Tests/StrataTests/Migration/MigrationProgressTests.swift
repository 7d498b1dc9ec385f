import Foundation
import Strata
import Testing

/// Progress while adding a store: fractions that only grow, then `.finished`.
@MainActor
@Suite("Migration progress")
struct MigrationProgressTests {
    @Test
    func addingAStoreReportsGrowingFractionsThenFinished() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try await seedV1(at: url)
        let recorder = ProgressRecorder()
        let stack = DataStack(schemaHistory: progressHistory)
        try await stack.addStorage(SQLiteStore(fileURL: url)) { recorder.record($0) }
        let updates = recorder.updates
        #expect(updates.last == .finished(migrationRan: true))
        let fractions = updates.compactMap { update -> Double? in
            if case .migrating(_, let fraction) = update { return fraction }
            return nil
        }
        #expect(!fractions.isEmpty)
        #expect(fractions == fractions.sorted())
        #expect(fractions.last == 1)
        #expect(Set(updates.compactMap { update -> String? in
            if case .migrating(let step, _) = update { return step.description }
            return nil
        }).count == 2)
    }

    @Test
    func theCompletionFormCompletesItsFoundationProgress() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try await seedV1(at: url)
        let stack = DataStack(schemaHistory: progressHistory)
        var progress: Progress?
        let result: Result<SQLiteStore, StrataError> = await withCheckedContinuation { done in
            progress = stack.addStorage(SQLiteStore(fileURL: url)) { done.resume(returning: $0) }
        }
        #expect(try result.get().fileURL == url)
        #expect(progress?.completedUnitCount == 100)
        #expect(try stack.fetchCount(From<ProgV3>()) == 50)
    }

    /// CoreStore's `progress.setProgressHandler { ... }`: the handler runs on
    /// the main actor once after it is set and whenever the fraction
    /// changes, with fractions that only grow up to 1, the last before the
    /// completion; a removed handler is not called again.
    @Test
    func aProgressHandlerHearsEachChangeBeforeTheCompletion() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try await seedV1(at: url)
        let stack = DataStack(schemaHistory: progressHistory)
        var heard: [Double] = []
        var heardAtCompletion: [Double] = []
        let result: Result<SQLiteStore, StrataError> = await withCheckedContinuation { done in
            let progress = stack.addStorage(SQLiteStore(fileURL: url)) { result in
                heardAtCompletion = heard
                done.resume(returning: result)
            }
            progress.setProgressHandler { heard.append($0.fractionCompleted) }
        }
        #expect(try result.get().fileURL == url)
        // Each call reads the progress as it is then: the last is the added store's 1.
        #expect(!heard.isEmpty)
        #expect(heard == heard.sorted(), "\(heard)")
        #expect(heard.last == 1)
        #expect(heardAtCompletion == heard)

        // Removed, a handler hears nothing more.
        let other = DataStack(schemaHistory: progressHistory)
        let secondURL = directory.url.appendingPathComponent("second.sqlite")
        try await seedV1(at: secondURL)
        var removedHeard = 0
        let _: Result<SQLiteStore, StrataError> = await withCheckedContinuation { done in
            let progress = other.addStorage(SQLiteStore(fileURL: secondURL)) { done.resume(returning: $0) }
            progress.setProgressHandler { _ in removedHeard += 1 }
            progress.setProgressHandler(nil)
        }
        for _ in 0..<3 { await Task.yield() }
        #expect(removedHeard == 0)
    }

    @Test
    func theCompletionFormReportsTheErrorThatStoppedTheStore() async throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        try Data("not a database at all, but long enough to have a header".utf8).write(to: url)
        let stack = DataStack(schemaHistory: progressHistory)
        let result: Result<SQLiteStore, StrataError> = await withCheckedContinuation { done in
            stack.addStorage(SQLiteStore(fileURL: url)) { done.resume(returning: $0) }
        }
        guard case .failure(.notADatabase) = result else {
            Issue.record("expected notADatabase, got \(result)")
            return
        }
        #expect(!stack.hasStore)
    }

    @Test
    func aStoreAtTheCurrentVersionFinishesWithoutMigrating() async throws {
        let directory = TemporaryDirectory()
        let recorder = ProgressRecorder()
        let stack = DataStack(schemaHistory: progressHistory)
        try await stack.addStorage(SQLiteStore(fileURL: storeURL(in: directory))) { recorder.record($0) }
        #expect(recorder.updates == [.finished(migrationRan: false)])
    }

    private func seedV1(at url: URL) async throws {
        let stack = DataStack(Schema("V1", entities: [Entity<ProgV1>("Prog")]))
        try await stack.addStorage(SQLiteStore(fileURL: url))
        try await stack.perform { tx in
            for index in 0..<50 { tx.create(Into<ProgV1>()).value = index }
        }
    }
}

final class ProgV1: ManagedObject {
    @Field.Stored("value") var value: Int = 0
}

final class ProgV2: ManagedObject {
    @Field.Stored("value") var value: Int = 0
    @Field.Stored("note") var note: String = ""
}

final class ProgV3: ManagedObject {
    @Field.Stored("value") var value: Int = 0
    @Field.Stored("note") var note: String = ""
    @Field.Stored("flag") var flag: Bool = false
}

let progressHistory = SchemaHistory(
    [
        Schema("V1", entities: [Entity<ProgV1>("Prog")]),
        Schema("V2", entities: [Entity<ProgV2>("Prog")]),
        Schema("V3", entities: [Entity<ProgV3>("Prog")]),
    ],
    chain: MigrationChain(["V1", "V2", "V3"]))

/// Collects progress values from the opening thread.
final class ProgressRecorder: @unchecked Sendable {
    // Unchecked: every access takes the lock.
    private let lock = NSLock()
    private var values: [MigrationProgress] = []

    func record(_ update: MigrationProgress) {
        lock.lock()
        values.append(update)
        lock.unlock()
    }

    var updates: [MigrationProgress] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}
