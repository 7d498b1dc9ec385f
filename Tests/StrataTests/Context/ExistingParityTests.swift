import Foundation
import Testing

@testable import Strata

// Moving objects between contexts as CoreStore's FetchTests
// (test_ThatDataStacksAndTransactions_CanFetchOneExisting / ...AllExisting)
// and NSManagedObjectContext+Querying.swift's fetchExisting describe it:
// each context answers with its own instance of the object, or nil (left out,
// for many) when the object does not exist there.

@MainActor
@Suite("Existing objects: CoreStore parity across contexts")
struct ExistingParityTests {
    /// Three owners, "a", "b", "c", committed.
    private func seeded(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
        let stack = try makeStack(contextSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for name in ["a", "b", "c"] { tx.create(Into<Owner>()).name = name }
        })
        return stack
    }

    private func owners(_ stack: DataStack) throws -> [Owner] {
        try stack.fetchAll(From<Owner>().orderBy(.ascending(\.$name)))
    }

    /// FetchTests: a transaction's fetchExisting gives its own instances; the
    /// stack's, given those, gives the main context's again, also after the
    /// transaction was cancelled.
    @Test(arguments: StoreKind.sqlite)
    func eachContextAnswersWithItsOwnInstance(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seeded(kind, in: directory)
        let held = try owners(stack)
        let mainContext = try #require(held.first?.context)
        var fromTransaction: [Owner] = []
        var single: Owner?
        #expect(throws: StrataError.userCancelled) {
            try stack.perform(synchronous: { tx in
                single = try tx.fetchExisting(held[0])
                fromTransaction = try tx.fetchExisting(held)
                #expect(single?.objectID == held[0].objectID)
                #expect(single?.context !== mainContext && single?.context != nil)
                #expect(fromTransaction.map(\.objectID) == held.map(\.objectID))
                #expect(fromTransaction.allSatisfy { $0.context === single?.context })
                #expect(try tx.fetchExisting(held.map(\.objectID)).map(\.name) == ["a", "b", "c"])
                try tx.cancel()
            })
        }
        let cancelled = try #require(single)
        let back = try #require(try stack.fetchExisting(cancelled))
        #expect(back === held[0])
        let heldIdentities = held.map { ObjectIdentifier($0) }
        #expect(try stack.fetchExisting(fromTransaction).map { ObjectIdentifier($0) } == heldIdentities)

        let unsafe = try stack.beginUnsafe()
        let mine = try unsafe.fetchExisting(held)
        #expect(mine.map(\.objectID) == held.map(\.objectID))
        #expect(try stack.fetchExisting(mine).map { ObjectIdentifier($0) } == heldIdentities)
        unsafe.rollback()
    }

    /// NSManagedObjectContext.fetchExisting(_ objects:) is a compactMap: the
    /// objects that no longer exist are left out, the others keep their order
    /// (and repeats), wherever they were deleted.
    @Test(arguments: StoreKind.sqlite)
    func manyLeaveOutTheDeletedAndKeepTheOrder(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seeded(kind, in: directory)
        let held = try owners(stack)  // a, b, c
        try stack.perform(synchronous: { tx in tx.delete(held[1]) })
        #expect(try stack.fetchExisting(held[1]) == nil)
        #expect(try stack.fetchExisting(held[1].objectID) == nil)
        #expect(try stack.fetchExisting([held[2], held[1], held[0], held[2]]).map(\.name) == ["c", "a", "c"])
        #expect(
            try stack.fetchExisting([held[2].objectID, held[1].objectID, held[0].objectID]).map(\.name)
                == ["c", "a"])
        #expect(throws: StrataError.userCancelled) {
            try stack.perform(synchronous: { tx in
                #expect(try tx.fetchExisting(held[1]) == nil)
                #expect(tx.edit(held[1]) == nil)
                let c = try #require(tx.edit(held[2]))
                tx.delete(c)
                #expect(try tx.fetchExisting(held[2]) == nil)
                #expect(try tx.fetchExisting(c) == nil)
                #expect(try tx.fetchExisting(held[2].objectID) == nil)
                #expect(try tx.fetchExisting(held).map(\.name) == ["a"])
                #expect(tx.edit(held).map(\.name) == ["a"])
                #expect(tx.edit(held.map(\.objectID)).map(\.name) == ["a"])
                try tx.cancel()
            })
        }
    }

    /// CoreStore's fetchExisting of an object inserted in a transaction that
    /// has not saved: the main context has no such object (nil); the
    /// transaction itself answers with the object.
    @Test(arguments: StoreKind.sqlite)
    func anObjectNotYetCommittedExistsOnlyInItsTransaction(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try seeded(kind, in: directory)
        let unsafe = try stack.beginUnsafe()
        let draft = unsafe.create(Into<Owner>())
        draft.name = "draft"
        #expect(try unsafe.fetchExisting(draft) === draft)
        #expect(try unsafe.fetchExisting(draft.objectID) === draft)
        _ = try unsafe.fetchCount(From<Owner>())  // flushed into the open write transaction
        #expect(try stack.fetchExisting(draft) == nil)
        #expect(try stack.fetchExisting(draft.objectID) == nil)
        #expect(try stack.fetchExisting([draft]).isEmpty)
        unsafe.rollback()
    }

    /// An object of another stack (another store file) is none of this
    /// stack's, whatever its row ID: Core Data cannot reach another
    /// coordinator's store from a context, and CoreStore answers nil.
    @Test(arguments: StoreKind.sqlite)
    func anObjectOfAnotherStackIsNotFound(_ kind: StoreKind) throws {
        let first = TemporaryDirectory()
        let second = TemporaryDirectory()
        let stackA = try seeded(kind, in: first)
        let stackB = try seeded(kind, in: second)
        let fromA = try owners(stackA)
        #expect(try stackB.fetchExisting(fromA[0]) == nil)
        #expect(try stackB.fetchExisting(fromA).isEmpty)
        try stackB.perform(synchronous: { (tx) throws in
            #expect(tx.edit(fromA[0]) == nil)
            #expect(tx.edit(fromA).isEmpty)
            #expect(try tx.fetchExisting(fromA[0]) == nil)
            tx.delete(fromA[0])
        })
        #expect(try stackB.fetchCount(From<Owner>()) == 3)
    }

    /// Two stacks over one file share one store: an object of the first is
    /// the second's row of the same ID, and the second can edit it.
    @Test
    func anObjectOfAnotherStackOverTheSameFileIsFound() throws {
        let directory = TemporaryDirectory()
        let stackA = try seeded(.file, in: directory)
        let stackB = try makeStack(contextSchema, .file, in: directory)
        let fromA = try owners(stackA)
        #expect(try stackB.fetchExisting(fromA[1])?.name == "b")
        #expect(try stackB.fetchExisting(fromA).map(\.name) == ["a", "b", "c"])
        try stackB.perform(synchronous: { tx in
            let b = try #require(tx.edit(fromA[1]))
            b.name = "b2"
        })
        #expect(try owners(stackB).map(\.name) == ["a", "b2", "c"])

        // A reader stack opens the file read-only: still the same rows.
        let reader = DataStack(contextSchema)
        try reader.addStorageAndWait(SQLiteStore(fileURL: storeURL(in: directory), isReadOnly: true))
        #expect(try reader.fetchExisting(fromA[1])?.name == "b2")
        #expect(try reader.fetchExisting(fromA).map(\.name) == ["a", "b2", "c"])
    }
}
