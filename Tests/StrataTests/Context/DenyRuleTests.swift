import Foundation
import Strata
import Testing

/// `.deny` is judged at commit against what the deleted object still holds
/// then (Docs/Transactions.md, Rule 8), as Core Data validates it at save:
/// a link the transaction undid, before or after the deletion, denies nothing.
@MainActor
@Suite("Deny rule")
struct DenyRuleTests {
    /// Ways of taking Ann's passport away from her in the transaction that deletes her.
    enum Unlink: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// `bob.passport = passport`, after the deletion.
        case giveToOtherOwnerAfter
        /// `passport.holder = bob`, after the deletion.
        case setHolderToOtherOwnerAfter
        /// `passport.holder = nil`, after the deletion.
        case clearHolderAfter
        /// `bob.passport = passport`, before the deletion.
        case giveToOtherOwnerBefore
        /// `ann.passport = nil`, before the deletion.
        case clearPassportBefore

        var testDescription: String { rawValue }
        var isAfterDeletion: Bool { rawValue.hasSuffix("After") }

        func apply(ann: Owner, bob: Owner, passport: Passport) {
            switch self {
            case .giveToOtherOwnerAfter, .giveToOtherOwnerBefore: bob.passport = passport
            case .setHolderToOtherOwnerAfter: passport.holder = bob
            case .clearHolderAfter: passport.holder = nil
            case .clearPassportBefore: ann.passport = nil
            }
        }
    }

    /// Ann holding a passport, and Bob holding none.
    private func annWithPassport(_ stack: DataStack) throws -> (ObjectID<Owner>, ObjectID<Owner>) {
        try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<Owner>())
            ann.name = "Ann"
            let bob = tx.create(Into<Owner>())
            bob.name = "Bob"
            let passport = tx.create(Into<Passport>())
            passport.number = "P1"
            passport.holder = ann
            return (ann.objectID, bob.objectID)
        })
    }

    @Test(arguments: StoreKind.allCases, Unlink.allCases)
    func aToOneUnlinkedInTheSameTransactionDeniesNothing(kind: StoreKind, unlink: Unlink) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let (annID, bobID) = try annWithPassport(stack)
        try stack.perform(synchronous: { tx in
            let ann = try #require(tx.edit(annID))
            let bob = try #require(tx.edit(bobID))
            let passport = try #require(ann.passport)
            if !unlink.isAfterDeletion { unlink.apply(ann: ann, bob: bob, passport: passport) }
            tx.delete(ann)
            if unlink.isAfterDeletion { unlink.apply(ann: ann, bob: bob, passport: passport) }
        })
        #expect(try stack.fetchAll(From<Owner>()).map(\.name) == ["Bob"])
        let passport = try #require(try stack.fetchOne(From<Passport>()))
        let expectedHolder = unlink == .clearHolderAfter || unlink == .clearPassportBefore ? nil : "Bob"
        #expect(passport.holder?.name == expectedHolder)
        #expect(try stack.fetchExisting(bobID)?.passport?.number == (expectedHolder == nil ? nil : "P1"))
    }

    @Test(arguments: StoreKind.allCases)
    func aBulkDeleteIsNotDeniedOnceTheToOneIsReassigned(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let (_, bobID) = try annWithPassport(stack)
        try stack.perform(synchronous: { tx in
            let passport = try #require(try tx.fetchOne(From<Passport>()))
            #expect(try tx.deleteAll(From<Owner>().where(\.$name == "Ann")) == 1)
            passport.holder = tx.edit(bobID)
        })
        #expect(try stack.fetchAll(From<Owner>()).map(\.name) == ["Bob"])
        #expect(try stack.fetchOne(From<Passport>())?.holder?.name == "Bob")
    }

    @Test(arguments: StoreKind.allCases)
    func aBulkDeleteOfAHolderIsStillDenied(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        _ = try annWithPassport(stack)
        #expect(throws: StrataError.deleteDenied(entity: "Owner", relationship: "passport", relatedCount: 1)) {
            try stack.perform(synchronous: { tx in
                _ = try tx.deleteAll(From<Owner>().where(\.$name == "Ann"))
            })
        }
        #expect(try stack.fetchCount(From<Owner>()) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func aPassportGivenToAnotherAndBackStillDenies(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let (annID, bobID) = try annWithPassport(stack)
        #expect(throws: StrataError.deleteDenied(entity: "Owner", relationship: "passport", relatedCount: 1)) {
            try stack.perform(synchronous: { tx in
                let ann = try #require(tx.edit(annID))
                let bob = try #require(tx.edit(bobID))
                let passport = try #require(ann.passport)
                bob.passport = passport
                ann.passport = passport
                tx.delete(ann)
            })
        }
        #expect(try stack.fetchExisting(annID)?.passport?.number == "P1")
    }

    /// The main context's monitors see the commit a lifted denial let
    /// through: the deletion, and the passport's new holder on both sides.
    @Test(arguments: StoreKind.allCases)
    func monitorsSeeTheDeletionAndTheNewHolder(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let (annID, bobID) = try annWithPassport(stack)
        let passportID = try #require(try stack.fetchOne(From<Passport>())).objectID
        let owners = try stack.monitorList(From<Owner>().orderBy(.ascending(\.$name)))
        let passportMonitor = try stack.monitorObject(passportID)
        let passportObserver = DenyObjectObserver<Passport>()
        passportMonitor.addObserver(passportObserver)
        let bobMonitor = try stack.monitorObject(bobID)
        let bobObserver = DenyObjectObserver<Owner>()
        bobMonitor.addObserver(bobObserver)
        let annMonitor = try stack.monitorObject(annID)
        let annObserver = DenyObjectObserver<Owner>()
        annMonitor.addObserver(annObserver)
        try stack.perform(synchronous: { tx in
            tx.delete(annID)
            tx.edit(passportID)?.holder = tx.edit(bobID)
        })
        #expect(owners.objectsInAllSections().map(\.name) == ["Bob"])
        #expect(annObserver.deleted && annMonitor.isObjectDeleted)
        #expect(passportObserver.updates == [["holder"]])
        #expect(bobObserver.updates == [["passport"]])
        #expect(passportMonitor.object?.holder?.name == "Bob")
        #expect(bobMonitor.object?.passport?.objectID == passportID)
    }
}

@MainActor
private final class DenyObjectObserver<Object: ManagedObject>: ObjectObserver {
    typealias ObjectEntityType = Object
    var updates: [Set<String>] = []
    var deleted = false

    func objectMonitor(_ monitor: ObjectMonitor<Object>, didUpdateObject object: Object, changedPersistentKeys: Set<String>) {
        updates.append(changedPersistentKeys)
    }
    func objectMonitor(_ monitor: ObjectMonitor<Object>, didDeleteObject object: Object) { deleted = true }
}
