import Foundation
import Strata
import Testing

@MainActor
@Suite("Main context")
struct MainContextTests {
    @Test(arguments: StoreKind.allCases)
    func fetchedObjectsFollowCommittedChanges(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            ann.name = "Ann"
            return ann.objectID
        })
        let ann = try #require(try stack.fetchExisting(id))
        try stack.perform(synchronous: { tx in tx.edit(id)?.name = "Anne" })
        #expect(ann.name == "Anne")
        try stack.perform(synchronous: { tx in tx.delete(id) })
        #expect(ann.isDeletedObject)
        #expect(try stack.fetchExisting(id) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func identityMapReturnsOneObjectPerID(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<Owner>()).name = "Ann" })
        let first = try #require(try stack.fetchOne(From<Owner>()))
        let second = try #require(try stack.fetchAll(From<Owner>()).first)
        #expect(first === second)
    }

    @Test(arguments: StoreKind.allCases)
    func asyncCommitsMergeInCommitOrder(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let id = try await stack.perform { tx in tx.create(Into<Owner>()).objectID }
        let owner = try #require(try stack.fetchExisting(id))
        for step in 1...20 {
            stack.perform(asynchronous: { tx in tx.edit(id)?.name = "v\(step)" }, completion: { _ in })
        }
        try await stack.perform { tx in _ = tx.edit(id) }
        #expect(owner.name == "v20")
        #expect(stack.mergedGeneration == 21)
    }

    @Test
    func objectIDsAreStableAcrossReopening() throws {
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(contextSchema, .file, in: directory)
        let ids = try stack!.perform(synchronous: { tx in
            (0..<5).map { _ in tx.create(Into<Owner>()).objectID }
        })
        // Deleting the newest object must not free its ID for reuse.
        try stack!.perform(synchronous: { tx in tx.delete(ids.last!) })
        stack = nil
        let reopened = try makeStack(contextSchema, .file, in: directory)
        #expect(try reopened.fetchObjectIDs(From<Owner>()) == Array(ids.dropLast()))
        let fresh = try reopened.perform(synchronous: { tx in tx.create(Into<Owner>()).objectID })
        #expect(!ids.contains(fresh))
    }
}
