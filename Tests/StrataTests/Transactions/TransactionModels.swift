import Foundation
import Strata

// The models the transaction tests use. Class names start with `Tx` so that
// they never clash with other test files' models.

/// A person with a unique email, for commits, rollbacks and failed commits.
final class TxPerson: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("age") var age: Int = 0
    @Field.Stored("email", .unique) var email: String? = nil
}

/// One number that concurrent transactions increment.
final class TxCounter: ManagedObject {
    @Field.Stored("value") var value: Int = 0
}

/// A row of random data that queries are checked against.
final class TxItem: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("label") var label: String? = nil
}

/// A numbered row, written by the hundred thousand in crash tests.
final class TxBlob: ManagedObject {
    @Field.Stored("index") var index: Int = 0
    @Field.Stored("batch") var batch: String = ""
}

enum TxSchema {
    /// Every transaction-test entity in one schema.
    static let schema = Schema(
        "TxV1",
        entities: [
            Entity<TxPerson>("TxPerson"), Entity<TxCounter>("TxCounter"),
            Entity<TxItem>("TxItem"), Entity<TxBlob>("TxBlob"),
        ])

    static let person = Entity<TxPerson>("TxPerson")
}

/// An error of the test's own, to check that it comes back unchanged.
struct TxValueError: Error, Equatable {
    let code: Int
}

/// An error with identity, to check that the very same instance comes back.
final class TxReferenceError: Error {}
