import Foundation
@testable import Strata
import Testing

// Hooks that create or delete objects of the entity a unique import is
// importing, while its batch runs (Docs/Importing.md, Rule 6).

struct HookRecord: Sendable {
    var id: Int
    var name: String
    /// A parent the hook imports first, as a stub (a self-referential feed).
    var parentID: Int? = nil
    /// Another object the hook deletes ("merged into this one").
    var deleteID: Int? = nil
    /// An object the hook makes with plain `create`, giving it this ID.
    var createID: Int? = nil
}

final class HookNode: ManagedObject, ImportableUniqueObject {
    @Field.Stored("remoteID", .unique) var remoteID: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("inserts") var inserts: Int = 0
    @Field.Stored("updates") var updates: Int = 0
    @Field.Relationship("parent", inverse: \HookNode.$children) var parent: HookNode?
    @Field.Relationship("children") var children: Set<HookNode>

    static var uniqueIDKeyPath: KeyPath<HookNode, Field.Stored<Int>> { \.$remoteID }

    static func uniqueID(from source: HookRecord, in transaction: BaseDataTransaction) throws -> Int? { source.id }

    func didInsert(from source: HookRecord, in transaction: BaseDataTransaction) throws {
        inserts += 1
        try fill(from: source, in: transaction)
    }

    func update(from source: HookRecord, in transaction: BaseDataTransaction) throws {
        updates += 1
        try fill(from: source, in: transaction)
    }

    private func fill(from source: HookRecord, in transaction: BaseDataTransaction) throws {
        if !source.name.isEmpty { name = source.name }
        if let deleteID = source.deleteID {
            transaction.delete(try transaction.fetchOne(From<HookNode>().where(\.$remoteID == deleteID)))
        }
        if let createID = source.createID {
            let made = transaction.create(Into<HookNode>())
            made.remoteID = createID
            made.name = "stub"
        }
        if let parentID = source.parentID {
            parent = try transaction.importUniqueObject(Into<HookNode>(), source: HookRecord(id: parentID, name: ""))
        }
    }
}

let hookSchema = Schema("H1", entities: [Entity<HookNode>("HookNode")])

@MainActor
@Suite("Import: hooks that create and delete objects the batch imports")
struct ImportHookTests {
    private func nodes(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<HookNode>().orderBy(.ascending(\.$remoteID))).map {
            "\($0.remoteID):\($0.name):\($0.inserts)/\($0.updates)"
        }
    }

    /// A record whose hook imports its parent (found or created by ID), and
    /// the parent's own record later in the same batch: one parent, updated.
    @Test(arguments: StoreKind.sqlite)
    func aParentAHookImportedIsUpdatedByItsOwnRecordLater(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(hookSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let imported = try tx.importUniqueObjects(Into<HookNode>(), sourceArray: [
                HookRecord(id: 2, name: "child", parentID: 1), HookRecord(id: 1, name: "parent"),
            ])
            #expect(imported.map(\.remoteID) == [2, 1])
        })
        #expect(try nodes(stack) == ["1:parent:1/1", "2:child:1/0"])
        #expect(try stack.fetchOne(From<HookNode>().where(\.$remoteID == 2))?.parent?.remoteID == 1)
    }

    /// An object a hook made with `create` and the ID of a later record:
    /// that record updates it rather than making a second one.
    @Test(arguments: StoreKind.sqlite)
    func anObjectAHookCreatedIsUpdatedByItsRecordLater(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(hookSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(Into<HookNode>(), sourceArray: [
                HookRecord(id: 1, name: "one", createID: 3), HookRecord(id: 2, name: "two"),
                HookRecord(id: 3, name: "three"),
            ])
        })
        #expect(try nodes(stack) == ["1:one:1/0", "2:two:1/0", "3:three:0/1"])
    }

    /// An object a hook deleted after the batch's lookup is not found: its
    /// record inserts it anew (before, the update trapped on a deleted object).
    @Test(arguments: StoreKind.sqlite)
    func anObjectAHookDeletedIsInsertedAnewByItsRecordLater(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(hookSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(Into<HookNode>(), sourceArray: [
                HookRecord(id: 1, name: "one"), HookRecord(id: 2, name: "two"),
            ])
        })
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(Into<HookNode>(), sourceArray: [
                HookRecord(id: 1, name: "one merged", deleteID: 2), HookRecord(id: 2, name: "two again"),
            ])
        })
        #expect(try nodes(stack) == ["1:one merged:1/1", "2:two again:1/0"])
    }

    /// A hook that deletes an object the batch's lookup found and creates
    /// another with its ID (a record replaced upstream): the ID's own record
    /// later in the batch updates the new one, never inserts a second.
    @Test(arguments: StoreKind.allCases)
    func anObjectAHookRecreatedAfterDeletingTheFoundOneIsUpdatedByItsRecord(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(hookSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(Into<HookNode>(), sourceArray: [
                HookRecord(id: 1, name: "one"), HookRecord(id: 2, name: "two"),
            ])
        })
        let imported = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(Into<HookNode>(), sourceArray: [
                HookRecord(id: 1, name: "one again", deleteID: 2, createID: 2),
                HookRecord(id: 2, name: "two again"),
            ]).map(\.remoteID)
        })
        #expect(imported == [1, 2])
        #expect(try nodes(stack) == ["1:one again:1/1", "2:two again:0/1"])
    }
}
