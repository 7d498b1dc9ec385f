import Foundation
@testable import Strata
import Testing

// Three versions of a tree. V1: Beast alone. V2: Hound becomes a subentity
// of Beast, with its own breed and size. V3: size moves up to Beast (its
// default 1 for beasts that never had it), and Hound gains an age.

final class BeastV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

class BeastV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
}

final class HoundV2: BeastV2 {
    @Field.Stored("breed") var breed: String = "mutt"
    @Field.Stored("size") var size: Int = 0
}

class BeastV3: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("size") var size: Int = 1
}

final class HoundV3: BeastV3 {
    @Field.Stored("breed") var breed: String = "mutt"
    @Field.Stored("age") var age: Int = 2
}

private let beastV1 = Schema("V1", entities: [Entity<BeastV1>("Beast")])
private let beastV2 = Schema("V2", entities: [Entity<BeastV2>("Beast"), Entity<HoundV2>("Hound")])
private let beastV3 = Schema("V3", entities: [Entity<BeastV3>("Beast"), Entity<HoundV3>("Hound")])

@Suite("Inheritance: migrations that add a subentity, move a field up, add a field below")
@MainActor
struct InheritanceMigrationTests {
    private func history(current: String) -> SchemaHistory {
        SchemaHistory([beastV1, beastV2, beastV3], chain: MigrationChain(["V1", "V2", "V3"]), currentVersion: current)
    }

    /// A V1 store with three beasts; their row IDs by name.
    private func makeV1Store(at url: URL) throws -> [String: Int64] {
        let stack = DataStack(beastV1)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        return try stack.perform(synchronous: { tx in
            var ids: [String: Int64] = [:]
            for name in ["Ann", "Bo", "Cy"] {
                let beast = tx.create(Into<BeastV1>())
                beast.name = name
                ids[name] = beast.objectID.rowID
            }
            let gone = tx.create(Into<BeastV1>())  // its ID must not come back
            ids["gone"] = gone.objectID.rowID
            return ids
        })
    }

    private func dropGone(at url: URL) throws {
        let stack = DataStack(beastV1)
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        try stack.perform(synchronous: { tx in
            tx.delete(try tx.fetchAll(From<BeastV1>().where(\.$name == "")))
        })
    }

    @Test
    func addingASubentityKeepsTheBasesRowsAndIDsAndMovingAFieldUpKeepsItsValues() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let ids = try makeV1Store(at: url)
        try dropGone(at: url)
        // V1 → V2: Beast gains a subentity; its rows stay beasts, with their IDs.
        let houndIDs: [Int64] = try {
            let stack = DataStack(schemaHistory: history(current: "V2"))
            try stack.addStorageAndWait(SQLiteStore(fileURL: url))
            let beasts = try stack.fetchAll(From<BeastV2>().orderBy(.ascending(\.$name)))
            #expect(beasts.map(\.name) == ["Ann", "Bo", "Cy"])
            #expect(beasts.map(\.objectID.rowID) == [ids["Ann"]!, ids["Bo"]!, ids["Cy"]!])
            #expect(beasts.allSatisfy { !($0 is HoundV2) } && beasts.allSatisfy { $0.objectID.entityName == "Beast" })
            return try stack.perform(synchronous: { tx in
                (1...2).map { size in
                    let hound = tx.create(Into<HoundV2>())
                    hound.name = "H\(size)"
                    hound.breed = "lab"
                    hound.size = size * 10
                    return hound.objectID.rowID
                }
            })
        }()
        #expect(houndIDs.allSatisfy { $0 > ids["gone"]! }, "the tree's sequence carried the old entity's")
        // V2 → V3: size moves up to Beast, Hound gains age.
        let stack = DataStack(schemaHistory: history(current: "V3"))
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        let all = try stack.fetchAll(From<BeastV3>().orderBy(.ascending(\.$name)))
        #expect(all.map(\.name) == ["Ann", "Bo", "Cy", "H1", "H2"])
        #expect(all.map(\.size) == [1, 1, 1, 10, 20], "hounds keep their sizes; beasts take the default")
        let hounds = try stack.fetchAll(From<HoundV3>().orderBy(.ascending(\.$name)))
        #expect(hounds.map(\.objectID.rowID) == houndIDs)
        #expect(hounds.map(\.breed) == ["lab", "lab"] && hounds.map(\.age) == [2, 2])
        #expect(try stack.fetchCount(From<BeastV3>().where(\.$size > 5)) == 2)
        let next = try stack.perform(synchronous: { tx in tx.create(Into<HoundV3>()).objectID.rowID })
        #expect(next > houndIDs.max()!)
    }

    @Test
    func aStoreOfTheFirstVersionMigratesToTheLastInOneStep() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        let ids = try makeV1Store(at: url)
        let stack = DataStack(schemaHistory: SchemaHistory([beastV1, beastV3], chain: MigrationChain(["V1", "V3"])))
        try stack.addStorageAndWait(SQLiteStore(fileURL: url))
        let beasts = try stack.fetchAll(From<BeastV3>())
        #expect(Set(beasts.map(\.objectID.rowID)) == Set(ids.values))
        #expect(beasts.allSatisfy { $0.size == 1 && !($0 is HoundV3) })
        #expect(try stack.fetchCount(From<HoundV3>()) == 0)
        let table = try #require(beastV3.tables.first { $0.name == "Beast" })
        #expect(table.columns.map(\.name) == ["_pk", "_entity", "name", "size", "breed", "age"])
    }
}
