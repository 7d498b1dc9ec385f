import Foundation
@testable import Strata
import Testing

// V1 → V2 makes a subentity's field unique: Mutt.tag (Mutt a subentity of
// Canine), stored in Canine's table.

class CanineV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class MuttV1: CanineV1 {
    @Field.Stored("tag") var tag: Int = 0
}

class CanineV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class MuttV2: CanineV2 {
    @Field.Stored("tag", .unique) var tag: Int = 0
}

private let caninesV1 = Schema("V1", entities: [Entity<CanineV1>("Canine"), Entity<MuttV1>("Mutt")])
private let caninesV2 = Schema("V2", entities: [Entity<CanineV2>("Canine"), Entity<MuttV2>("Mutt")])

@Suite("Unique fields of subentities added by a migration")
@MainActor
struct TreeUniqueMigrationTests {
    /// Two mutts sharing a tag fail the step naming Mutt, the entity whose
    /// field `.unique` covers (as a commit's violation does), not Canine,
    /// whose table the tree shares; the old version stays and opens.
    @Test(arguments: migratingKinds)
    func aClashNamesTheSubentityDeclaringTheField(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        do {
            let stack = DataStack(caninesV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                tx.create(Into<CanineV1>()).name = "Rex"
                for name in ["Bo", "Cy"] {
                    let mutt = tx.create(Into<MuttV1>())
                    mutt.name = name
                    mutt.tag = 7
                }
            })
            try stack.removeStorage()
        }
        let stack = DataStack(schemaHistory: SchemaHistory([caninesV1, caninesV2]))
        #expect {
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
        } throws: { error in
            if case StrataError.migrationFailed("V1", "V2", "Mutt", "tag", _) = error { true } else { false }
        }
        let old = DataStack(caninesV1)
        try old.addStorageAndWait(makeStorage(kind, in: directory))
        #expect(try old.fetchCount(From<MuttV1>()) == 2)
    }
}
