import Foundation
import Testing
@testable import Strata

// CoreStore's ImportTests (CoreStoreTests/ImportTests.swift) as a CoreStore
// user ports them: `TestEntity1`'s optional `testEntityID` is the unique ID,
// sources are `[String: Any]` dictionaries, and the hooks throw on marker keys.

/// `TestEntity1` of CoreStore's tests, with the fields its import touches.
final class CSPImported: ManagedObject {
    @Field.Stored("testEntityID", .unique) var testEntityID: Int64? = nil
    @Field.Stored("testNumber") var testNumber: Int? = nil
    @Field.Stored("testString") var testString: String? = nil
}

private struct InsertError: Error {}
private struct UpdateError: Error {}

extension CSPImported: ImportableUniqueObject {
    typealias ImportSource = [String: Any]

    static var uniqueIDKeyPath: KeyPath<CSPImported, Field.Stored<Int64?>> { \.$testEntityID }

    /// CoreStore's body, `source["testEntityID"] as? Int64`: a source without
    /// the key gives `nil`, which Swift wraps as an ID of `nil` (`Int64??`).
    static func uniqueID(from source: [String: Any], in transaction: BaseDataTransaction) -> Int64?? {
        source["testEntityID"] as? Int64
    }

    func didInsert(from source: [String: Any], in transaction: BaseDataTransaction) throws {
        if source["throw_on_insert"] != nil { throw InsertError() }
        fill(from: source)
    }

    func update(from source: [String: Any], in transaction: BaseDataTransaction) throws {
        if source["throw_on_update"] != nil { throw UpdateError() }
        fill(from: source)
    }

    private func fill(from source: [String: Any]) {
        testNumber = source["testNumber"] as? Int
        testString = source["testString"] as? String
    }
}

private let parityImportSchema = Schema("CSPImport", entities: [Entity<CSPImported>("CSPImported")])

@MainActor
@Suite("CoreStore parity: importing")
struct CoreStoreParityImportTests {
    /// Five objects, IDs 101...105, as CoreStore's `prepareTestDataForStack`.
    private func seededStack(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
        let stack = try makeStack(parityImportSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 1...5 {
                let object = tx.create(Into<CSPImported>())
                object.testEntityID = Int64(100 + index)
                object.testNumber = index
                object.testString = "nil:TestEntity1:\(index)"
            }
        })
        return stack
    }

    /// ImportableUniqueObject: "`uniqueID(from:in:)` returning nil skips the
    /// source". With an optional ID field the ID type is itself optional, and
    /// a source without an ID yields an ID of `nil`: it is skipped too, never
    /// inserted as an object without an ID (one more on every import).
    @Test(arguments: StoreKind.allCases)
    func aSourceWithoutAnIDIsSkippedWhenTheIDFieldIsOptional(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        for round in 1...2 {
            let imported = try stack.perform(synchronous: { tx in
                let single = try tx.importUniqueObject(Into<CSPImported>(), source: ["testNumber": 0])
                let many = try tx.importUniqueObjects(Into<CSPImported>(), sourceArray: [
                    ["testNumber": 6], ["testEntityID": Int64(106), "testNumber": 6], ["testString": "x"],
                ])
                return (single: single == nil, many: many.map(\.testEntityID))
            })
            #expect(imported.single, "round \(round)")
            #expect(imported.many == [106], "round \(round)")
            #expect(try stack.fetchCount(From<CSPImported>()) == 6, "round \(round)")
            #expect(try stack.fetchCount(From<CSPImported>().where(\.$testEntityID == nil)) == 0)
        }
    }

    /// Rule 1 holds for the IDs `preProcess` adds as well: one of `nil` is
    /// skipped, never inserted as an object without an ID.
    @Test(arguments: StoreKind.allCases)
    func anIDOfNilThatPreProcessAddsIsSkippedToo(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        let imported = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(
                Into<CSPImported>(), sourceArray: [["testEntityID": Int64(106), "testNumber": 6]]
            ) { byID in
                var mapping = byID
                mapping[nil] = ["testNumber": 7]
                return mapping
            }.map(\.testEntityID)
        })
        #expect(imported == [106])
        #expect(try stack.fetchCount(From<CSPImported>().where(\.$testEntityID == nil)) == 0)
        #expect(try stack.fetchCount(From<CSPImported>()) == 6)
    }

    /// ImportTests.test_ThatImportUniqueObject_CanThrowError: an insert hook's
    /// error leaves the object created in the transaction, holding its unique
    /// ID and nothing else; an update hook's error leaves the existing object
    /// as it was.
    @Test(arguments: StoreKind.allCases)
    func aThrowingHookLeavesWhatItFoundInTheTransaction(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seededStack(kind, in: directory)
        var outcome: StrataError?
        do {
            try stack.perform(synchronous: { tx in
                let insertError = Self.userError {
                    _ = try tx.importUniqueObject(Into<CSPImported>(), source: [
                        "testEntityID": Int64(106), "testNumber": 6, "throw_on_insert": "",
                    ])
                }
                #expect(insertError is InsertError)
                #expect(try tx.fetchCount(From<CSPImported>()) == 6)
                let created = try tx.fetchOne(From<CSPImported>().where(\.$testEntityID == 106))
                #expect(created != nil && created?.testNumber == nil && created?.testString == nil)

                let updateError = Self.userError {
                    _ = try tx.importUniqueObject(Into<CSPImported>(), source: [
                        "testEntityID": Int64(105), "testNumber": 50, "throw_on_update": "",
                    ])
                }
                #expect(updateError is UpdateError)
                let existing = try tx.fetchAll(From<CSPImported>().where(\.$testEntityID == 105))
                #expect(existing.map(\.testNumber) == [5] && existing.map(\.testString) == ["nil:TestEntity1:5"])
                try tx.cancel()
            })
        } catch {
            outcome = error
        }
        #expect(outcome == .userCancelled)
        #expect(try stack.fetchCount(From<CSPImported>()) == 5)
    }

    /// The error `body` threw wrapped in `.userError`; `nil` (recorded as an
    /// issue) when it threw anything else or nothing.
    private static func userError(_ body: () throws -> Void) -> (any Error)? {
        do {
            try body()
            Issue.record("the import did not throw")
        } catch {
            if case .userError(let wrapped)? = error as? StrataError { return wrapped }
            Issue.record("expected .userError, got \(error)")
        }
        return nil
    }
}
