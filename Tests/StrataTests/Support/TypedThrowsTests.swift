import Foundation
import Strata
import Testing

final class TypedCard: ManagedObject {
    @Field.Stored("code", .unique) var code: Int = 0
    @Field.Stored("points") var points: Int = 0
}

final class TypedNote: ManagedObject {
    @Field.Stored("text") var text: String = ""
}

private let cardSchema = Schema("TypedCards", entities: [Entity<TypedCard>("TypedCard")])
private let noteSchema = Schema("TypedNotes", entities: [Entity<TypedNote>("TypedNote")])

private enum TypedFailure: Error, Equatable {
    case boom
}

/// The case `body` fails with, named by a switch over every case of
/// `StrataError` with no `default` and no cast: it compiles only because
/// the APIs throw `StrataError` itself.
private func kind(_ body: () throws(StrataError) -> Void) -> String {
    do {
        try body()
        return "no error"
    } catch {
        return name(of: error)
    }
}

/// The async form of `kind(_:)`.
private func kind(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws(StrataError) -> Void
) async -> String {
    do {
        try await body()
        return "no error"
    } catch {
        return name(of: error)
    }
}

private func name(of error: StrataError) -> String {
    switch error {
    case .storage: "storage"
    case .notADatabase: "notADatabase"
    case .readOnlyStore: "readOnlyStore"
    case .storeNotAdded: "storeNotAdded"
    case .storeNotFound: "storeNotFound"
    case .crossStoreTransaction: "crossStoreTransaction"
    case .schemaMismatch: "schemaMismatch"
    case .invalidSchema: "invalidSchema"
    case .invalidMigrationChain: "invalidMigrationChain"
    case .migrationFailed: "migrationFailed"
    case .migrationStepThrew: "migrationStepThrew"
    case .progressiveMigrationPrevented: "progressiveMigrationPrevented"
    case .invalidValue: "invalidValue"
    case .uniqueConstraintViolation: "uniqueConstraintViolation"
    case .deleteDenied: "deleteDenied"
    case .nestedTransaction: "nestedTransaction"
    case .sqlite: "sqlite"
    case .postgreSQL: "postgreSQL"
    case .serverUnavailable: "serverUnavailable"
    case .userCancelled: "userCancelled"
    case .userError(let error): "userError(\(error))"
    }
}

/// A helper written once for stacks and transactions keeps the typed error.
private func cardCount(in source: some FetchableSource) throws(StrataError) -> Int {
    try source.fetchCount(From<TypedCard>())
}

@MainActor
@Suite("Typed throws")
struct TypedThrowsTests {
    // Each failure is a local function declared `throws(StrataError)`: its body
    // compiles only because every Strata call in it throws StrataError itself.
    // (A closure literal would need the same `() throws(StrataError) in`
    // annotation: Swift infers `any Error` for an unannotated closure.)

    @Test
    func realFailuresLandInTheirCaseWithoutACast() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(cardSchema, .file, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<TypedCard>()).code = 1 })

        func readWithoutAStore() throws(StrataError) {
            _ = try DataStack(cardSchema).fetchAll(From<TypedCard>())
        }
        func beginWithoutAStore() throws(StrataError) {
            _ = try DataStack(cardSchema).beginUnsafe()
        }
        func insertADuplicate() throws(StrataError) {
            try stack.perform(synchronous: { tx in tx.create(Into<TypedCard>()).code = 1 })
        }
        func openWithAnotherSchema() throws(StrataError) {
            try DataStack(noteSchema).addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory)))
        }
        func throwMyOwnError() throws(StrataError) {
            try stack.perform(synchronous: { _ in throw TypedFailure.boom })
        }
        func cancel() throws(StrataError) {
            try stack.perform(synchronous: { tx in try tx.cancel() })
        }
        func nest() throws(StrataError) {
            try stack.perform(synchronous: { _ in try stack.perform(synchronous: { _ in }) })
        }
        func parseAnIDThatIsNot() throws(StrataError) {
            _ = try AnyObjectID(parsing: "not an ID")
        }
        func countThroughAGenericHelper() throws(StrataError) {
            _ = try cardCount(in: stack)
        }

        #expect(kind(readWithoutAStore) == "storeNotAdded")
        #expect(kind(beginWithoutAStore) == "storeNotAdded")
        #expect(kind(insertADuplicate) == "uniqueConstraintViolation")
        #expect(kind(openWithAnotherSchema) == "schemaMismatch")
        #expect(kind(throwMyOwnError) == "userError(boom)")
        #expect(kind(cancel) == "userCancelled")
        #expect(kind(nest) == "nestedTransaction")
        #expect(kind(parseAnIDThatIsNot) == "invalidValue")
        #expect(kind(countThroughAGenericHelper) == "no error")
        #expect(try stack.fetchCount(From<TypedCard>()) == 1, "every failed transaction rolled back")
    }

    @Test
    func sqliteErrorsAndCallersErrorsOutsideATransactionAreStrataErrorsToo() throws {
        let stack = try DataStack.inMemory(cardSchema) { tx in
            for code in 1...2 {
                let card = tx.create(Into<TypedCard>())
                card.code = code
                card.points = .max
            }
        }
        let tx = try stack.beginUnsafe()

        // SQLite's own "integer overflow" comes out as .sqlite, not as an internal error type.
        func overflowASum() throws(StrataError) {
            _ = try stack.queryValue(From<TypedCard>().select(Int.self, .sum(\.$points)))
        }
        // A caller's error from a closure given to an unsafe transaction's call
        // is wrapped, as perform wraps a body's error.
        func failToConfigure() throws(StrataError) {
            _ = try tx.fetchOrCreate(From<TypedCard>().where(\.$code == 9)) { _ in
                throw TypedFailure.boom
            }
        }
        func countInTheTransaction() throws(StrataError) {
            _ = try cardCount(in: tx)
        }

        #expect(kind(overflowASum) == "sqlite")
        #expect(kind(failToConfigure) == "userError(boom)")
        #expect(kind(countInTheTransaction) == "no error")
    }

    @Test
    func asyncCallsThrowStrataErrorToo() async throws {
        let stack = try DataStack.inMemory(cardSchema)
        func cancel() async throws(StrataError) {
            try await stack.perform { tx -> Void in try tx.cancel() }
        }
        func throwMyOwnError() async throws(StrataError) {
            try await stack.perform { _ in throw TypedFailure.boom }
        }
        func addAStore() async throws(StrataError) {
            try await DataStack(cardSchema).addStorage(InMemoryStore())
        }

        #expect(await kind(cancel) == "userCancelled")
        #expect(await kind(throwMyOwnError) == "userError(boom)")
        #expect(await kind(addAStore) == "no error")
    }

    @Test
    func aCatchSwitchesOnTheErrorAndAResultKeepsItsType() {
        let stack = DataStack(cardSchema)
        var seen = ""
        do {
            _ = try stack.fetchAll(From<TypedCard>())
        } catch {
            switch error {
            case .storeNotAdded: seen = "add a store first"
            case .userError(let error as TypedFailure): seen = "mine: \(error)"
            default: seen = error.debugDescription
            }
        }
        #expect(seen == "add a store first")

        let result = Result { () throws(StrataError) in try stack.fetchCount(From<TypedCard>()) }
        guard case .failure(.storeNotAdded) = result else {
            Issue.record("expected .storeNotAdded, got \(result)")
            return
        }
    }
}
