/// CoreStore's per-object spellings of reading an object elsewhere: the same
/// object as the stack's main context, a transaction, a publisher or a
/// snapshot has it. Each is the stack's or transaction's own call, named the
/// CoreStore way so that code written for CoreStore reads the same.
extension ManagedObjectIdentifiable {
    /// This object's instance in the stack's main context, or `nil` when it
    /// no longer exists there or cannot be read: ``FetchableSource/fetchExisting(_:)``
    /// without the error (which is logged), as CoreStore's `asReadOnly(in:)`.
    ///
    /// ```swift
    /// let tx = try stack.beginUnsafe()
    /// let ann = tx.create(Into<Person>())
    /// try tx.commitAndWait()
    /// let shown = ann.asReadOnly(in: stack)   // the main context's Ann
    /// ```
    @MainActor
    public func asReadOnly(in stack: DataStack) -> Self? {
        try? stack.fetchExisting(self)
    }

    /// This object's instance in `transaction`, to change it there, or `nil`
    /// when it no longer exists: ``BaseDataTransaction/edit(_:)``, as
    /// CoreStore's `asEditable(in:)`.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in shown.asEditable(in: tx)?.name = "Ann" })
    /// ```
    public func asEditable(in transaction: BaseDataTransaction) -> Self? {
        transaction.edit(self)
    }

    /// A snapshot of the object's values as the stack's main context holds
    /// them, or `nil` when it no longer exists (or cannot be read), as
    /// CoreStore's `asSnapshot(in:)`.
    ///
    /// ```swift
    /// let before = person.asSnapshot(in: stack)
    /// ```
    @MainActor
    public func asSnapshot(in stack: DataStack) -> ObjectSnapshot<Self>? {
        asReadOnly(in: stack).map { ObjectSnapshot($0) }
    }

    /// A snapshot of the object's values as `transaction` holds them, its
    /// uncommitted changes included, or `nil` when it no longer exists there.
    public func asSnapshot(in transaction: BaseDataTransaction) -> ObjectSnapshot<Self>? {
        asEditable(in: transaction).map { ObjectSnapshot($0) }
    }

    /// A publisher of this object in the stack: ``DataStack/publishObject(_:)``,
    /// as CoreStore's `asPublisher(in:)`.
    ///
    /// ```swift
    /// let publisher = try person.asPublisher(in: stack)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or an error reading the object.
    @MainActor
    public func asPublisher(in stack: DataStack) throws(StrataError) -> ObjectPublisher<Self> {
        try stack.publishObject(self)
    }
}
