import Foundation
@testable import Strata
import Testing

/// The main context's reads in one main-actor job share one snapshot
/// (Docs/Architecture.md, "Threads"): another process's commit shows from
/// the next job, while a commit made in this process, a merge, or the
/// snapshot's maximum age end it at once.
///
/// Serialized: several tests set the snapshot's maximum age, a global.
@MainActor
@Suite("Main context: one read snapshot per main-actor job", .serialized)
struct MainContextSnapshotTests {
    /// A stack on a fresh store file holding `count` items, and the file.
    func filledStack(_ count: Int, in directory: TemporaryDirectory) throws -> DataStack {
        let stack = try openStack(in: directory)
        try stack.perform(synchronous: { tx in
            for rank in 0..<count { tx.create(Into<MonItem>()).rank = rank }
        })
        return stack
    }

    /// Runs `body` with the kept snapshot's maximum age set to `nanoseconds`.
    func withMaximumAge<Result>(_ nanoseconds: Int64, _ body: () throws -> Result) rethrows -> Result {
        let saved = ObjectContext.keptSnapshotMaximumAge.exchange(nanoseconds, ordering: .relaxed)
        defer { ObjectContext.keptSnapshotMaximumAge.store(saved, ordering: .relaxed) }
        return try body()
    }

    @Test
    func anotherProcessesCommitShowsFromTheNextJob() async throws {
        // A commit anywhere in this process ends the kept snapshot too, and
        // the other suites commit meanwhile: an attempt one of their commits
        // cut short proves nothing, and runs again, as often as it takes on a
        // loaded machine.
        var attemptsUncut = 0
        while attemptsUncut == 0 {
            let directory = TemporaryDirectory()
            let stack = try filledStack(2, in: directory)
            // An hour: the second read must not depend on how fast this machine writes.
            let (counts, found, uncut) = try withMaximumAge(3_600_000_000_000) {
                let commits = Connection.commitCount.load(ordering: .relaxed)
                let first = try stack.fetchCount(From<MonItem>())
                try writeBypassingStrata(
                    "INSERT INTO MonItem (_pk, \"group\", rank, flag) VALUES (100, 0, 7, 0)",
                    at: storeURL(in: directory))
                let second = try stack.fetchCount(From<MonItem>())
                let found = try stack.fetchOne(From<MonItem>().where(\.$rank == 7))
                return ([first, second], found, commits == Connection.commitCount.load(ordering: .relaxed))
            }
            guard uncut else { continue }
            attemptsUncut += 1
            #expect(counts == [2, 2], "the job's reads share the snapshot of its first")
            #expect(found == nil)
            await Task.yield()
            #expect(try stack.fetchCount(From<MonItem>()) == 3)
            #expect(try stack.fetchOne(From<MonItem>().where(\.$rank == 7)) != nil)
        }
    }

    @Test
    func theReaderHoldsNoTransactionOnceTheJobIsOver() async throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(1, in: directory)
        let reader = try stack.main().context.readConnection()
        _ = try stack.fetchAll(From<MonItem>())
        #expect(reader.isInTransaction, "the job's snapshot is kept")
        await Task.yield()
        #expect(!reader.isInTransaction, "a later job ends it, so that checkpoints can go past it")
    }

    @Test
    func aCommitOfAnotherStackInThisProcessShowsAtOnce() throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(2, in: directory)
        let other = try openStack(in: directory)
        try withMaximumAge(3_600_000_000_000) {
            #expect(try stack.fetchCount(From<MonItem>()) == 2)
            try other.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 7 })
            #expect(try stack.fetchCount(From<MonItem>()) == 3)
            #expect(try stack.fetchOne(From<MonItem>().where(\.$rank == 7))?.rank == 7)
        }
    }

    @Test
    func aSynchronousTransactionIsSeenByTheReadAfterIt() throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(2, in: directory)
        try withMaximumAge(3_600_000_000_000) {
            let before = try stack.fetchAll(From<MonItem>().orderBy(.ascending(\.$rank)))
            #expect(before.map(\.rank) == [0, 1])
            try stack.perform(synchronous: { tx in
                tx.create(Into<MonItem>()).rank = 7
                try tx.fetchOne(From<MonItem>().where(\.$rank == 0))!.rank = 5
            })
            let after = try stack.fetchAll(From<MonItem>().orderBy(.ascending(\.$rank)))
            #expect(after.map(\.rank) == [1, 5, 7])
            #expect(before[0].rank == 5, "the merge updated the object read before")
        }
    }

    @Test
    func aSnapshotPastItsMaximumAgeEndsAtTheNextRead() throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(2, in: directory)
        try withMaximumAge(0) {
            #expect(try stack.fetchCount(From<MonItem>()) == 2)
            try writeBypassingStrata(
                "INSERT INTO MonItem (_pk, \"group\", rank, flag) VALUES (100, 0, 7, 0)",
                at: storeURL(in: directory))
            #expect(try stack.fetchCount(From<MonItem>()) == 3)
        }
    }

    @Test
    func aFailedFirstReadLeavesNoSnapshotBehind() async throws {
        let directory = TemporaryDirectory()
        let stack = try filledStack(2, in: directory)
        let reader = try stack.main().context.readConnection()
        await Task.yield()
        #expect(throws: StrataError.self) { try stack.fetchAll(From<MonItem>().where(Where(sql: "(((("))) }
        #expect(!reader.isInTransaction)
        #expect(try stack.fetchCount(From<MonItem>()) == 2)
    }
}
