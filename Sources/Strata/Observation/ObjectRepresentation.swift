/// Something that stands for one object by its ID: an ``ObjectMonitor``, an
/// ``ObjectPublisher`` or an ``ObjectSnapshot``. CoreStore's protocol of the
/// same name, with its conversions: read the object as the stack's main
/// context or a transaction has it, snapshot it there, or publish it.
/// Objects themselves have the same calls (`person.asReadOnly(in: stack)`).
///
/// ```swift
/// let monitor = try stack.monitorObject(person)
/// try stack.perform(synchronous: { tx in monitor.asEditable(in: tx)?.age += 1 })
/// let latest = monitor.asSnapshot(in: stack)
/// ```
public protocol ObjectRepresentation<ObjectType> {
    /// The class of the object it stands for.
    associatedtype ObjectType: ManagedObject
    /// The ID of the object it stands for.
    nonisolated var objectID: ObjectID<ObjectType> { get }
}

extension ObjectRepresentation {
    /// The object as the stack's main context holds it, or `nil` when it no
    /// longer exists or cannot be read (the error is logged), as CoreStore's
    /// `asReadOnly(in:)`.
    ///
    /// ```swift
    /// let person = snapshot.asReadOnly(in: stack)
    /// ```
    @MainActor
    public func asReadOnly(in stack: DataStack) -> ObjectType? {
        try? stack.fetchExisting(objectID)
    }

    /// The object as `transaction` holds it, to change it there, or `nil`
    /// when it no longer exists: `transaction.edit(objectID)`.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in publisher.asEditable(in: tx)?.name = "Ann" })
    /// ```
    public func asEditable(in transaction: BaseDataTransaction) -> ObjectType? {
        transaction.edit(objectID)
    }

    /// A snapshot of the object's values as the stack's main context holds
    /// them now, or `nil` when it no longer exists (or cannot be read).
    ///
    /// ```swift
    /// let now = monitor.asSnapshot(in: stack)
    /// ```
    @MainActor
    public func asSnapshot(in stack: DataStack) -> ObjectSnapshot<ObjectType>? {
        asReadOnly(in: stack).map { ObjectSnapshot($0) }
    }

    /// A snapshot of the object's values as `transaction` holds them, its
    /// uncommitted changes included, or `nil` when it no longer exists there.
    public func asSnapshot(in transaction: BaseDataTransaction) -> ObjectSnapshot<ObjectType>? {
        asEditable(in: transaction).map { ObjectSnapshot($0) }
    }

    /// A publisher of the object in `stack`: `stack.publishObject(objectID)`.
    ///
    /// ```swift
    /// let publisher = try snapshot.asPublisher(in: stack)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or an error reading the object.
    @MainActor
    public func asPublisher(in stack: DataStack) throws(StrataError) -> ObjectPublisher<ObjectType> {
        try stack.publishObject(objectID)
    }
}

extension ObjectMonitor: ObjectRepresentation {}
extension ObjectPublisher: ObjectRepresentation {}
extension ObjectSnapshot: ObjectRepresentation {}
