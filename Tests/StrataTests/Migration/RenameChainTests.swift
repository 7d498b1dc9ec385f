import Foundation
@testable import Strata
import Testing

// Renames kept declared through later versions, as Migrations.md (Rule 5)
// advises. V1 → V2 swaps first and second and renames title to heading;
// V3 keeps those declarations and adds a new field named title; V4 keeps
// everything and adds a field.

final class TokenV1: ManagedObject {
    @Field.Stored("first") var first: Int = 0
    @Field.Stored("second") var second: Int = 0
    @Field.Stored("title") var title: String = ""
}

final class TokenV2: ManagedObject {
    @Field.Stored("first", renamingIdentifier: "second") var first: Int = 0
    @Field.Stored("second", renamingIdentifier: "first") var second: Int = 0
    @Field.Stored("heading", renamingIdentifier: "title") var heading: String = ""
}

final class TokenV3: ManagedObject {
    @Field.Stored("first", renamingIdentifier: "second") var first: Int = 0
    @Field.Stored("second", renamingIdentifier: "first") var second: Int = 0
    @Field.Stored("heading", renamingIdentifier: "title") var heading: String = ""
    @Field.Stored("title") var title: String = "new"
}

final class TokenV4: ManagedObject {
    @Field.Stored("first", renamingIdentifier: "second") var first: Int = 0
    @Field.Stored("second", renamingIdentifier: "first") var second: Int = 0
    @Field.Stored("heading", renamingIdentifier: "title") var heading: String = ""
    @Field.Stored("title") var title: String = "new"
    @Field.Stored("extra") var extra: Int = 0
}

private let tokens = [
    Schema("V1", entities: [Entity<TokenV1>("Token")]),
    Schema("V2", entities: [Entity<TokenV2>("Token")]),
    Schema("V3", entities: [Entity<TokenV3>("Token")]),
    Schema("V4", entities: [Entity<TokenV4>("Token")]),
]

@Suite("Renames kept declared along a chain")
@MainActor
struct RenameChainTests {
    /// A field continues the field of the previous version that declares
    /// the same `renamingIdentifier` (itself, unchanged) before a field
    /// named by that identifier: so a swap declared once and kept is not
    /// swapped back by the next step, and a field that takes a renamed
    /// field's old name keeps its own values.
    @Test(arguments: migratingKinds)
    func keptRenamesCarryEachValueOnceAlongTheChain(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        let values = (0..<Int.random(in: 1...20, using: &random)).map { index in
            (Int.random(in: -1000...1000, using: &random), Int.random(in: -1000...1000, using: &random),
             "t\(index)")
        }
        do {
            let stack = DataStack(tokens[0])
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                for (first, second, title) in values {
                    let token = tx.create(Into<TokenV1>())
                    (token.first, token.second, token.title) = (first, second, title)
                }
            })
            try stack.removeStorage()
        }
        // Up to V3, one version at a time, setting V3's new title.
        do {
            let stack = DataStack(schemaHistory: SchemaHistory(Array(tokens[0...2]), chain: ["V1", "V2", "V3"]))
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            let atV3 = try stack.fetchAll(From<TokenV3>().orderBy(.ascending(\.$heading)))
            #expect(atV3.map(\.first) == values.sorted { $0.2 < $1.2 }.map(\.1), "seed \(random.seed)")
            try stack.perform(synchronous: { tx in
                for token in try tx.fetchAll(From<TokenV3>()) { token.title = "now " + token.heading }
            })
            try stack.removeStorage()
        }
        let stack = DataStack(schemaHistory: SchemaHistory(tokens, chain: ["V1", "V2", "V3", "V4"]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let migrated = try stack.fetchAll(From<TokenV4>().orderBy(.ascending(\.$heading)))
        let expected = values.sorted { $0.2 < $1.2 }
        #expect(migrated.map(\.first) == expected.map(\.1), "seed \(random.seed)")
        #expect(migrated.map(\.second) == expected.map(\.0), "seed \(random.seed)")
        #expect(migrated.map(\.heading) == expected.map(\.2), "seed \(random.seed)")
        #expect(migrated.map(\.title) == expected.map { "now " + $0.2 }, "seed \(random.seed)")
    }
}
