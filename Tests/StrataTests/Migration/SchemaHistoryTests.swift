import Foundation
import Strata
import Testing

@Suite("Schema history and migration chain")
@MainActor
struct SchemaHistoryTests {
    private func chainProblem(_ history: SchemaHistory) -> String? {
        do {
            try history.validate()
            return nil
        } catch StrataError.invalidMigrationChain(let reason) {
            return reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test(arguments: [
        ("loop", SchemaHistory([schemaV1, schemaV2], chain: MigrationChain(["V1": "V2", "V2": "V1"])), "loops"),
        ("duplicate", SchemaHistory([schemaV1, schemaV2], chain: MigrationChain(["V1", "V2", "V1"])), "twice"),
        ("two successors", SchemaHistory([schemaV1, schemaV2, schemaV3],
                                         chain: MigrationChain(["V1": "V2", "V1": "V3"])), "two successors"),
        ("unknown version", SchemaHistory([schemaV1, schemaV2], chain: MigrationChain(["V1", "V9"])), "V9"),
        ("unknown sole version", SchemaHistory([schemaV1, schemaV2], chain: "V9"), "V9"),
        ("two leaves", SchemaHistory([schemaV1, schemaV2, schemaV3],
                                     chain: MigrationChain(["V1": "V2", "V3": "V3x"])), "V3x"),
        ("several leaves", SchemaHistory([schemaV1, schemaV2, schemaV3],
                                         chain: MigrationChain(["V1": "V2", "V1x": "V3"])), "V1x"),
        ("unknown current", SchemaHistory([schemaV1], currentVersion: "V7"), "V7"),
        ("duplicate schema", SchemaHistory([schemaV1, schemaV1]), "twice"),
        ("empty", SchemaHistory([]), "no schema"),
    ])
    func invalidHistoryIsATypedError(name: String, history: SchemaHistory, says: String) throws {
        let problem = try #require(chainProblem(history), "\(name) should be invalid")
        #expect(problem.contains(says), "\(name): \(problem)")
    }

    @Test func severalLeavesNeedAnExplicitCurrentVersion() {
        let branches = SchemaHistory([schemaV1, schemaV2, schemaV3], chain: ["V1": "V2"], currentVersion: "V2")
        #expect(chainProblem(branches) == nil)
        #expect(branches.currentVersion == "V2")
    }

    @Test func invalidChainIsReportedWhenTheStoreIsAdded() {
        let stack = DataStack(schemaHistory: SchemaHistory(
            [schemaV1, schemaV2], chain: MigrationChain(["V1": "V2", "V2": "V1"])))
        #expect {
            try stack.addStorageAndWait(InMemoryStore())
        } throws: { error in
            if case StrataError.invalidMigrationChain = error { true } else { false }
        }
    }

    @Test func currentVersionIsTheLeafOrTheLastListed() {
        #expect(SchemaHistory([schemaV1, schemaV2, schemaV3], chain: ["V1", "V3", "V2"]).currentVersion == "V2")
        #expect(SchemaHistory([schemaV1, schemaV3, schemaV2]).currentVersion == "V2")
        #expect(DataStack(schemaV1).schemaHistory.currentVersion == "V1")
    }

    /// CoreStore's `DataStack(v1, v2, migrationChain: "V1")` holds V1: a
    /// chain's leaf is the current version, a one-version chain's too.
    @Test func oneVersionChainMakesItsVersionCurrent() {
        for (chain, current) in [("V1", "V1"), ("V2", "V2"), ("V3", "V3")] {
            let history = SchemaHistory(
                [schemaV1, schemaV2, schemaV3], chain: MigrationChain(chain))
            #expect(chainProblem(history) == nil)
            #expect(history.currentVersion == current)
            #expect(DataStack(schemaHistory: history).modelVersion == current)
        }
        let listed = SchemaHistory([schemaV1, schemaV2], chain: ["V1"])
        #expect(listed.currentVersion == "V1")
        #expect(SchemaHistory([schemaV1, schemaV2], chain: []).currentVersion == "V2",
                "the empty chain still means the last schema")
        #expect(SchemaHistory([schemaV1, schemaV2], chain: "V1", currentVersion: "V2")
            .currentVersion == "V2", "an explicit current version wins")
    }

    @Test func stackModelVersionIsTheVersionItsStoresHold() {
        #expect(DataStack(schemaV1).modelVersion == "V1")
        let stack = DataStack(schemaHistory: SchemaHistory([schemaV1, schemaV2, schemaV3], chain: ["V1", "V3", "V2"]))
        #expect(stack.modelVersion == "V2")
        #expect(stack.modelVersion == stack.schema.version)
    }

    @Test func renamingIdentifierDoesNotChangeTheFingerprint() {
        final class Plain: ManagedObject {
            @Field.Stored("fullName") var fullName: String = ""
            @Field.Relationship("others") var others: Set<Plain>
        }
        final class Renamed: ManagedObject {
            @Field.Stored("fullName", renamingIdentifier: "name") var fullName: String = ""
            @Field.Relationship("others", renamingIdentifier: "friends") var others: Set<Renamed>
        }
        #expect(Schema("A", entities: [Entity<Plain>("Thing")]).fingerprint
            == Schema("B", entities: [Entity<Renamed>("Thing", renamingIdentifier: "Old")]).fingerprint)
    }
}
