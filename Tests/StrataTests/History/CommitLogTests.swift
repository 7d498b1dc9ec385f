import Foundation
@testable import Strata
import StrataPostgreSQL
import Testing

/// The IDs and changed fields of a commit, as a change set and a log record both answer them.
func summary(_ commit: some CommitChanges, entities: [String]) -> [String] {
    entities.flatMap { entity -> [String] in
        let updated = commit.updatedRowIDs(entity: entity).sorted().map { rowID in
            "\(rowID):" + commit.changedFields(of: AnyObjectID(entityName: entity, rowID: rowID)).sorted()
                .joined(separator: ",")
        }
        return [
            "\(entity) +\(commit.insertedRowIDs(entity: entity).sorted())",
            "\(entity) ~\(updated)",
            "\(entity) -\(commit.deletedRowIDs(entity: entity).sorted())",
        ]
    }
}

@MainActor
@Suite("Commit log: one record per commit")
struct CommitLogTests {
    static let entities = ["MonItem", "MonOwner"]

    @Test(arguments: StoreKind.allCases)
    func everyCommitWritesOneRecordThatMatchesItsChangeSet(kind: StoreKind) throws {
        var random = SplitMix64(seed: 0x106 + UInt64(kind == .file ? 1 : 0))
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        var changeSets: [ChangeSet] = []
        for _ in 0..<60 {
            let tx = try stack.beginUnsafe()
            try randomCommit(tx, &random)
            if let changeSet = try tx.commitAndWait() { changeSets.append(changeSet) }
        }
        let records = try stack.history()
        #expect(records.map(\.generation) == changeSets.map(\.generation), "seed \(random.seed)")
        #expect(records.map(\.generation) == Array(1...UInt64(changeSets.count)))
        for (record, changeSet) in zip(records, changeSets) {
            #expect(summary(record, entities: Self.entities) == summary(changeSet, entities: Self.entities),
                    "generation \(record.generation), seed \(random.seed)")
            #expect(record.entityNames == changeSet.entityNames)
        }
        #expect(try stack.currentGeneration() == UInt64(changeSets.count))
        #expect(try stack.historyHorizon() == 0)
    }

    @Test
    func aTransactionThatChangesNothingWritesNoRecord() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        try stack.perform(synchronous: { tx in
            let item = tx.create(Into<MonItem>())
            _ = try tx.fetchCount(From<MonItem>())  // flushed into the SQLite transaction
            tx.delete(item)
            try tx.fetchOne(From<MonItem>())!.rank = 1  // the value it has
        })
        #expect(try stack.history().map(\.generation) == [1])
        #expect(try stack.currentGeneration() == 1)
    }

    @Test
    func authorsComeFromTheTransactionOrTheStack() async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        stack.defaultAuthor = "app"
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 3 }, author: "sync")
        try await stack.perform { tx in tx.create(Into<MonItem>()).rank = 4 }
        let unsafe = try stack.beginUnsafe(author: "bulk")
        unsafe.create(Into<MonItem>()).rank = 5
        let changeSet = try unsafe.commitAndWait()
        #expect(changeSet?.author == "bulk")
        #expect(changeSet?.isLocal == true)
        #expect(try stack.history().map(\.author) == [nil, "app", "sync", "app", "bulk"])
        #expect(try stack.history(author: "app").map(\.generation) == [2, 4])
        #expect(try stack.history(after: 3).map(\.generation) == [4, 5])
    }

    /// An author holding NUL is recorded on SQLite; PostgreSQL's text cannot
    /// hold it, so there the commit fails with a typed error naming the
    /// log's author, rolled back whole, and no record has that author.
    @Test(arguments: StoreKind.allCases)
    func anAuthorHoldingNULIsRecordedOnSQLiteAndRefusedByNameOnPostgreSQL(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        let author = "a\0b"
        let commit = { try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 }, author: author) }
        if kind == .postgreSQL {
            let error = #expect(throws: StrataError.self) { try commit() }
            guard case let .invalidValue(entity, field, _)? = error else {
                Issue.record("not .invalidValue: \(String(describing: error))")
                return
            }
            #expect(entity == "_strata_log" && field == "author")
            #expect(try stack.history(author: author).isEmpty)
            #expect(try stack.fetchCount(From<MonItem>()) == 1, "rolled back whole")
            #expect(try stack.currentGeneration() == 1)
        } else {
            try commit()
            #expect(try stack.history(author: author).map(\.generation) == [2])
        }
        // The store goes on.
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 3 }, author: "after")
        #expect(try stack.history(author: "after").count == 1)
    }

    @Test
    func purgingKeepsWhatComesAfterAndIsItselfACommit() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        for rank in 0..<10 {
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
        }
        #expect(try stack.purgeHistory(through: 6) == 6)
        #expect(try stack.historyHorizon() == 6)
        // The purge is generation 11: a commit with no changes, so that others see it in order.
        let records = try stack.history()
        #expect(records.map(\.generation) == [7, 8, 9, 10, 11])
        #expect(records.last?.isEmpty == true)
        #expect(try stack.purgeHistory(olderThan: Date().addingTimeInterval(3_600)) == 5)
        #expect(try stack.historyHorizon() == 11)
        #expect(try stack.history().map(\.generation) == [12])
        // A horizon never passes the last commit.
        try stack.purgeHistory(through: 1_000)
        #expect(try stack.historyHorizon() <= (try stack.currentGeneration()))
    }

    @Test
    func purgingByAgeKeepsTheLogWholeWhenClocksDisagree() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        for rank in 0..<6 {
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
        }
        // Commit 3 came from a process whose clock runs an hour ahead.
        let now = Date().timeIntervalSince1970
        try writeBypassingStrata(
            "UPDATE _strata_log SET time = \(now - 7_200) WHERE generation <> 3; "
                + "UPDATE _strata_log SET time = \(now + 3_600) WHERE generation = 3",
            at: storeURL(in: directory))
        #expect(try stack.purgeHistory(olderThan: Date().addingTimeInterval(-60)) == 2)
        // Records after the horizon are all there, although 4...6 are "older" than the cut.
        #expect(try stack.history().map(\.generation) == [3, 4, 5, 6, 7])
        #expect(try stack.historyHorizon() == 2)
    }

    @Test
    func retentionBoundsTheLogAsCommitsGoOn() throws {
        let directory = TemporaryDirectory()
        var store = SQLiteStore(fileURL: storeURL(in: directory))
        store.settings.historyRetention = HistoryRetention(maxCount: 10, maxAge: nil)
        let stack = DataStack(monitorSchema)
        try stack.addStorageAndWait(store)
        for rank in 0..<200 {
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
        }
        // Applied every 64 commits: at 192 the log kept 183...192, then 8 more came.
        let records = try stack.history()
        #expect(records.first?.generation == 183)
        #expect(records.last?.generation == 200)
        #expect(try stack.historyHorizon() == 182)
        #expect(records.count < 10 + Int(HistoryRetention.purgeInterval))
    }

    /// Law: whatever limits a retention holds, commits go on, and the log
    /// keeps every record a limit as the initializer clamps it keeps.
    @Test(arguments: StoreKind.allCases)
    func retentionSetToLimitsThatMeanNothingNeitherTrapsNorEmptiesTheLog(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let seed = random.seed
        for _ in 0..<3 {
            let counts: [Int?] = [nil, 0, -1, Int.min, Int(random.next() % 20) - 10]
            let ages: [TimeInterval?] = [
                nil, .nan, -.infinity, -1, .infinity, -Double(random.next() % 99),
            ]
            let count = counts[Int(random.next() % UInt64(counts.count))]
            let age = ages[Int(random.next() % UInt64(ages.count))]
            // The properties are set directly, past the initializer's clamps.
            var retention = HistoryRetention.unlimited
            retention.maxCount = count
            retention.maxAge = age
            let context = "seed \(seed): maxCount \(String(describing: count)), "
                + "maxAge \(String(describing: age))"
            try expectCommitsGoOn(kind, keeping: retention, context)
        }
    }

    private func expectCommitsGoOn(
        _ kind: StoreKind, keeping retention: HistoryRetention, _ context: String
    ) throws {
        let directory = TemporaryDirectory()
        var storage = try makeStorage(kind, in: directory)
        if var store = storage as? SQLiteStore {
            store.settings.historyRetention = retention
            storage = store
        } else if var store = storage as? InMemoryStore {
            store.settings.historyRetention = retention
            storage = store
        } else {
            var store = try #require(storage as? PostgreSQLStore)
            store.settings.historyRetention = retention
            storage = store
        }
        let stack = DataStack(monitorSchema)
        try stack.addStorageAndWait(storage)
        let commits = Int(HistoryRetention.purgeInterval) + 3
        for rank in 0..<commits {
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
        }
        #expect(try stack.fetchCount(From<MonItem>()) == commits, "\(context)")
        let generations = try stack.history().map(\.generation)
        #expect(generations.last == UInt64(commits), "\(context): the last commit is kept")
        let (count, age) = (retention.maxCount, retention.maxAge)
        if age.map({ $0.isNaN || $0 > 0 }) ?? true, count.map({ $0 > 1 }) ?? true {
            let kept = count.map { min(commits, $0 + 3) } ?? commits
            #expect(generations.count >= kept, "\(context): \(generations)")
        }
    }

    @Test
    func purgingBeforeANaNDateIsRefusedAndPurgesNothing() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        for rank in 0..<5 {
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
        }
        let error = #expect(throws: StrataError.self) {
            try stack.purgeHistory(olderThan: Date(timeIntervalSince1970: .nan))
        }
        if case let .invalidValue(entity, field, _)? = error {
            #expect(entity == "_strata_log" && field == "time")
        } else {
            Issue.record("expected .invalidValue, got \(String(describing: error))")
        }
        #expect(try stack.history().map(\.generation) == [1, 2, 3, 4, 5])
        #expect(try stack.historyHorizon() == 0)
        #expect(HistoryRetention(maxCount: 5, maxAge: .nan).maxAge == nil, "a NaN age is no limit")
    }

    /// Purges at the ends of every range — dates at either infinity, the
    /// largest generation — neither trap nor leave a hole: the log after the
    /// horizon stays complete, a NaN date purges nothing on every store, and
    /// a stack watching from the same store ends equal to it.
    @Test(arguments: StoreKind.allCases)
    func purgesAtTheEndsOfTheirRangesKeepTheLogCompleteAndFollowersCurrent(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        var random = SplitMix64.random()
        try MonWorkload.seed(stack, count: 10, random: &random)
        let watcher = kind == .inMemory ? nil : try Watcher(try openStack(kind, in: directory), random: &random)
        let dates = [-Double.infinity, .infinity, -1e300, 1e300, 0, Date().timeIntervalSince1970 - 3_600]
        for purge in 0..<8 {
            for _ in 0..<3 {
                try stack.perform(synchronous: { tx in try randomCommit(tx, &random) })
            }
            let context = "\(kind), seed \(random.seed), purge \(purge)"
            #expect(throws: StrataError.self, "\(context)") {
                try stack.purgeHistory(olderThan: Date(timeIntervalSince1970: .nan))
            }
            if purge % 2 == 0 {
                let date = dates[Int(random.next() % UInt64(dates.count))]
                try stack.purgeHistory(olderThan: Date(timeIntervalSince1970: date))
            } else {
                try stack.purgeHistory(through: random.next() % 2 == 0 ? .max : random.next() % 40)
            }
            let (horizon, current) = (try stack.historyHorizon(), try stack.currentGeneration())
            #expect(horizon <= current, "\(context)")
            #expect(
                try stack.history().map(\.generation) == Array(horizon..<current).map { $0 + 1 },
                "\(context): the log after horizon \(horizon)")
            #expect(try stack.history(after: .max).isEmpty && (try stack.history(after: current)).isEmpty)
        }
        if let watcher {
            try expectSettled(watcher, at: try StoreAddress(kind, in: directory), "\(kind), seed \(random.seed)")
        }
    }

    @Test
    func aStoreMadeBeforeTheLogGainsItWhenOpenedWritable() throws {
        let directory = TemporaryDirectory()
        do {
            let stack = try makeStack(monitorSchema, .file, in: directory)
            for rank in 0..<3 {
                try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = rank })
            }
        }
        let connection = try Connection(path: storeURL(in: directory).path, readOnly: false)
        try connection.execute("DROP TABLE _strata_log; DELETE FROM _strata_meta WHERE key = 'log_horizon'")
        connection.close()

        let stack = try makeStack(monitorSchema, .file, in: directory)
        #expect(try stack.historyHorizon() == 3, "its history starts at the generation it had")
        #expect(try stack.history().isEmpty)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 9 })
        #expect(try stack.history().map(\.generation) == [4])
    }
}
