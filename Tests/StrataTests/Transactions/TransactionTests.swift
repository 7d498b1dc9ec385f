import Foundation
import Strata
import Testing

/// Seeds Ann (30, ann@example.com) and Bob (40, bob@example.com); returns their IDs.
@MainActor
private func seedAnnAndBob(_ stack: DataStack) throws -> (ann: ObjectID<TxPerson>, bob: ObjectID<TxPerson>) {
    try stack.perform(synchronous: { tx in
        let ann = tx.create(Into<TxPerson>())
        ann.name = "Ann"
        ann.age = 30
        ann.email = "ann@example.com"
        let bob = tx.create(Into<TxPerson>())
        bob.name = "Bob"
        bob.age = 40
        bob.email = "bob@example.com"
        return (ann.objectID, bob.objectID)
    })
}

private let mainQueueKey = DispatchSpecificKey<Bool>()

/// Whether the caller runs on the main queue, the main actor's executor. (Under
/// the Linux test runner the main actor does not run on the process's main thread.)
private func isOnMainQueue() -> Bool {
    DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
    return DispatchQueue.getSpecific(key: mainQueueKey) == true
}

/// A person's values, to compare before and after.
private struct PersonValues: Equatable, Sendable, CustomStringConvertible {
    var rowID: Int64
    var name: String
    var age: Int
    var email: String?

    init(_ person: TxPerson) {
        rowID = person.objectID.rowID
        name = person.name
        age = person.age
        email = person.email
    }

    var description: String { "#\(rowID) \(name) \(age) \(email ?? "nil")" }
}

/// The main context's view of every person, in row order.
@MainActor
private func peopleOnMain(_ stack: DataStack) throws -> [PersonValues] {
    try stack.fetchAll(From<TxPerson>()).map(PersonValues.init)
}

@Suite("Transactions: perform, commit, rollback")
struct TransactionTests {
    // MARK: The three perform variants

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func synchronousPerformReturnsValueAndMergesBeforeReturning(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let ann = tx.create(Into<TxPerson>())
            ann.name = "Ann"
            ann.age = 31
            return ann.objectID
        })
        #expect(stack.mergedGeneration == 1)
        let ann = try #require(try stack.fetchExisting(id))
        #expect(ann.name == "Ann")
        #expect(ann.age == 31)

        // An object the main context already holds is updated before perform returns.
        try stack.perform(synchronous: { tx in tx.edit(ann)?.age = 32 })
        #expect(ann.age == 32)
        #expect(stack.mergedGeneration == 2)
    }

    private struct CompletionReport: Sendable {
        var onMainQueue: Bool
        var id: ObjectID<TxPerson>?
        var error: String?
        var mergedGeneration: UInt64
        var nameOnMain: String?
        var heldObjectAge: Int
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func asynchronousPerformCompletesOnMainActorAfterTheMerge(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let ann = try #require(try stack.fetchExisting(ids.ann))
        let annID = ids.ann

        let report = await withCheckedContinuation { (continuation: CheckedContinuation<CompletionReport, Never>) in
            stack.perform(
                asynchronous: { tx in
                    tx.edit(annID)?.age = 33
                    let cy = tx.create(Into<TxPerson>())
                    cy.name = "Cy"
                    return cy.objectID
                },
                completion: { result in
                    var report = CompletionReport(
                        onMainQueue: isOnMainQueue(), mergedGeneration: stack.mergedGeneration,
                        heldObjectAge: ann.age)
                    switch result {
                    case .success(let id):
                        report.id = id
                        report.nameOnMain = (try? stack.fetchExisting(id))?.name
                    case .failure(let error):
                        report.error = "\(error)"
                    }
                    continuation.resume(returning: report)
                })
        }
        #expect(report.onMainQueue)
        #expect(report.error == nil)
        #expect(report.id != nil)
        #expect(report.mergedGeneration == 2)
        #expect(report.nameOnMain == "Cy")
        #expect(report.heldObjectAge == 33, "the completion runs after the merge")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func asyncPerformReturnsTheClosuresValue(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        // The unlabeled trailing closure in async code must pick the async overload:
        // with the synchronous one this line would warn "no 'async' operations occur
        // within 'await' expression", and the transaction type would differ.
        let (id, transactionType) = try await stack.perform { tx in
            let dee = tx.create(Into<TxPerson>())
            dee.name = "Dee"
            return (dee.objectID, String(describing: type(of: tx)))
        }
        #expect(transactionType == "AsynchronousDataTransaction")
        #expect(stack.mergedGeneration == 1, "merged before the await returns")
        #expect(try stack.fetchExisting(id)?.name == "Dee")

        let count = try await stack.perform(author: "counter") { tx in
            try tx.fetchCount(From<TxPerson>())
        }
        #expect(count == 1)
        #expect(stack.mergedGeneration == 1, "a transaction without changes commits nothing")
    }

    // MARK: Unsafe transactions

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func unsafeCommitAndWaitReturnsTheChangeSet(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe(author: "importer")
        #expect(!tx.hasChanges)
        let ann = tx.create(Into<TxPerson>())
        ann.name = "Ann"
        let bob = tx.create(Into<TxPerson>())
        bob.name = "Bob"
        #expect(tx.hasChanges)

        let first = try #require(try tx.commitAndWait())
        #expect(first.generation == 1)
        #expect(first.author == "importer")
        #expect(first.entityNames == ["TxPerson"])
        #expect(!first.isEmpty)
        #expect(first.insertedIDs(TxSchema.person) == [ann.objectID, bob.objectID])
        #expect(first.updatedIDs(TxSchema.person).isEmpty)
        #expect(first.deletedIDs(TxSchema.person).isEmpty)
        #expect(!tx.hasChanges)
        #expect(stack.mergedGeneration == 1)
        let bobOnMain = try #require(try stack.fetchExisting(bob.objectID))

        // The same transaction goes on after a commit.
        ann.age = 40
        bob.name = "Robert"
        bob.email = "robert@example.com"
        let second = try #require(try tx.commitAndWait())
        #expect(second.generation == 2)
        #expect(second.author == "importer")
        #expect(second.insertedIDs(TxSchema.person).isEmpty)
        #expect(second.updatedIDs(TxSchema.person) == [ann.objectID, bob.objectID])
        #expect(second.updatedIDs(entity: "TxPerson") == [ann.objectID.erased, bob.objectID.erased])
        #expect(second.changedFields(of: ann.objectID.erased) == ["age"])
        #expect(second.changedFields(of: bob.objectID.erased) == ["name", "email"])
        #expect(bobOnMain.name == "Robert")

        tx.delete(bob)
        let third = try #require(try tx.commitAndWait())
        #expect(third.generation == 3)
        #expect(third.deletedIDs(TxSchema.person) == [bob.objectID])
        #expect(third.deletedIDs(entity: "TxPerson") == [bob.objectID.erased])
        #expect(third.insertedIDs(TxSchema.person).isEmpty)
        #expect(third.updatedIDs(TxSchema.person).isEmpty)
        #expect(bobOnMain.isDeletedObject)
        #expect(try stack.fetchCount(From<TxPerson>()) == 1)
        #expect(try stack.fetchOne(From<TxPerson>())?.age == 40)
        #expect(stack.mergedGeneration == 3)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func unsafeCommitCallsCompletionOnMainActorAfterTheMerge(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let tx = try stack.beginUnsafe()
        tx.create(Into<TxPerson>()).name = "Eve"
        let (error, onMain, generation) = await withCheckedContinuation { continuation in
            tx.commit { error in
                continuation.resume(returning: (error, isOnMainQueue(), stack.mergedGeneration))
            }
        }
        #expect(error == nil)
        #expect(onMain)
        #expect(generation == 1)
        #expect(try stack.fetchOne(From<TxPerson>())?.name == "Eve")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func unsafeRollbackRestoresCommittedValues(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let tx = try stack.beginUnsafe()
        let ann = try #require(tx.edit(ids.ann))
        ann.age = 99
        ann.name = "Changed"
        ann.email = nil
        let temp = tx.create(Into<TxPerson>())
        temp.name = "Temp"
        tx.delete(ids.bob)
        #expect(try tx.fetchCount(From<TxPerson>()) == 2, "Ann and Temp; Bob deleted")
        #expect(try stack.fetchCount(From<TxPerson>()) == 2, "the main context sees committed data only")

        tx.rollback()
        #expect(ann.age == 30)
        #expect(ann.name == "Ann")
        #expect(ann.email == "ann@example.com")
        #expect(!ann.hasChanges)
        #expect(temp.isDeletedObject)
        #expect(!tx.hasChanges)
        #expect(try tx.fetchCount(From<TxPerson>()) == 2)
        #expect(try tx.fetchExisting(ids.bob)?.name == "Bob")
        #expect(stack.mergedGeneration == 1)

        // The transaction goes on after a rollback.
        ann.age = 31
        let changeSet = try #require(try tx.commitAndWait())
        #expect(changeSet.generation == 2)
        #expect(changeSet.updatedIDs(TxSchema.person) == [ids.ann])
        #expect(try stack.fetchExisting(ids.ann)?.age == 31)
        #expect(try stack.fetchCount(From<TxPerson>()) == 2)
    }

    // MARK: Failures

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func userErrorComesBackUnchangedAndNothingIsSaved(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)

        let valueError = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                tx.create(Into<TxPerson>()).name = "Ghost"
                _ = try tx.fetchCount(From<TxPerson>())  // the insert reaches SQLite first
                throw TxValueError(code: 7)
            })
        }
        guard case .userError(let wrapped)? = valueError else {
            Issue.record("expected .userError, got \(String(describing: valueError))")
            return
        }
        #expect(wrapped as? TxValueError == TxValueError(code: 7))

        let thrown = TxReferenceError()
        let referenceError = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                tx.create(Into<TxPerson>()).name = "Ghost"
                throw thrown
            })
        }
        guard case .userError(let wrappedReference)? = referenceError else {
            Issue.record("expected .userError, got \(String(describing: referenceError))")
            return
        }
        #expect((wrappedReference as? TxReferenceError) === thrown, "the very same error instance")

        let asyncError = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                tx.create(Into<TxPerson>()).name = "Ghost"
                throw TxValueError(code: 9)
            }
        }
        guard case .userError(let wrappedAsync)? = asyncError else {
            Issue.record("expected .userError, got \(String(describing: asyncError))")
            return
        }
        #expect(wrappedAsync as? TxValueError == TxValueError(code: 9))

        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
        #expect(stack.mergedGeneration == 0)
        // The writer was given back: the next transaction commits.
        try stack.perform(synchronous: { tx in tx.create(Into<TxPerson>()).name = "Real" })
        #expect(try stack.fetchCount(From<TxPerson>()) == 1)
        #expect(stack.mergedGeneration == 1)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func cancelReportsUserCancelledAndSavesNothing(_ kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                tx.create(Into<TxPerson>()).name = "Ghost"
                _ = try tx.fetchCount(From<TxPerson>())
                try tx.cancel()
            })
        }
        guard case .userCancelled? = error else {
            Issue.record("expected .userCancelled, got \(String(describing: error))")
            return
        }
        let asyncError = await #expect(throws: StrataError.self) {
            try await stack.perform { tx in
                tx.create(Into<TxPerson>()).name = "Ghost"
                try tx.cancel()
            }
        }
        guard case .userCancelled? = asyncError else {
            Issue.record("expected .userCancelled, got \(String(describing: asyncError))")
            return
        }
        #expect(try stack.fetchCount(From<TxPerson>()) == 0)
        #expect(stack.mergedGeneration == 0)
    }

    @Test(arguments: StoreKind.allCases, [false, true])
    @MainActor
    func failedCommitLeavesStoreAndMainContextAsTheyWere(_ kind: StoreKind, autoflush: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let heldObjects = try stack.fetchAll(From<TxPerson>())
        let before = heldObjects.map(PersonValues.init)
        let generation = stack.mergedGeneration

        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                tx.edit(ids.ann)?.age = 31
                tx.edit(ids.bob)?.name = "Robert"
                tx.create(Into<TxPerson>()).name = "Cy"
                let duplicate = tx.create(Into<TxPerson>())
                duplicate.name = "Impostor"
                duplicate.email = "ann@example.com"
                // With autoflush the violation surfaces inside the closure, at a read.
                if autoflush { _ = try tx.fetchCount(From<TxPerson>()) }
            })
        }
        guard case .uniqueConstraintViolation(let entity, let fields)? = error else {
            Issue.record("expected .uniqueConstraintViolation, got \(String(describing: error))")
            return
        }
        #expect(entity == "TxPerson")
        #expect(fields == ["email"])

        #expect(heldObjects.map(PersonValues.init) == before, "objects the main context holds")
        #expect(try peopleOnMain(stack) == before, "a fresh fetch")
        #expect(try stack.fetchCount(From<TxPerson>()) == 2)
        #expect(stack.mergedGeneration == generation)
        // The writer was given back and the store still accepts commits.
        try stack.perform(synchronous: { tx in tx.edit(ids.ann)?.age = 35 })
        #expect(heldObjects[0].age == 35)
        #expect(stack.mergedGeneration == generation + 1)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func failedUnsafeCommitRollsBackAndTheTransactionGoesOn(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let before = try peopleOnMain(stack)
        let tx = try stack.beginUnsafe()
        let ann = try #require(tx.edit(ids.ann))
        ann.age = 77
        tx.create(Into<TxPerson>()).email = "bob@example.com"
        let error = #expect(throws: StrataError.self) { try tx.commitAndWait() }
        guard case .uniqueConstraintViolation("TxPerson", ["email"])? = error else {
            Issue.record("expected .uniqueConstraintViolation, got \(String(describing: error))")
            return
        }
        #expect(ann.age == 30, "rolled back to the committed value")
        #expect(!tx.hasChanges)
        #expect(try peopleOnMain(stack) == before)
        ann.age = 31
        #expect(try tx.commitAndWait()?.generation == 2)
        #expect(try stack.fetchExisting(ids.ann)?.age == 31)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func uniqueValueCanMoveToAnotherObjectWithinATransaction(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        try stack.perform(synchronous: { tx in
            tx.edit(ids.ann)?.email = "ann@old.example.com"
            tx.create(Into<TxPerson>()).email = "ann@example.com"
        })
        #expect(try stack.fetchCount(From<TxPerson>().where(\.$email == "ann@example.com")) == 1)
        #expect(try stack.fetchExisting(ids.ann)?.email == "ann@old.example.com")
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func uniqueValuesCanBeSwappedWithinATransaction(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        // Each value is unique again by the end of the transaction, as Core Data allows.
        try stack.perform(synchronous: { tx in
            tx.edit(ids.ann)?.email = "bob@example.com"
            tx.edit(ids.bob)?.email = "ann@example.com"
        })
        #expect(try stack.fetchExisting(ids.ann)?.email == "bob@example.com")
        #expect(try stack.fetchExisting(ids.bob)?.email == "ann@example.com")
    }

    /// A read that fails on a unique clash, caught in the closure, then the
    /// value put back: the commit saves every object's current values. (The
    /// failed flush had set the changed unique columns to NULL first, to let
    /// swaps through; the objects after the clash kept them so.)
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func uniqueValuesPutBackAfterACaughtClashAreSaved(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let cid = try stack.perform(synchronous: { tx in
            let cid = tx.create(Into<TxPerson>())
            cid.email = "cid@example.com"
            return cid.objectID
        })
        func commit() throws {
            try stack.perform(synchronous: { tx in
                let ann = tx.edit(ids.ann)!
                let cid = tx.edit(cid)!
                ann.email = "bob@example.com"  // clashes with Bob
                cid.email = "cid@new.example.com"
                #expect(throws: StrataError.self) { _ = try tx.fetchCount(From<TxPerson>()) }
                ann.email = "ann@example.com"
                ann.name = "Anne"
                cid.email = "cid@example.com"
                let anns = try tx.fetchCount(From<TxPerson>().where(\.$email == "ann@example.com"))
                let nulls = try tx.fetchCount(From<TxPerson>().where(\.$email == nil))
                #expect(anns == 1)
                #expect(nulls == 0)
            })
        }
        try commit()
        let stacks = kind == .file ? [stack, try makeStack(TxSchema.schema, kind, in: directory)] : [stack]
        for stack in stacks {
            #expect(try stack.fetchExisting(ids.ann)?.email == "ann@example.com")
            #expect(try stack.fetchExisting(ids.ann)?.name == "Anne")
            #expect(try stack.fetchExisting(ids.bob)?.email == "bob@example.com")
            #expect(try stack.fetchExisting(cid)?.email == "cid@example.com")
            #expect(try stack.fetchCount(From<TxPerson>().where(\.$email == nil)) == 0)
        }
    }

    /// A flush that fails after some of its statements succeeded, caught and
    /// fixed: nothing it had written is lost. (SQLite keeps what succeeded;
    /// PostgreSQL rolls the flush back to its savepoint, and every object must
    /// be written again.)
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aCaughtFailedFlushLosesNothingItHadWritten(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let (dan, eve) = try stack.perform(synchronous: { tx in
            try #require(tx.edit(ids.ann)).name = "Anne"  // an update, written before the inserts
            tx.delete(tx.edit(ids.bob))
            let dan = tx.create(Into<TxPerson>())
            dan.email = "dan@example.com"  // inserted before Eve's insert fails
            let eve = tx.create(Into<TxPerson>())
            eve.email = "ann@example.com"  // clashes with Ann
            #expect(throws: StrataError.self) { _ = try tx.fetchCount(From<TxPerson>()) }
            #expect(throws: StrataError.self) { _ = try tx.fetchCount(From<TxPerson>()) }
            eve.email = "eve@example.com"
            #expect(try tx.fetchAll(From<TxPerson>().orderBy(.ascending(\.$email))).map(\.email)
                == ["ann@example.com", "dan@example.com", "eve@example.com"])
            #expect(try tx.fetchCount(From<TxPerson>().where(\.$name == "Anne")) == 1)
            return (dan.objectID, eve.objectID)
        })
        #expect(try stack.fetchExisting(ids.ann)?.name == "Anne")
        #expect(try stack.fetchExisting(ids.bob) == nil)
        #expect(try stack.fetchExisting(dan)?.email == "dan@example.com")
        #expect(try stack.fetchExisting(eve)?.email == "eve@example.com")
        #expect(try stack.fetchCount(From<TxPerson>()) == 3)
    }

    // MARK: hasChanges and empty commits

    /// An object with a many-to-many relationship (a link table), created,
    /// flushed and deleted again: no change, and no commit.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func anObjectCreatedAndDeletedLeavesNoChange(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(contextSchema, kind, in: directory)
        let generation = stack.mergedGeneration
        let tx = try stack.beginUnsafe()
        let brief = tx.create(Into<Owner>())
        brief.name = "Brief"
        _ = try tx.fetchCount(From<Owner>())  // written to the store
        tx.delete(brief)
        #expect(!brief.hasChanges)
        #expect(!tx.hasChanges)
        #expect(try tx.commitAndWait() == nil)
        #expect(stack.mergedGeneration == generation)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func hasChangesIsHonest(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let generation = stack.mergedGeneration
        let tx = try stack.beginUnsafe()
        #expect(!tx.hasChanges, "a fresh transaction")

        let ann = try #require(tx.edit(ids.ann))
        #expect(!tx.hasChanges, "editing alone is no change")
        ann.name = ann.name
        ann.age = ann.age
        ann.email = ann.email
        #expect(!ann.hasChanges)
        #expect(!tx.hasChanges, "assigning the same values")
        #expect(try tx.commitAndWait() == nil)
        #expect(stack.mergedGeneration == generation)

        ann.age = 99
        #expect(tx.hasChanges)
        #expect(ann.hasChanges)
        ann.age = 30
        #expect(!ann.hasChanges)
        #expect(!tx.hasChanges, "set, then set back")
        #expect(try tx.commitAndWait() == nil)
        #expect(stack.mergedGeneration == generation)

        ann.age = 99
        try tx.flush()  // 99 reaches SQLite
        ann.age = 30
        #expect(!tx.hasChanges, "set, flushed, then set back")
        #expect(try tx.commitAndWait() == nil)
        #expect(stack.mergedGeneration == generation)
        #expect(try stack.fetchExisting(ids.ann)?.age == 30)

        let ghost = tx.create(Into<TxPerson>())
        #expect(tx.hasChanges)
        _ = try tx.fetchCount(From<TxPerson>())
        tx.delete(ghost)
        #expect(!tx.hasChanges, "created, then deleted")
        #expect(try tx.commitAndWait() == nil)
        #expect(stack.mergedGeneration == generation)
        #expect(try stack.fetchCount(From<TxPerson>()) == 2)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func performWithoutChangesCommitsNothing(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let hadChanges = try stack.perform(synchronous: { tx in
            let ann = tx.edit(ids.ann)!
            ann.age = ann.age
            ann.name = "Someone"
            ann.name = "Ann"
            return tx.hasChanges
        })
        #expect(!hadChanges)
        #expect(stack.mergedGeneration == 1)
    }

    // MARK: Reads inside a transaction

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func readsInsideATransactionSeeItsPendingChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let tx = try stack.beginUnsafe()

        let dee = tx.create(Into<TxPerson>())
        dee.name = "Dee"
        dee.age = 20
        #expect(try tx.fetchCount(From<TxPerson>()) == 3)
        #expect(try tx.fetchAll(From<TxPerson>().where(\.$age == 20)) == [dee])
        #expect(try tx.fetchOne(From<TxPerson>().where(\.$name == "Dee")) === dee)
        #expect(try tx.fetchExists(From<TxPerson>().where(\.$name == "Dee")))
        #expect(try tx.fetchObjectIDs(From<TxPerson>().where(\.$age < 25)) == [dee.objectID])
        #expect(try stack.fetchCount(From<TxPerson>()) == 2, "not committed yet")

        // An update changes query results before the commit.
        dee.age = 21
        #expect(try tx.fetchCount(From<TxPerson>().where(\.$age == 20)) == 0)
        #expect(try tx.fetchAll(From<TxPerson>().where(\.$age == 21)) == [dee])
        let ann = try #require(tx.edit(ids.ann))
        ann.age = 18
        #expect(
            try tx.fetchAll(From<TxPerson>().where(\.$age < 25).orderBy(.ascending(\.$age))) == [ann, dee])

        // A delete disappears from fetches before the commit.
        tx.delete(ids.bob)
        #expect(try tx.fetchCount(From<TxPerson>()) == 2)
        #expect(try tx.fetchExisting(ids.bob) == nil)
        #expect(!(try tx.fetchExists(From<TxPerson>().where(\.$name == "Bob"))))
        #expect(try tx.fetchObjectIDs(From<TxPerson>()) == [ids.ann, dee.objectID])

        #expect(try stack.fetchCount(From<TxPerson>().where(\.$name == "Bob")) == 1, "not committed yet")
        try tx.commitAndWait()
        #expect(try stack.fetchAll(From<TxPerson>()).map(\.name) == ["Ann", "Dee"])
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func mainContextReadsWhileATransactionWrites(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        _ = try seedAnnAndBob(stack)
        let tx = try stack.beginUnsafe()
        tx.create(Into<TxPerson>()).name = "Pending"  // takes the writer
        try tx.flush()
        // The reader sees committed data only, without waiting for the writer.
        #expect(try stack.fetchCount(From<TxPerson>()) == 2)
        try tx.commitAndWait()
        #expect(try stack.fetchCount(From<TxPerson>()) == 3)
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func readsInsideAPerformClosureSeeItsPendingChanges(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let ids = try seedAnnAndBob(stack)
        let counts = try stack.perform(synchronous: { tx in
            tx.create(Into<TxPerson>()).age = 20
            let afterCreate = try tx.fetchCount(From<TxPerson>().where(\.$age == 20))
            tx.edit(ids.ann)?.age = 20
            let afterUpdate = try tx.fetchCount(From<TxPerson>().where(\.$age == 20))
            tx.delete(ids.ann)
            let afterDelete = try tx.fetchCount(From<TxPerson>().where(\.$age == 20))
            return [afterCreate, afterUpdate, afterDelete]
        })
        #expect(counts == [1, 2, 1])
        #expect(try stack.fetchCount(From<TxPerson>()) == 2)
    }
}

// MARK: - Fetch APIs on the stack and in transactions

/// An item's values as seeded, for computing the expected answer in Swift.
private struct ItemRow: Sendable {
    var id: ObjectID<TxItem>
    var rank: Int
    var label: String?
}

/// The fetch operations the stack and a transaction share, so one check runs on both.
private struct ItemFetcher {
    var fetchAll: (From<TxItem>) throws -> [TxItem]
    var fetchCount: (From<TxItem>) throws -> Int
    var fetchObjectIDs: (From<TxItem>) throws -> [ObjectID<TxItem>]
    var fetchExists: (From<TxItem>) throws -> Bool

    @MainActor
    static func main(_ stack: DataStack) -> ItemFetcher {
        ItemFetcher(
            fetchAll: { try stack.fetchAll($0) }, fetchCount: { try stack.fetchCount($0) },
            fetchObjectIDs: { try stack.fetchObjectIDs($0) }, fetchExists: { try stack.fetchExists($0) })
    }

    static func transaction(_ tx: BaseDataTransaction) -> ItemFetcher {
        ItemFetcher(
            fetchAll: { try tx.fetchAll($0) }, fetchCount: { try tx.fetchCount($0) },
            fetchObjectIDs: { try tx.fetchObjectIDs($0) }, fetchExists: { try tx.fetchExists($0) })
    }
}

/// A predicate and the same predicate written in Swift.
private struct PredicateCase {
    var name: String
    var query: Where<TxItem>
    var matches: (ItemRow) -> Bool
}

/// Swift's answer to "label < bound" as SQL computes it: a NULL label compares as false.
private func less(_ label: String?, _ bound: String) -> Bool { label.map { $0 < bound } ?? false }

private func predicateCases(rank r: Int, label s: String) -> [PredicateCase] {
    [
        PredicateCase(name: "rank == \(r)", query: \TxItem.$rank == r) { $0.rank == r },
        PredicateCase(name: "rank != \(r)", query: \TxItem.$rank != r) { $0.rank != r },
        PredicateCase(name: "rank < \(r)", query: \TxItem.$rank < r) { $0.rank < r },
        PredicateCase(name: "rank <= \(r)", query: \TxItem.$rank <= r) { $0.rank <= r },
        PredicateCase(name: "rank > \(r)", query: \TxItem.$rank > r) { $0.rank > r },
        PredicateCase(name: "rank >= \(r)", query: \TxItem.$rank >= r) { $0.rank >= r },
        PredicateCase(name: "label == nil", query: \TxItem.$label == nil) { $0.label == nil },
        PredicateCase(name: "label != nil", query: \TxItem.$label != nil) { $0.label != nil },
        PredicateCase(name: "label == \(s)", query: \TxItem.$label == s) { $0.label == s },
        PredicateCase(name: "label != \(s)", query: \TxItem.$label != s) { $0.label != s },
        PredicateCase(name: "label < \(s)", query: \TxItem.$label < s) { less($0.label, s) },
        PredicateCase(name: "label >= \(s)", query: \TxItem.$label >= s) {
            $0.label.map { $0 >= s } ?? false
        },
        PredicateCase(name: "rank > \(r) && label != nil", query: \TxItem.$rank > r && \TxItem.$label != nil) {
            $0.rank > r && $0.label != nil
        },
        PredicateCase(name: "rank < \(r) || label == \(s)", query: \TxItem.$rank < r || \TxItem.$label == s) {
            $0.rank < r || $0.label == s
        },
        PredicateCase(name: "!(rank == \(r))", query: !(\TxItem.$rank == r)) { !($0.rank == r) },
        PredicateCase(
            name: "!(rank < \(r) || label == nil)", query: !(\TxItem.$rank < r || \TxItem.$label == nil)
        ) { !($0.rank < r || $0.label == nil) },
        PredicateCase(
            name: "(rank >= \(r) && !(label == nil)) || rank == 0",
            query: (\TxItem.$rank >= r && !(\TxItem.$label == nil)) || \TxItem.$rank == 0
        ) { ($0.rank >= r && !($0.label == nil)) || $0.rank == 0 },
        PredicateCase(name: "true", query: Where(true)) { _ in true },
        PredicateCase(name: "false", query: Where(false)) { _ in false },
    ]
}

/// Seeds `count` items with random ranks (many ties) and labels (some nil).
@MainActor
private func seedItems(_ stack: DataStack, count: Int, random: inout SplitMix64) throws -> [ItemRow] {
    var values: [(Int, String?)] = []
    for _ in 0..<count {
        let rank = Int.random(in: 0..<12, using: &random)
        let letters = "abcde"
        let label: String? =
            Int.random(in: 0..<4, using: &random) == 0
            ? nil : String((0..<2).map { _ in letters.randomElement(using: &random)! })
        values.append((rank, label))
    }
    let seeded = values
    return try stack.perform(synchronous: { tx in
        seeded.map { rank, label in
            let item = tx.create(Into<TxItem>())
            item.rank = rank
            item.label = label
            return ItemRow(id: item.objectID, rank: rank, label: label)
        }
    })
}

/// Runs every fetch check against `fetcher`; `rows` is the truth.
private func checkFetches(
    _ fetcher: ItemFetcher, rows: [ItemRow], random: inout SplitMix64, context: String
) throws {
    let seed = "seed \(random.seed), \(context)"
    let byRowID = rows.sorted { $0.id.rowID < $1.id.rowID }
    let r = Int.random(in: 0..<12, using: &random)
    let s = ["a", "b", "bc", "cc", "d", "e"].randomElement(using: &random)!

    for predicate in predicateCases(rank: r, label: s) {
        let expected = byRowID.filter(predicate.matches).map(\.id)
        let query = From<TxItem>().where(predicate.query)
        #expect(try fetcher.fetchAll(query).map(\.objectID) == expected, "\(predicate.name); \(seed)")
        #expect(try fetcher.fetchObjectIDs(query) == expected, "\(predicate.name); \(seed)")
        #expect(try fetcher.fetchCount(query) == expected.count, "\(predicate.name); \(seed)")
        #expect(try fetcher.fetchExists(query) == !expected.isEmpty, "\(predicate.name); \(seed)")
    }

    // Orders end in the row ID, so ties come out in row order whatever the direction.
    let ascending = byRowID.sorted { ($0.rank, $0.id.rowID) < ($1.rank, $1.id.rowID) }.map(\.id)
    #expect(try fetcher.fetchObjectIDs(From<TxItem>().orderBy(.ascending(\.$rank))) == ascending, "\(seed)")
    let descending = byRowID.sorted { $0.rank != $1.rank ? $0.rank > $1.rank : $0.id.rowID < $1.id.rowID }
        .map(\.id)
    #expect(try fetcher.fetchObjectIDs(From<TxItem>().orderBy(.descending(\.$rank))) == descending, "\(seed)")
    // NULL sorts first ascending; two keys.
    let labelThenRank = byRowID.sorted { a, b in
        if a.label != b.label {
            guard let left = a.label else { return true }
            guard let right = b.label else { return false }
            return left < right
        }
        if a.rank != b.rank { return a.rank > b.rank }
        return a.id.rowID < b.id.rowID
    }.map(\.id)
    #expect(
        try fetcher.fetchAll(From<TxItem>().orderBy(.ascending(\.$label), .descending(\.$rank)))
            .map(\.objectID) == labelThenRank, "\(seed)")

    // Pages of a sorted, filtered list hold every object exactly once.
    let filtered = From<TxItem>().where(\.$rank != r).orderBy(.descending(\.$rank))
    let whole = try fetcher.fetchObjectIDs(filtered)
    #expect(whole == descending.filter { id in rows.first { $0.id == id }!.rank != r }, "\(seed)")
    let pageSize = Int.random(in: 1...9, using: &random)
    var pages: [ObjectID<TxItem>] = []
    var offset = 0
    while true {
        let page = try fetcher.fetchAll(filtered.tweak {
            $0.fetchLimit = pageSize
            $0.fetchOffset = offset
        })
        #expect(page.count <= pageSize)
        if page.isEmpty { break }
        pages += page.map(\.objectID)
        offset += pageSize
    }
    #expect(pages == whole, "pages of \(pageSize); \(seed)")
    #expect(Set(pages).count == whole.count, "\(seed)")
    #expect(try fetcher.fetchCount(filtered.tweak { $0.fetchLimit = 5 }) == min(5, whole.count))
    #expect(try fetcher.fetchCount(filtered.tweak { $0.fetchOffset = max(whole.count - 3, 0) })
        == min(3, whole.count))
    #expect(try fetcher.fetchObjectIDs(filtered.tweak { $0.fetchOffset = whole.count }).isEmpty)
    #expect(try !fetcher.fetchExists(filtered.tweak { $0.fetchOffset = whole.count }))
}

@Suite("Transactions: fetching")
struct TransactionFetchTests {
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func fetchesMatchASwiftFilterOfRandomData(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        var random = SplitMix64.random()
        let rows = try seedItems(stack, count: 300, random: &random)
        for round in 0..<4 {
            try checkFetches(.main(stack), rows: rows, random: &random, context: "main, round \(round)")
        }
        var txRandom = random
        try stack.perform(synchronous: { tx in
            for round in 0..<4 {
                try checkFetches(
                    .transaction(tx), rows: rows, random: &txRandom, context: "transaction, round \(round)")
            }
        })
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func negationOfAComparisonWithANullFieldMatchesSwift(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            tx.create(Into<TxItem>()).label = "a"
            tx.create(Into<TxItem>()).label = "z"
            tx.create(Into<TxItem>()).label = nil
        })
        // `label < "m"` is false for the NULL label, so its negation must hold:
        // the same answer an in-memory evaluation of the predicate gives.
        let notLess = try stack.fetchAll(From<TxItem>().where(!(\.$label < "m"))).map(\.label)
        #expect(notLess == ["z", nil])
        let notEqual = try stack.fetchAll(From<TxItem>().where(!(\.$label == "a"))).map(\.label)
        #expect(notEqual == ["z", nil])
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func fetchExistingFindsObjectsIDsAndSequences(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        var random = SplitMix64(seed: 7)
        let rows = try seedItems(stack, count: 10, random: &random)
        let ids = rows.map(\.id)
        let deleted = [ids[2], ids[5]]
        try stack.perform(synchronous: { tx in tx.delete(deleted[0]); tx.delete(deleted[1]) })
        let kept = ids.filter { !deleted.contains($0) }

        let first = try #require(try stack.fetchExisting(ids[0]))
        #expect(try stack.fetchExisting(first) === first)
        #expect(try stack.fetchExisting(ids[2]) == nil)
        #expect(try stack.fetchExisting(ids.reversed()).map(\.objectID) == kept.reversed())

        let inTransaction = try stack.perform(synchronous: { tx in
            let mine = try #require(try tx.fetchExisting(first))
            #expect(mine !== first, "the transaction's own instance")
            #expect(try tx.fetchExisting(ids[0]) === mine)
            #expect(try tx.fetchExisting(ids[5]) == nil)
            tx.delete(ids[7])
            #expect(try tx.fetchExisting(ids[7]) == nil, "deleted in this transaction")
            return try tx.fetchExisting(ids).map(\.objectID)
        })
        #expect(inTransaction == kept.filter { $0 != ids[7] })
    }

    @Test(arguments: StoreKind.allCases)
    @MainActor
    func deleteAllReturnsHowManyItDeleted(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        var random = SplitMix64.random()
        let rows = try seedItems(stack, count: 120, random: &random)
        let expected = rows.filter { $0.rank < 4 }.count
        let deleted = try stack.perform(synchronous: { tx in
            let count = try tx.deleteAll(From<TxItem>().where(\.$rank < 4))
            #expect(try tx.fetchCount(From<TxItem>().where(\.$rank < 4)) == 0)
            return count
        })
        #expect(deleted == expected, "seed \(random.seed)")
        #expect(try stack.fetchCount(From<TxItem>()) == rows.count - expected)
        #expect(try stack.fetchCount(From<TxItem>().where(\.$rank < 4)) == 0)
        #expect(try stack.perform(synchronous: { tx in try tx.deleteAll(From<TxItem>().where(\.$rank < 4)) }) == 0)
        #expect(try stack.perform(synchronous: { tx in try tx.deleteAll(From<TxItem>()) }) == rows.count - expected)
        #expect(!(try stack.fetchExists(From<TxItem>())))
    }
}
