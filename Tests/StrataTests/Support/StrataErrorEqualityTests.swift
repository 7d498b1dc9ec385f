import Foundation
import Strata
import Testing

/// Errors of a test's own, one of each kind `userError` compares differently.
private struct PlainError: Error {}
private struct OtherPlainError: Error {}
private enum KindError: Error { case first, second }
private struct CodedError: Error, Equatable { var code: Int }
private final class ReferenceError: Error {}

@Suite("StrataError: equality, as CoreStoreError's")
struct StrataErrorEqualityTests {
    @Test
    @MainActor
    func cancelledTransactionThrowsAnErrorEqualToUserCancelled() throws {
        let stack = try DataStack.inMemory(TxSchema.schema)
        #expect(throws: StrataError.userCancelled) {
            try stack.perform(synchronous: { tx in
                tx.create(Into<TxPerson>()).name = "Ann"
                try tx.cancel()
            })
        }
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
    }

    @Test
    @MainActor
    func errorThrownByTheClosureComparesAsItself() throws {
        let stack = try DataStack.inMemory(TxSchema.schema)
        #expect(throws: StrataError.userError(TxValueError(code: 7))) {
            try stack.perform(synchronous: { _ in throw TxValueError(code: 7) })
        }
        do {
            try stack.perform(synchronous: { _ in throw TxValueError(code: 7) })
        } catch {
            #expect(error != .userError(TxValueError(code: 8)))
            #expect(error != .userCancelled)
        }
    }

    /// Every pair of a list of distinct errors: equal to itself and to a copy
    /// made anew, unequal to every other, and hashed alike when equal.
    @Test
    func equalityIsSameCaseWithEqualValues() {
        let reference = ReferenceError()
        // Each element is made twice, so that equality never rests on one instance.
        let make: [() -> StrataError] = [
            { .userCancelled }, { .nestedTransaction }, { .storeNotAdded },
            { .storage(path: "/a", reason: "r") }, { .storage(path: "/b", reason: "r") },
            { .notADatabase(path: "/a", reason: "r") }, { .readOnlyStore(path: "/a") },
            { .storeNotFound(entity: "E", configuration: nil) },
            { .storeNotFound(entity: "E", configuration: "Cache") },
            { .uniqueConstraintViolation(entity: "E", fields: ["a"]) },
            { .uniqueConstraintViolation(entity: "E", fields: ["a", "b"]) },
            { .deleteDenied(entity: "E", relationship: "r", relatedCount: 1) },
            { .deleteDenied(entity: "E", relationship: "r", relatedCount: 2) },
            { .invalidSchema(entity: nil, field: nil, reason: "r") },
            { .invalidSchema(entity: "E", field: nil, reason: "r") },
            { .invalidValue(entity: "E", field: "f", reason: "r") },
            { .sqlite(code: 19, message: "m", sql: nil) }, { .sqlite(code: 19, message: "m", sql: "S") },
            { .migrationStepThrew(sourceVersion: "V1", destinationVersion: "V2", entity: nil, error: PlainError()) },
            {
                .migrationStepThrew(
                    sourceVersion: "V1", destinationVersion: "V2", entity: nil, error: OtherPlainError())
            },
            { .userError(PlainError()) }, { .userError(OtherPlainError()) },
            { .userError(KindError.first) }, { .userError(KindError.second) },
            { .userError(CodedError(code: 1)) }, { .userError(CodedError(code: 2)) },
            { .userError(reference) },
        ]
        for (i, left) in make.enumerated() {
            for (j, right) in make.enumerated() {
                let (a, b) = (left(), right())
                if i == j {
                    #expect(a == b, "\(a.debugDescription)")
                    #expect(a.hashValue == b.hashValue, "\(a.debugDescription)")
                } else {
                    #expect(a != b, "\(a.debugDescription) vs \(b.debugDescription)")
                }
            }
        }
        #expect(StrataError.userError(reference) != .userError(ReferenceError()), "two instances are two errors")
        #expect(Set([StrataError.userCancelled, .userCancelled, .nestedTransaction]).count == 2)
    }
}
