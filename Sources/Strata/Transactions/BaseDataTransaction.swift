/// What every kind of transaction can do: create, edit and delete objects,
/// and fetch with its own pending changes visible.
///
/// A transaction and its objects are not `Sendable`: they stay on the thread
/// that runs the transaction. Pass ``ObjectID``s out instead.
public class BaseDataTransaction {
    /// The transaction's context in each store of the stack.
    let contexts: StoreContexts
    /// The name the change set of this transaction's commit carries, if any.
    public let author: String?
    /// Data of your own kept with the transaction while it lives, as
    /// CoreStore's `transaction.userInfo`; see ``UserInfo``.
    ///
    /// ```swift
    /// tx.userInfo[AuditKeys.reason] = "nightly sync"
    /// ```
    public let userInfo = UserInfo()
    /// What ``ImportableObject/prepareImport(for:in:)`` loaded, by object
    /// type, while an import call of that type runs.
    @usableFromInline var preparedImports: [ObjectIdentifier: Any] = [:]
    // Read by every `create` and import step: unchecked exclusivity
    // (checked in the checked build), as for the context's hot state.
    /// How many unique imports are running (nested in hooks included).
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    @usableFromInline var uniqueImportDepth = 0
    /// The objects ``create(_:)`` made while a unique import runs, so that it
    /// also matches those a hook created after its lookup query (Importing, Rule 6).
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    @usableFromInline var createdDuringUniqueImport: [ManagedObject] = []

    init(contexts: StoreContexts, author: String?) {
        self.contexts = contexts
        self.author = author
    }

    /// Creates an object with its fields' default values, in the store
    /// `into` names (the one store that holds the entity by default).
    ///
    /// ```swift
    /// let ann = tx.create(Into<Person>())
    /// ann.name = "Ann"
    /// let thumbnail = tx.create(Into<Thumbnail>("Cache"))
    /// ```
    ///
    /// It cannot throw: when no store of the stack holds the entity in the
    /// configuration named, the transaction's commit throws
    /// ``StrataError/storeNotFound(entity:configuration:)``. Creating with
    /// `Into<T>()` when several stores hold the entity traps: name one.
    public func create<Object: ManagedObject>(_ into: Into<Object>) -> Object {
        do {
            return try contexts.withCreationTarget(for: into) { context, entity in
                do {
                    let object = uncheckedDowncast(try context.create(entity), to: Object.self)
                    if uniqueImportDepth > 0 { createdDuringUniqueImport.append(object) }
                    return object
                } catch {
                    return failedCreation(error, in: context, entity: entity)
                }
            }
        } catch {
            return failedCreation(
                error, in: contexts.primary, entity: contexts.schema.entity(of: Object.self))
        }
    }

    /// What ``create(_:)`` returns when creating failed: `create` cannot
    /// throw, so the failure fails the commit instead.
    private func failedCreation<Object: ManagedObject>(
        _ error: any Error, in context: ObjectContext, entity: EntityDescription
    ) -> Object {
        context.deferredError = context.deferredError ?? context.translated(error)
        let object = Object()
        // An entity no store of the transaction holds is none of the
        // context's: the stand-in gets a context of the whole schema, never
        // committed, of its own.
        let home =
            context.holds(entity)
            ? context
            : ObjectContext(kind: .transaction, schema: contexts.schema, store: context.store)
        object.attach(to: home, entity: entity, rowID: 0)
        object.values = entity.defaultValues
        // A stand-in the caller may fill in without trapping; it is never
        // written, because the deferred error fails the commit first.
        object.isInserted = true
        object.isWritten = false
        return object
    }

    /// This transaction's instance of an object from any context of this
    /// stack's stores (for example the main context, or another stack's over
    /// the same file), or `nil` when it no longer exists. An object of
    /// another store (another stack's file) is none of this transaction's:
    /// `nil`, whatever its row ID names here.
    public func edit<Object: ManagedObject>(_ object: Object?) -> Object? {
        guard let object, let entity = object.entity else { return nil }
        if contexts.all.contains(where: { $0 === object.context }) { return object.isDeleted ? nil : object }
        guard let context = contexts.context(of: object) else { return nil }
        // By the object's own entity: `Object` may be a superclass (say
        // `ManagedObject`), which is no entity.
        let mine = deferringFailure(or: nil) {
            try context.existingObject(entity, rowID: object.rowID)
        }
        return mine.map { uncheckedDowncast($0, to: Object.self) }
    }

    /// The object with `id` in this transaction, or `nil` when it no longer exists.
    public func edit<Object: ManagedObject>(_ id: ObjectID<Object>) -> Object? {
        deferringFailure(or: nil) { try contexts.fetchExisting(id) }
    }

    /// Deletes an object (from any context), applying its relationships'
    /// delete rules: `.nullify` and `.cascade` at once, `.deny` at commit,
    /// against the links the object still has then (a partner the
    /// transaction gave to another object since does not count), failing
    /// the commit with ``StrataError/deleteDenied(entity:relationship:relatedCount:)``.
    public func delete<Object: ManagedObject>(_ object: Object?) {
        guard let mine = edit(object), let context = mine.context else { return }
        deferringFailure(or: ()) { try context.delete(mine) }
    }

    /// Deletes two or more objects (from any context); `nil`s are skipped.
    ///
    /// ```swift
    /// tx.delete(john, jane)
    /// ```
    public func delete<Object: ManagedObject>(_ first: Object?, _ second: Object?, _ more: Object?...) {
        delete(first)
        delete(second)
        for object in more { delete(object) }
    }

    /// Deletes objects (from any context).
    public func delete<Objects: Sequence>(_ objects: Objects) where Objects.Element: ManagedObject {
        for object in objects { delete(object) }
    }

    /// Deletes the object with `id`, if it exists.
    public func delete<Object: ManagedObject>(_ id: ObjectID<Object>) {
        delete(edit(id))
    }

    /// Deletes the objects with `ids` that exist, reading those the
    /// transaction does not hold yet in one query per entity.
    ///
    /// ```swift
    /// tx.delete(objectIDs: selectedIDs)
    /// ```
    public func delete<Object: ManagedObject>(objectIDs ids: [ObjectID<Object>]) {
        let objects: [Object] = edit(ids)
        delete(objects)
    }

    /// Deletes the objects with `ids` that exist: the form for a set made in
    /// the call, whose element type the sequence form below cannot infer
    /// there (Swift 6.3 binds its `Object` to `ManagedObject`).
    ///
    /// ```swift
    /// tx.delete(objectIDs: Set(selectedIDs))
    /// ```
    public func delete<Object: ManagedObject>(objectIDs ids: Set<ObjectID<Object>>) {
        let objects: [Object] = edit(ids)
        delete(objects)
    }

    /// Deletes the objects with `ids` that exist: the form for any sequence
    /// of IDs, as CoreStore's `delete(objectIDs:)` takes (a lazy filter, say).
    ///
    /// ```swift
    /// tx.delete(objectIDs: tx.insertedObjectIDs(Draft.self))
    /// ```
    public func delete<IDs: Sequence, Object: ManagedObject>(objectIDs ids: IDs)
    where IDs.Element == ObjectID<Object> {
        // `IDs` before `Object`, so that the call infers `Object` (see `edit(ids)`).
        let objects: [Object] = edit(ids)
        delete(objects)
    }

    /// Whether the transaction has changes it has not committed: exactly
    /// when committing it now would report a change set, or refuse a value
    /// a field was given (``StrataError/invalidValue(entity:field:reason:)``).
    /// Objects created and deleted again (one by one or with
    /// ``deleteAll(_:)``) are no change.
    ///
    /// ```swift
    /// let draft = tx.create(Into<Person>())
    /// tx.delete(draft)
    /// tx.hasChanges   // false
    /// ```
    public var hasChanges: Bool { contexts.all.contains(where: \.hasChanges) }

    /// Brings the objects the transaction holds up to the store's last
    /// commit, by any writer, keeping the fields changed here since, as
    /// CoreStore's `refreshAndMergeAllObjects()` does on every transaction.
    ///
    /// In an unsafe transaction, call it before reading kept objects to
    /// change them again after a commit, so that no other writer's update is
    /// lost. It begins the transaction's next SQLite write transaction (other
    /// writers then wait until it commits); any read or flush does the same.
    /// A transaction of `perform` holds the store's writer from its first
    /// read to its commit, so its objects are always current: there it
    /// changes nothing.
    ///
    /// ```swift
    /// try tx.commitAndWait()
    /// // ... later, another process may have changed `counter`
    /// try tx.refreshAndMergeAllObjects()
    /// counter.value += 1
    /// try tx.commitAndWait()
    /// ```
    ///
    /// - Throws: a ``StrataError`` when the store cannot be read or locked.
    public func refreshAndMergeAllObjects() throws(StrataError) {
        try StrataError.catching {
            for context in contexts.all where context.keepsObjectsAcrossCommits {
                _ = try context.writeConnection()
            }
        }
    }

    /// Abandons the transaction: throws ``StrataError/userCancelled``, which the
    /// `perform` call catches, rolls back, and reports.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in
    ///     if nothingToDo { try tx.cancel() }
    /// })
    /// ```
    ///
    /// - Throws: ``StrataError/userCancelled``, always.
    public func cancel() throws(StrataError) -> Never {
        throw .userCancelled
    }
}

/// The transaction `perform(synchronous:)` gives its closure.
public final class SynchronousDataTransaction: BaseDataTransaction {}

/// The transaction `perform(asynchronous:completion:)` and `perform(_:)` give their closure.
public final class AsynchronousDataTransaction: BaseDataTransaction {}
