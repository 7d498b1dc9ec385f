/// What every kind of transaction can do: create, edit and delete objects,
/// and fetch with its own pending changes visible.
///
/// A transaction and its objects are not `Sendable`: they stay on the thread
/// that runs the transaction. Pass ``ObjectID``s out instead.
public class BaseDataTransaction {
    let context: ObjectContext
    /// The name the change set of this transaction's commit carries, if any.
    public let author: String?
    /// What ``ImportableObject/prepareImport(for:in:)`` loaded, by object
    /// type, while an import call of that type runs.
    @usableFromInline var preparedImports: [ObjectIdentifier: Any] = [:]

    init(context: ObjectContext, author: String?) {
        self.context = context
        self.author = author
    }

    /// Creates an object with its fields' default values.
    ///
    /// ```swift
    /// let ann = tx.create(Into<Person>())
    /// ann.name = "Ann"
    /// ```
    public func create<Object: ManagedObject>(_ into: Into<Object>) -> Object {
        let entity = context.entity(Object.self)
        do {
            return try context.create(entity) as! Object
        } catch {
            // create cannot throw; the failure fails the commit instead.
            context.deferredError = context.deferredError ?? StrataError.wrapping(error)
            let object = Object()
            object.attach(to: context, entity: entity, rowID: 0)
            object.values = entity.defaultValues
            // A stand-in the caller may fill in without trapping; it is never
            // written, because the deferred error fails the commit first.
            object.isInserted = true
            object.isWritten = false
            return object
        }
    }

    /// This transaction's instance of an object from any context (for example
    /// the main context), or `nil` when it no longer exists.
    public func edit<Object: ManagedObject>(_ object: Object?) -> Object? {
        guard let object, let entity = object.entity else { return nil }
        if object.context === context { return object.isDeleted ? nil : object }
        // By the object's own entity: `Object` may be a superclass (say
        // `ManagedObject`), which is no entity.
        let mine = deferringFailure(or: nil) {
            try context.existingObject(entity, rowID: object.rowID)
        }
        return mine.map { uncheckedDowncast($0, to: Object.self) }
    }

    /// The object with `id` in this transaction, or `nil` when it no longer exists.
    public func edit<Object: ManagedObject>(_ id: ObjectID<Object>) -> Object? {
        deferringFailure(or: nil) { try context.fetchExisting(id) }
    }

    /// Deletes an object (from any context), applying its relationships' delete rules.
    public func delete<Object: ManagedObject>(_ object: Object?) {
        guard let mine = edit(object) else { return }
        deferringFailure(or: ()) { try context.delete(mine) }
    }

    /// Deletes objects (from any context).
    public func delete<Objects: Sequence>(_ objects: Objects) where Objects.Element: ManagedObject {
        for object in objects { delete(object) }
    }

    /// Deletes the object with `id`, if it exists.
    public func delete<Object: ManagedObject>(_ id: ObjectID<Object>) {
        delete(edit(id))
    }

    /// Whether the transaction has changes it has not committed.
    public var hasChanges: Bool { context.hasChanges }

    /// Abandons the transaction: throws ``StrataError/userCancelled``, which the
    /// `perform` call catches, rolls back, and reports.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in
    ///     if nothingToDo { try tx.cancel() }
    /// })
    /// ```
    public func cancel() throws -> Never {
        throw StrataError.userCancelled
    }
}

/// The transaction `perform(synchronous:)` gives its closure.
public final class SynchronousDataTransaction: BaseDataTransaction {}

/// The transaction `perform(asynchronous:completion:)` and `perform(_:)` give their closure.
public final class AsynchronousDataTransaction: BaseDataTransaction {}
