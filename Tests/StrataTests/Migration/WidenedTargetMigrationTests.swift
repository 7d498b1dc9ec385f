import Foundation
@testable import Strata
import Testing

// V1 → V2 widens two relationships' target from a subentity to its base:
// Collar.wearer (a to-one) and Kennel.residents (a to-many without inverse,
// in a link table) pointed at Whelps, and point at any Creature in V2.

class CreatureV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class WhelpV1: CreatureV1 {
    @Field.Stored("age") var age: Int = 0
}

final class CollarV1: ManagedObject {
    @Field.Stored("color") var color: String = ""
    @Field.Relationship("wearer") var wearer: WhelpV1?
}

final class KennelV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("residents") var residents: Set<WhelpV1>
}

class CreatureV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class WhelpV2: CreatureV2 {
    @Field.Stored("age") var age: Int = 0
}

final class CollarV2: ManagedObject {
    @Field.Stored("color") var color: String = ""
    @Field.Relationship("wearer") var wearer: CreatureV2?
}

final class KennelV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("residents") var residents: Set<CreatureV2>
}

private let creaturesV1 = Schema("V1", entities: [
    Entity<CreatureV1>("Creature"), Entity<WhelpV1>("Whelp"), Entity<CollarV1>("Collar"),
    Entity<KennelV1>("Kennel"),
])
private let creaturesV2 = Schema("V2", entities: [
    Entity<CreatureV2>("Creature"), Entity<WhelpV2>("Whelp"), Entity<CollarV2>("Collar"),
    Entity<KennelV2>("Kennel"),
])

@Suite("Migrating a relationship whose target widens to a base entity")
@MainActor
struct WidenedTargetMigrationTests {
    /// Every object a relationship pointed at is still an object of its new
    /// target, a base entity of the old one, so the links are carried, as
    /// Core Data carries them, instead of starting empty as for an
    /// unrelated target.
    @Test(arguments: migratingKinds)
    func linksToASubentityStayWhenTheTargetBecomesItsBase(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        do {
            let stack = DataStack(creaturesV1)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            try stack.perform(synchronous: { tx in
                tx.create(Into<CreatureV1>()).name = "Plain"
                let whelps = ["Bo", "Cy", "Di"].map { name in
                    let whelp = tx.create(Into<WhelpV1>())
                    whelp.name = name
                    return whelp
                }
                for (color, wearer) in [("red", whelps[0]), ("blue", whelps[2]), ("none", nil)] {
                    let collar = tx.create(Into<CollarV1>())
                    collar.color = color
                    collar.wearer = wearer
                }
                let kennel = tx.create(Into<KennelV1>())
                kennel.name = "K"
                kennel.residents = [whelps[1], whelps[2]]
            })
            try stack.removeStorage()
        }
        let stack = DataStack(schemaHistory: SchemaHistory([creaturesV1, creaturesV2]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let wearers = Dictionary(uniqueKeysWithValues: try stack.fetchAll(From<CollarV2>()).map {
            ($0.color, $0.wearer?.name ?? "-")
        })
        #expect(wearers == ["red": "Bo", "blue": "Di", "none": "-"])
        let kennel = try #require(try stack.fetchOne(From<KennelV2>()))
        #expect(Set(kennel.residents.map(\.name)) == ["Cy", "Di"])
    }
}
