import Foundation
@testable import Strata
import Testing

@Suite("StrataLog: levels, categories, SQL trace")
struct LogTests {
    @Test
    func messagesBelowTheMinimumLevelAreNeverBuilt() {
        let capture = LogCapture()
        defer { capture.stop() }
        let marker = UUID().uuidString
        let built = Locked(0)
        func text(_ level: StrataLog.Level) -> String {
            built.withLock { $0 += 1 }
            return "\(marker) \(level)"
        }
        // Levels at or above the default minimum, `.warning`, pass; the others are not even built.
        for level in StrataLog.Level.allCases where level >= .warning {
            StrataLog.log(level, .history, text(level))
        }
        if StrataLog.minimumLevel == .warning {
            StrataLog.log(.info, .history, text(.info))
            #expect(built.withLock { $0 } == 2)
        }
        let mine = capture.all.filter { $0.text.hasPrefix(marker) }
        #expect(mine.map(\.level) == [.warning, .error])
        #expect(mine.allSatisfy { $0.category == .history && $0.file.hasSuffix("LogTests.swift") })
        #expect(mine.first?.description == "[Strata] warning history: \(marker) warning")
    }

    @MainActor
    @Test
    func theSQLTraceLogsEveryStatementWithoutItsValues() throws {
        let capture = LogCapture()
        defer { capture.stop() }
        let previous = StrataLog.minimumLevel
        StrataLog.minimumLevel = .trace
        defer { StrataLog.minimumLevel = previous }
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, .file, in: directory)
        let secret = "secret-\(UUID().uuidString)"
        try stack.setSQLTrace(true)
        try stack.perform(synchronous: { tx in tx.create(Into<BulkOwner>()).label = secret })
        _ = try stack.fetchAll(From<BulkOwner>().where(\.$label == secret))
        try stack.setSQLTrace(false)
        _ = try stack.fetchCount(From<BulkPet>())
        let sql = capture.all.filter { $0.category == .sql }.map(\.text)
        #expect(sql.contains { $0.hasPrefix("INSERT INTO \"Owner\"") })
        #expect(sql.contains { $0.hasPrefix("SELECT") && $0.contains("FROM \"Owner\"") })
        #expect(!sql.contains { $0.contains("FROM \"Pet\"") }, "tracing stopped")
        #expect(!sql.contains { $0.contains(secret) }, "values are bound, never in the text")
        #expect(capture.all.contains { $0.level == .info && $0.category == .storage && $0.text.contains("opened") })
    }

    @MainActor
    @Test
    func aFailedCommitIsLoggedAsAnError() throws {
        let capture = LogCapture()
        defer { capture.stop() }
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, .file, in: directory)
        let code = "dup-\(UUID().uuidString)"
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                tx.create(Into<BulkOwner>()).code = code
                tx.create(Into<BulkOwner>()).code = code
            })
        }
        #expect(capture.all.contains {
            $0.level == .error && $0.category == .transactions && $0.text.contains(directory.file("").deletingLastPathComponent().lastPathComponent)
        })
    }

    /// As CoreStore logs a fetch request that fails: each failed fetch or
    /// query of a stack or a transaction is logged once, at `.error` in
    /// `.queries`, and throws the same error as before; one that succeeds
    /// logs nothing.
    @MainActor
    @Test(arguments: StoreKind.sqlite)
    func aFailedFetchOrQueryIsLoggedOnceAsAnError(kind: StoreKind) throws {
        let capture = LogCapture()
        defer { capture.stop() }
        let directory = TemporaryDirectory()
        let stack = try makeStack(bulkSchema, kind, in: directory)
        // A column no table has, unique to this test: it names the messages this test caused.
        let missing = "missing_" + UUID().uuidString.replacingOccurrences(of: "-", with: "")
        let bad = From<BulkOwner>().where(Where(sql: "\(missing) = 1"))
        let good = From<BulkOwner>().where(Where(sql: "label <> '\(missing)'"))
        func mine() -> [StrataLog.Message] {
            capture.all.filter { $0.text.contains(missing) }
        }
        var thrown: [StrataError] = []
        func expectFailure(_ function: String, _ read: () throws -> Void) {
            let before = mine().count
            do {
                try read()
                Issue.record("\(function) should fail")
            } catch {
                guard let error = error as? StrataError, case .sqlite = error else {
                    Issue.record("\(function) threw \(error), not the SQLite error")
                    return
                }
                thrown.append(error)
            }
            let logged = mine().dropFirst(before)
            #expect(logged.count == 1, "\(function): \(logged)")
            #expect(logged.allSatisfy {
                $0.level == .error && $0.category == .queries && $0.text.hasPrefix(function)
                    && $0.text.contains(thrown.last.map { "\($0)" } ?? "?")
            }, "\(function): \(logged)")
        }

        expectFailure("fetchAll") { _ = try stack.fetchAll(bad) }
        expectFailure("fetchOne") { _ = try stack.fetchOne(bad) }
        expectFailure("fetchCount") { _ = try stack.fetchCount(bad) }
        expectFailure("fetchObjectIDs") { _ = try stack.fetchObjectIDs(bad) }
        expectFailure("queryValue") { _ = try stack.queryValue(bad.select(Int.self, .count())) }
        expectFailure("queryAttributes") {
            _ = try stack.queryAttributes(bad.select(Int.self, .count()))
        }
        expectFailure("fetchOne") {
            try stack.perform(synchronous: { tx in _ = try tx.fetchOrCreate(bad) { _ in } })
        }
        #expect(thrown.count == 7)

        _ = try stack.fetchAll(good)
        _ = try stack.queryValue(good.select(Int.self, .count()))
        try stack.perform(synchronous: { tx in _ = try tx.fetchCount(good) })
        #expect(mine().count == 7, "a read that succeeds logs nothing: \(mine())")
    }
}
