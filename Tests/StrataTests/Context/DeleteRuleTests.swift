import Foundation
import Strata
import Testing

@MainActor
@Suite("Delete rules")
struct DeleteRuleTests {
    @Test(arguments: StoreKind.allCases)
    func cascadeDeletesRelatedObjects(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let annID = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            for index in 0..<3 {
                let pet = tx.create(Into<Animal>())
                pet.name = "p\(index)"
                pet.owner = ann
            }
            let other = tx.create(Into<Animal>())
            other.name = "stray"
            return ann.objectID
        })
        let tx = try stack.beginUnsafe()
        tx.delete(annID)
        let changeSet = try #require(try tx.commitAndWait())
        #expect(changeSet.deletedIDs(entity: "Animal").count == 3)
        #expect(try stack.fetchAll(From<Animal>()).map(\.name) == ["stray"])
        #expect(try stack.fetchCount(From<Owner>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func nullifyClearsTheInverseOfRelatedObjects(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let annID = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            let animal = tx.create(Into<Animal>())
            animal.queuedAt = ann
            animal.favorite = ann  // no inverse: cleared as well
            let club = tx.create(Into<Club>())
            club.members = [ann]
            return ann.objectID
        })
        try stack.perform(synchronous: { tx in tx.delete(annID) })
        let animal = try #require(try stack.fetchOne(From<Animal>()))
        #expect(animal.queuedAt == nil)
        #expect(animal.favorite == nil)
        let club = try #require(try stack.fetchOne(From<Club>()))
        #expect(club.members.isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func denyFailsTheCommitAndLeavesEverythingAsItWas(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let annID = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            ann.name = "Ann"
            tx.create(Into<Passport>()).holder = ann
            return ann.objectID
        })
        let generation = stack.mergedGeneration
        #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in tx.delete(annID) })
        }
        do {
            try stack.perform(synchronous: { tx in tx.delete(annID) })
        } catch StrataError.deleteDenied(let entity, let relationship, let count) {
            #expect(entity == "Owner" && relationship == "passport" && count == 1)
        } catch {
            // Exhaustive: Swift 6.3.1 can crash (SIL ownership) compiling a typed
            // catch that lets other errors through.
            throw error
        }
        #expect(stack.mergedGeneration == generation)
        let ann = try #require(try stack.fetchExisting(annID))
        #expect(ann.name == "Ann" && ann.passport != nil)
        // Deleting the related object first lets the delete through.
        try stack.perform(synchronous: { tx in
            tx.delete(tx.edit(annID)?.passport)
            tx.delete(annID)
        })
        #expect(try stack.fetchCount(From<Owner>()) == 0)
    }

    @Test
    func randomDeletesNeverLeaveDanglingLinks() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, .file, in: directory)
        var random = SplitMix64(seed: 42)
        for round in 0..<20 {
            try stack.perform(synchronous: { tx in
                let owners = try tx.fetchAll(From<Owner>())
                let animals = try tx.fetchAll(From<Animal>())
                for _ in 0..<5 {
                    let animal = tx.create(Into<Animal>())
                    animal.owner = owners.randomElement(using: &random)
                    animal.queuedAt = owners.randomElement(using: &random)
                }
                if owners.count < 8 { tx.create(Into<Owner>()).name = "o\(round)" }
                if let victim = owners.randomElement(using: &random), Bool.random(using: &random) {
                    if victim.passport == nil { tx.delete(victim) }
                }
                if let victim = animals.randomElement(using: &random) { tx.delete(victim) }
            })
            let liveOwners = Set(try stack.fetchObjectIDs(From<Owner>()))
            for animal in try stack.fetchAll(From<Animal>()) {
                if let owner = animal.owner {
                    #expect(liveOwners.contains(owner.objectID), "seed 42, round \(round)")
                }
                if let queued = animal.queuedAt {
                    #expect(liveOwners.contains(queued.objectID), "seed 42, round \(round)")
                }
            }
        }
    }
}
