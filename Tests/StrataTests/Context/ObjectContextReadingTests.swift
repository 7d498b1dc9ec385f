import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Object context: an unsafe transaction's kept objects follow other writers")
struct ObjectContextReadingTests {
    @Test
    func aKeptObjectTakesAnotherWritersCommitBeforeItIsChangedAgain() throws {
        let directory = TemporaryDirectory()
        let mine = try openStack(in: directory)
        let other = try openStack(in: directory)
        let tx = try mine.beginUnsafe()
        let item = tx.create(Into<MonItem>())
        item.rank = 1
        let doomed = tx.create(Into<MonItem>())
        try tx.commitAndWait()
        try other.perform(synchronous: { tx in
            try tx.fetchOne(From<MonItem>().where(\.$rank == 1))!.rank = 10
            tx.delete(try tx.fetchOne(From<MonItem>().where(\.$rank == 0))!)
        })
        // Read-modify-write on the kept object: the other writer's 10 is not lost.
        try tx.refreshAndMergeAllObjects()
        item.rank += 1
        try tx.commitAndWait()
        #expect(try other.fetchOne(From<MonItem>())?.rank == 11)
        #expect(doomed.isDeletedObject, "a kept object whose row is gone is deleted")
        #expect(try other.fetchCount(From<MonItem>()) == 1)
    }

    @Test
    func aKeptObjectKeepsItsOwnChangesWhenItTakesAnotherWritersCommit() throws {
        let directory = TemporaryDirectory()
        let mine = try openStack(in: directory)
        let other = try openStack(in: directory)
        let tx = try mine.beginUnsafe()
        let item = tx.create(Into<MonItem>())
        item.rank = 1
        try tx.commitAndWait()
        try other.perform(synchronous: { tx in
            let item = try tx.fetchOne(From<MonItem>())!
            item.rank = 10
            item.label = "theirs"
        })
        item.group = 3  // changed here before the next SQLite transaction begins
        try tx.commitAndWait()
        let stored = try other.fetchOne(From<MonItem>())
        #expect(stored?.group == 3 && stored?.rank == 10 && stored?.label == "theirs")
        #expect(item.rank == 10 && item.label == "theirs")
    }
}

@MainActor
@Suite("Object context: every read throws StrataError")
struct ObjectContextReadErrorTests {
    /// Runs `read` and returns the error it threw, recording an issue when it
    /// threw nothing or something other than a `StrataError`.
    func strataError(_ read: () throws -> Void, _ comment: Comment) -> StrataError? {
        do {
            try read()
            Issue.record("no error: \(comment)")
        } catch let error as StrataError {
            return error
        } catch {
            Issue.record("\(type(of: error)) is not a StrataError: \(comment)")
        }
        return nil
    }

    @Test(arguments: StoreKind.allCases)
    func rawSQLThatDoesNotParseIsATypedErrorFromEveryRead(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        let bad = From<MonItem>().where(Where(sql: "(((("))
        let reads: [(String, () throws -> Void)] = [
            ("fetchAll", { _ = try stack.fetchAll(bad) }),
            ("fetchOne", { _ = try stack.fetchOne(bad) }),
            ("fetchCount", { _ = try stack.fetchCount(bad) }),
            ("fetchObjectIDs", { _ = try stack.fetchObjectIDs(bad) }),
            ("fetchExists", { _ = try stack.fetchExists(bad) }),
            ("fetchUnique", { _ = try stack.fetchUnique(bad) }),
            ("queryValue", { _ = try stack.queryValue(bad.select(Int.self, .count(\.$rank))) }),
            ("queryAttributes", { _ = try stack.queryAttributes(bad.select(.attribute(\.$rank))) }),
            ("monitorList", { _ = try stack.monitorList(bad) }),
            ("transaction fetchAll", { try stack.perform(synchronous: { tx in _ = try tx.fetchAll(bad) }) }),
        ]
        for (name, read) in reads {
            switch strataError(read, "\(name)") {
            case .sqlite(let code, _, let sql)?:
                #expect(kind != .postgreSQL && code == 1, "\(name): SQLITE_ERROR")
                #expect(sql?.contains("((((") == true, "\(name): the SQL is named")
            case .postgreSQL(let sqlState, _, let sql)?:
                #expect(kind == .postgreSQL && sqlState == "42601", "\(name): syntax_error")
                #expect(sql?.contains("((((") == true, "\(name): the SQL is named")
            default:
                Issue.record("\(name): expected .sqlite or .postgreSQL")
            }
        }
    }

    /// A failed read leaves the reads after it working. Main-context reads
    /// share one snapshot, opened by the first of them; on PostgreSQL a failed
    /// statement aborts the transaction it runs in, and every later statement
    /// in it fails with SQLSTATE 25P02 until it ends, so a failure ends the
    /// kept snapshot. Each round: a read that opens the snapshot, one that
    /// fails with its own error, then reads that must succeed.
    @Test(arguments: StoreKind.allCases)
    func aFailedReadLeavesTheReadsAfterItWorking(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 1 })
        let good = From<MonItem>()
        let bad = From<MonItem>().where(Where(sql: "(((("))
        for round in 0..<3 {
            #expect(try stack.fetchCount(good) == 1, "round \(round)")
            switch strataError({ _ = try stack.fetchAll(bad) }, "round \(round)") {
            case .sqlite(let code, _, _)?:
                #expect(kind != .postgreSQL && code == 1, "round \(round): SQLITE_ERROR")
            case .postgreSQL(let sqlState, _, _)?:
                #expect(kind == .postgreSQL && sqlState == "42601", "round \(round): syntax_error")
            default:
                Issue.record("round \(round): expected .sqlite or .postgreSQL")
            }
            #expect(try stack.fetchCount(good) == 1, "round \(round)")
            #expect(
                try stack.queryValue(good.select(Int.self, .sum(\.$rank))) == 1, "round \(round)")
            #expect(try stack.fetchAll(good).map(\.rank) == [1], "round \(round)")
        }
    }

    @Test
    func aTableDroppedUnderTheStackIsATypedError() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try writeBypassingStrata("DROP TABLE MonOwner", at: storeURL(in: directory))
        let error = strataError({ _ = try stack.fetchCount(From<MonOwner>()) }, "a dropped table")
        guard case .sqlite(_, let message, _)? = error else {
            Issue.record("expected .sqlite, got \(String(describing: error))")
            return
        }
        #expect(message.contains("no such table"))
    }

    @Test
    func rawSQLWithTooFewOrTooManyArgumentsIsRefused() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for rank in 0..<5 { tx.create(Into<MonItem>()).rank = rank }
        })
        let fewer = From<MonItem>().where(Where(sql: "rank > ? AND rank < ?", arguments: [.integer(1)]))
        let more = From<MonItem>().where(Where(sql: "rank > ?", arguments: [.integer(1), .integer(2)]))
        for query in [fewer, more] {
            guard case .sqlite(let code, let message, _)? = strataError({ _ = try stack.fetchAll(query) }, "\(query)")
            else { continue }
            #expect(code == 25, "SQLITE_RANGE")
            #expect(message.contains("parameter"))
        }
        let exact = From<MonItem>().where(Where(sql: "rank > ? AND rank < ?", arguments: [.integer(1), .integer(4)]))
        #expect(try stack.fetchCount(exact) == 2)
    }
}

@MainActor
@Suite("Object context: row IDs")
struct ObjectContextRowIDTests {
    @Test(arguments: [Int64.max, Int64.max - 1])
    func aTableAtTheLastRowIDRefusesANewObjectWithATypedError(last: Int64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try writeBypassingStrata(
            "INSERT INTO MonItem (_pk, \"group\", rank, flag) VALUES (\(last), 0, 1, 0)", at: storeURL(in: directory))
        #expect {
            try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).rank = 2 })
        } throws: { error in
            guard case .storage(_, let reason) = error as? StrataError else { return false }
            return reason.contains("no row ID is left")
        }
        #expect(try stack.fetchCount(From<MonItem>()) == 1, "nothing of the transaction was saved")
    }

    @Test
    func theLastRowIDButOneIsStillGivenOut() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .file, in: directory)
        try writeBypassingStrata(
            "INSERT INTO MonItem (_pk, \"group\", rank, flag) VALUES (\(Int64.max - 2), 0, 1, 0)",
            at: storeURL(in: directory))
        let id = try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).objectID })
        #expect(id.rowID == .max - 1)
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in _ = tx.create(Into<MonItem>()) })
        }
    }
}
