import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Storage: a store whose tables do not match its schema is refused")
struct TableDefinitionCheckingTests {
    /// A store file with a few people (unique emails) and items, closed.
    func makeStore(_ directory: TemporaryDirectory) throws -> URL {
        let url = storeURL(in: directory)
        do {
            let stack = DataStack(TxSchema.schema)
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
            try stack.perform(synchronous: { tx in
                for index in 0..<3 {
                    let person = tx.create(Into<TxPerson>())
                    person.email = "p\(index)@example.com"
                    person.age = 500
                }
            })
        }
        return url
    }

    @Test(arguments: [
        ("ALTER TABLE TxPerson DROP COLUMN age", "no column age"),
        ("DROP INDEX TxPerson_email_unique", "no index TxPerson_email_unique"),
        ("DROP TABLE TxItem", "the table TxItem is missing"),
    ])
    func aChangedTableIsATypedErrorAndTheFileStaysAsItWas(change: String, reason: String) throws {
        let directory = TemporaryDirectory()
        let url = try makeStore(directory)
        try writeBypassingStrata(change + "; PRAGMA wal_checkpoint(TRUNCATE)", at: url)
        let before = try #require(FileManager.default.contents(atPath: url.path))
        let stack = DataStack(TxSchema.schema)
        #expect {
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        } throws: { error in
            guard case .storage(_, let message) = error as? StrataError else { return false }
            return message.contains(reason) && message.contains("TxV1")
        }
        #expect(FileManager.default.contents(atPath: url.path) == before, "the file is byte-identical")
    }

    @Test
    func aDoubleQuotedNameIsNeverAString() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(monitorSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<MonItem>()).label = "alpha" })
        // With SQLite's default, "alpha" would be the string 'alpha' and match.
        #expect(throws: StrataError.self) {
            try stack.fetchAll(From<MonItem>().where(Where(sql: "label = \"alpha\"")))
        }
        #expect(try stack.fetchCount(From<MonItem>().where(Where(sql: "label = 'alpha'"))) == 1)
    }
}
