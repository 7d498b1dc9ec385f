import Foundation
import Testing

@testable import Strata

/// CoreStore's `ErrorTests`, ported to `StrataError`. CoreStore checks that
/// each error bridges to an `NSError` of its domain, with a code and a
/// `userInfo` holding the error's details, and back. `StrataError` has no
/// `NSError` domain, codes or `userInfo` (Docs/ComingFromCoreStore.md,
/// "Errors and logging"): the details are the cases' associated values, and
/// what is checked here is that each of CoreStore's bridged errors has its
/// Strata counterpart carrying the same details, raised by the real failure,
/// and that the description survives the trip through `Error`.
@MainActor
@Suite("CoreStore port: errors carry what CoreStore's bridged errors carry")
struct CoreStoreErrorPortTests {
    /// An error of the caller's own, as CoreStore's `NSError(domain: "com.dummy", ...)`.
    private func callersError() -> NSError {
        NSError(domain: "com.example.port", code: 123, userInfo: ["key1": "value1", "key2": 2])
    }

    private func expectCallersError(_ error: StrataError?, _ context: String) {
        guard case .userError(let inner)? = error else {
            Issue.record("\(context): expected userError, got \(String(describing: error))")
            return
        }
        let nsError = inner as NSError
        #expect(nsError.domain == "com.example.port", "\(context)")
        #expect(nsError.code == 123, "\(context)")
        #expect(nsError.userInfo["key1"] as? String == "value1", "\(context)")
        #expect(nsError.userInfo["key2"] as? Int == 2, "\(context)")
        #expect(nsError.userInfo.count == 2, "\(context)")
    }

    /// `test_ThatInternalErrorErrors_BridgeCorrectly`: CoreStore wraps a
    /// foreign `NSError` as `.internalError(NSError:)`, keeping it whole.
    /// Strata's `.userError` keeps an error a transaction throws unchanged,
    /// from every kind of transaction.
    @Test func aForeignErrorComesBackWholeFromEveryKindOfTransaction() async throws {
        let stack = try DataStack.inMemory(FetchPort.schema)
        let thrown = callersError()
        let synchronous = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { _ in throw thrown })
        }
        expectCallersError(synchronous, "synchronous")
        #expect(synchronous == .userError(thrown), "the same instance compares equal")

        do {
            try await stack.perform { _ -> Void in
                throw NSError(
                    domain: "com.example.port", code: 123, userInfo: ["key1": "value1", "key2": 2])
            }
            Issue.record("async: no error")
        } catch {
            expectCallersError(error, "async")
        }

        let completed: Result<Int, StrataError> = await withCheckedContinuation { continuation in
            stack.perform(
                asynchronous: { _ -> Int in
                    throw NSError(
                        domain: "com.example.port", code: 123,
                        userInfo: ["key1": "value1", "key2": 2])
                },
                completion: { continuation.resume(returning: $0) })
        }
        if case .failure(let error) = completed {
            expectCallersError(error, "asynchronous")
        } else {
            Issue.record("asynchronous: no error")
        }
        // Nothing was committed by any of them.
        #expect(try stack.fetchCount(From<FetchPortEntity1>()) == 0)
    }

    /// A `StrataError` thrown from a transaction's closure comes back as
    /// itself, not wrapped in `.userError` (CoreStore's `CoreStoreError(error)`
    /// of a `CoreStoreError` is the same error).
    @Test func aStrataErrorThrownInATransactionIsNotWrapped() throws {
        let stack = try DataStack.inMemory(FetchPort.schema)
        let error = StrataError.invalidValue(
            entity: "FetchPortEntity1", field: "testNumber", reason: "port")
        #expect(throws: error) { try stack.perform(synchronous: { _ in throw error }) }
        #expect(throws: StrataError.userCancelled) {
            try stack.perform(synchronous: { tx in try tx.cancel() })
        }
    }

    /// CoreStore's `internalError` also stands for Core Data's own failures;
    /// Strata's engine failures keep SQLite's result code, message and SQL.
    @Test(arguments: StoreKind.sqlite)
    func anEngineFailureKeepsItsCodeAndMessage(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try FetchPort.stack([nil], kind, in: directory)
        let broken = From<FetchPortEntity1>().where(Where(sql: "no_such_function(testNumber) > 1"))
        let error = #expect(throws: StrataError.self) { try stack.fetchAll(broken) }
        guard case .sqlite(let code, let message, let sql)? = error else {
            Issue.record("expected .sqlite, got \(String(describing: error))")
            return
        }
        #expect(code == 1, "SQLITE_ERROR")
        #expect(message.contains("no_such_function"), "\(message)")
        #expect(sql?.contains("no_such_function") == true, "\(String(describing: sql))")
    }

    /// `test_ThatProgressiveMigrationRequiredErrors_BridgeCorrectly`:
    /// CoreStore's error names the store's URL; Strata's names its path and
    /// the versions the refused steps would go through.
    @Test func aRefusedProgressiveMigrationNamesTheStoreAndTheSteps() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        do {
            let old = DataStack(schemaV1)
            try old.addStorageAndWait(SQLiteStore(fileURL: url))
        }
        let stack = DataStack(
            schemaHistory: SchemaHistory(
                [schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1", "V2", "V3"])))
        let error = #expect(throws: StrataError.self) {
            try stack.addStorageAndWait(
                SQLiteStore(fileURL: url, options: .preventProgressiveMigration))
        }
        #expect(
            error == .progressiveMigrationPrevented(path: url.path, versions: ["V1", "V2", "V3"]))
        #expect(error?.localizedDescription.contains("V1 → V2 → V3") == true)
        #expect(!stack.hasStore)
    }

    /// `test_ThatDifferentStorageExistsAtURLErrors_BridgeCorrectly`: the
    /// error of a store of another configuration at a file the stack holds
    /// names that file, as CoreStore's `existingPersistentStoreURL` does.
    @Test func aSecondConfigurationAtTheSameFileNamesTheExistingStore() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let stack = DataStack(FetchPort.schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        let error = #expect(throws: StrataError.self) {
            try stack.addStorageAndWait(SQLiteStore(fileURL: url, configuration: "Config1"))
        }
        guard case .storage(let path, let reason)? = error else {
            Issue.record("expected .storage, got \(String(describing: error))")
            return
        }
        #expect(path == url.path)
        #expect(reason.contains(url.path), "\(reason)")
        #expect(stack.storeConfigurations == [nil])
    }

    /// CoreStore's errors bridge their description through `NSError`;
    /// `StrataError`'s `localizedDescription` is its `debugDescription`,
    /// also seen as an `any Error`, for every case.
    @Test func everyCaseDescribesItselfThroughError() {
        let errors: [StrataError] = [
            .storage(path: "/a", reason: "r"), .notADatabase(path: "/a", reason: "r"),
            .readOnlyStore(path: "/a"),
            .storeNotAdded, .storeNotFound(entity: "E", configuration: "C"),
            .crossStoreTransaction(configurations: [nil, "C"]),
            .schemaMismatch(path: "/a", storeVersion: "V1", schemaVersion: "V2"),
            .invalidSchema(entity: "E", field: "f", reason: "r"),
            .invalidMigrationChain(reason: "r"),
            .migrationFailed(
                sourceVersion: "V1", destinationVersion: "V2", entity: "E", field: nil, reason: "r"),
            .migrationStepThrew(
                sourceVersion: "V1", destinationVersion: "V2", entity: nil, error: callersError()),
            .progressiveMigrationPrevented(path: "/a", versions: ["V1", "V2", "V3"]),
            .invalidValue(entity: "E", field: "f", reason: "r"),
            .uniqueConstraintViolation(entity: "E", fields: ["f"]),
            .deleteDenied(entity: "E", relationship: "r", relatedCount: 2), .nestedTransaction,
            .sqlite(code: 19, message: "m", sql: "S"),
            .postgreSQL(sqlState: "42P01", message: "m", sql: nil),
            .serverUnavailable(path: "/a", reason: "r"), .userCancelled, .userError(callersError()),
        ]
        var descriptions: Set<String> = []
        for error in errors {
            let erased: any Error = error
            #expect(erased.localizedDescription == error.debugDescription, "\(error)")
            #expect(!error.debugDescription.isEmpty)
            descriptions.insert(error.debugDescription)
        }
        #expect(descriptions.count == errors.count, "every case describes itself differently")
    }
}
