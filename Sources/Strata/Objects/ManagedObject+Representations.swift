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

    /// A snapshot of the object's values in its own context, a transaction's
    /// pending values included, or `nil` when the object is deleted or
    /// belongs to no context: CoreStore's argument-less `asSnapshot()`. Call
    /// it where the object may be used (the main actor for a main-context
    /// object, the transaction's closure for a transaction's).
    ///
    /// ```swift
    /// let people = try stack.fetchAll(From<Person>())
    /// let rows = people.compactMap { $0.asSnapshot() }   // Sendable values
    /// ```
    public func asSnapshot() -> ObjectSnapshot<Self>? {
        guard context != nil, entity != nil, !isDeleted else { return nil }
        return ObjectSnapshot(self)
    }

    /// A publisher of this main-context object in its stack, or `nil` for an
    /// object of a transaction (use ``asPublisher(in:)`` with the stack), one
    /// that is deleted or belongs to no context, or when the read fails (the
    /// error is logged): CoreStore's argument-less `asPublisher()`.
    ///
    /// ```swift
    /// let person = try stack.fetchOne(From<Person>().where(\.$name == "Ann"))
    /// let publisher = person?.asPublisher()
    /// ```
    @MainActor
    public func asPublisher() -> ObjectPublisher<Self>? {
        guard let main = context?.follower as? MainContext, entity != nil, !isDeleted else { return nil }
        do {
            return try ObjectPublisher(main: main, id: objectID)
        } catch {
            StrataLog.log(.error, .observation, "asPublisher() failed: \(main.context.translated(error))")
            return nil
        }
    }
}
