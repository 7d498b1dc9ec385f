import Foundation
import Strata
import Testing

final class LockedThing: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

@Suite("Schema version lock")
struct VersionLockTests {
    @Test
    func theHintIsTheArgumentToPaste() {
        let schema = Schema("V1", entities: [Entity<LockedThing>("Thing")])
        #expect(schema.versionLockHint == "versionLock: \"\(schema.fingerprint)\"")
        #expect(schema.isVersionLockSatisfied)
    }

    @Test @MainActor
    func aMatchingLockOpensNormally() throws {
        let fingerprint = Schema("V1", entities: [Entity<LockedThing>("Thing")]).fingerprint
        let locked = Schema("V1", entities: [Entity<LockedThing>("Thing")], versionLock: fingerprint)
        #expect(locked.isVersionLockSatisfied)
        let stack = DataStack(locked)
        try stack.addStorageAndWait(InMemoryStore())
        #expect(try stack.fetchCount(From<LockedThing>()) == 0)
    }

    @Test
    func aSchemaEditedAfterItsLockIsReported() {
        let stale = Schema("V1", entities: [Entity<LockedThing>("Thing")], versionLock: "0123456789abcdef0123456789abcdef")
        #expect(!stale.isVersionLockSatisfied)
    }

    @Test
    func addingAStoreWithAStaleLockTrapsInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            let stale = Schema(
                "V1", entities: [Entity<LockedThing>("Thing")],
                versionLock: "0123456789abcdef0123456789abcdef")
            try await MainActor.run {
                _ = try DataStack(stale).addStorageAndWait(InMemoryStore())
            }
        }
    }
}
