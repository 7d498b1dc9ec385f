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
}
