import Foundation
import Testing

@testable import Strata

// CoreStore's version-lock model: Animal, Dog (a subentity of Animal) and
// Person, whose pets are animals. Class names start with `LockPort` so that
// they never clash with other test files' models.

class LockPortAnimal: ManagedObject {
    @Field.Stored("species") var species: String = "Swift"
    @Field.Relationship("master") var master: LockPortPerson?
}

final class LockPortDog: LockPortAnimal {
    @Field.Stored("nickname") var nickname: String? = nil
    @Field.Stored("age") var age: Int = 1
}

final class LockPortPerson: ManagedObject {
    @Field.Stored("title") var title: String? = nil
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("pets", inverse: \LockPortAnimal.$master) var pets: Set<LockPortAnimal>
}

/// CoreStore's `MigrationChainTests` and `VersionLockTests`, where the
/// existing tests do not already hold the same. Already covered, and so not
/// repeated here (Migration/MigrationChainTests.swift): the `nil` chain
/// (`nilChainIsTheEmptyChain`), the one-version chain
/// (`oneVersionChainIsEqualHoweverWrittenButIsNotTheEmptyChain`,
/// `containsAndNextVersionFollowTheEdges`), equality of the ways of writing a
/// chain (`emptyChainsAreEqualHoweverWritten`,
/// `linearChainEqualsItsSuccessorForm`), and the loops CoreStore leaves
/// commented out because they trap in its assertions, which in Strata make
/// an invalid chain (`loopsAndRepeatsAreInvalid`).
@Suite("CoreStore port: MigrationChainTests and VersionLockTests")
struct CoreStoreMigrationChainPortTests {
    /// `test_ThatArrayMigrationChains_HaveLinearVersions`.
    @Test
    func anArrayChainHasLinearVersions() {
        let chain: MigrationChain = ["version1", "version2", "version3", "version4"]
        #expect(chain.isValid)
        #expect(!chain.isEmpty)
        for version in ["version1", "version2", "version3", "version4"] {
            #expect(chain.contains(version))
        }
        #expect(!chain.contains("version5"))
        #expect(chain.nextVersionFrom("version1") == "version2")
        #expect(chain.nextVersionFrom("version2") == "version3")
        #expect(chain.nextVersionFrom("version3") == "version4")
        #expect(chain.nextVersionFrom("version4") == nil)
        #expect(chain.nextVersionFrom("version5") == nil)
    }

    /// `test_ThatDictionaryMigrationChains_HaveTreeVersions`: two branches
    /// that meet at version4.
    @Test
    func aDictionaryChainHasTreeVersions() {
        let chain: MigrationChain = ["version1": "version4", "version2": "version3", "version3": "version4"]
        #expect(chain.isValid)
        #expect(!chain.isEmpty)
        for version in ["version1", "version2", "version3", "version4"] {
            #expect(chain.contains(version))
        }
        #expect(!chain.contains("version5"))
        #expect(chain.nextVersionFrom("version1") == "version4")
        #expect(chain.nextVersionFrom("version2") == "version3")
        #expect(chain.nextVersionFrom("version3") == "version4")
        #expect(chain.nextVersionFrom("version4") == nil)
        #expect(chain.nextVersionFrom("version5") == nil)
    }

    /// `test_ThatVersionLocksProduceCorrectHashes`. CoreStore's lock is a
    /// hash per entity, printed as a dictionary literal; Strata's is one
    /// fingerprint for the whole version (ComingFromCoreStore.md, "Setting
    /// up"), printed by `versionLockHint` (Schema/VersionLockTests.swift).
    /// What CoreStore's test holds is that the hashes of one model never
    /// change; SchemaTests pins the fingerprint of a schema without
    /// relationships or inheritance, and this pins CoreStore's model, which
    /// has both: its canonical text, and the fingerprint of that text
    /// (checked against Python's `hashlib.sha256(text).hexdigest()[:32]`).
    @Test
    func theFingerprintOfCoreStoresLockModelIsPinned() {
        let schema = Schema("V1", entities: [
            Entity<LockPortAnimal>("Animal"), Entity<LockPortDog>("Dog"), Entity<LockPortPerson>("Person"),
        ])
        let text = SchemaFingerprint.canonicalText(schema.entities, linkTables: schema.linkTables)
        #expect(text == """
            entity Animal
              parent - table Animal
              master to-one INTEGER optional indexed
              species stored TEXT required
              master -> Person toOne inverse pets
            entity Dog
              parent Animal table Animal
              age stored INTEGER required
              master to-one INTEGER optional indexed
              nickname stored TEXT optional
              species stored TEXT required
            entity Person
              name stored TEXT required
              title stored TEXT optional
              pets -> Animal toMany inverse master
            """)
        #expect(schema.fingerprint == "08410afc8fd36c59d8ed5d8d3272a26f")
        #expect(schema.versionLockHint == "versionLock: \"08410afc8fd36c59d8ed5d8d3272a26f\"")
        let locked = Schema(
            "V1", entities: [
                Entity<LockPortAnimal>("Animal"), Entity<LockPortDog>("Dog"), Entity<LockPortPerson>("Person"),
            ], versionLock: "08410afc8fd36c59d8ed5d8d3272a26f")
        #expect(locked.isVersionLockSatisfied)
    }
}
