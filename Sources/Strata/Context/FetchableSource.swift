/// Something fetches read from: a ``DataStack`` (its main context, on the
/// main actor) or a transaction (its own context). Every fetch is written
/// once, here, and behaves the same on both, except for what it sees:
///
/// - **On a `DataStack`** the methods are `@MainActor` (the conformance is
///   isolated to the main actor, so the compiler refuses them elsewhere).
///   They read committed data, merge other writers' commits up to the read
///   first, and return main-context objects, which are read-only.
/// - **In a transaction** they run on the transaction's queue and see its
///   own pending changes: before reading, the transaction writes them into
///   its open SQLite transaction (autoflush), so every count and fetch
///   includes what it created, changed or deleted so far. Its objects can be
///   changed.
///
/// ```swift
/// let adults = try stack.fetchAll(From<Person>().where(\.$age >= 18))
/// try stack.perform(synchronous: { tx in
///     tx.create(Into<Person>()).age = 40
///     _ = try tx.fetchCount(From<Person>().where(\.$age >= 18))   // adults.count + 1
/// })
/// ```
///
/// Write generic helpers against it to serve both:
///
/// ```swift
/// func oldest(in source: some FetchableSource) throws(StrataError) -> Person? {
///     try source.fetchOne(From<Person>().orderBy(.descending(\.$age)))
/// }
/// ```
///
/// The errors: ``StrataError/storeNotAdded`` on a stack without a store;
/// ``StrataError/invalidValue(entity:field:reason:)`` for a value a query
/// cannot bind (on PostgreSQL, text holding NUL) or a predicate over its
/// limits; ``StrataError/sqlite(code:message:sql:)`` for raw SQL that fails;
/// in a transaction, what flushing its pending changes throws (a
/// ``StrataError/uniqueConstraintViolation(entity:fields:)``, say). Each
/// failure is also logged once, at ``StrataLog/Level/error`` in
/// ``StrataLog/Category/queries``, naming the call.
public protocol FetchableSource {
    /// The context this source reads through: the main context for a
    /// ``DataStack``, the transaction's own for a transaction.
    ///
    /// - Throws: ``StrataError/storeNotAdded`` on a stack without a store.
    func sourceContext() throws(StrataError) -> SourceContext
}

extension FetchableSource {
    /// Runs one fetch or query through this source's contexts: the one place
    /// where a read's failure becomes a ``StrataError`` and is logged, once,
    /// at `.error` in category `.queries` (as CoreStore logs a fetch that
    /// fails), then thrown unchanged. A read that succeeds logs nothing and
    /// builds no message.
    func read<Result>(
        function: StaticString = #function, _ body: (StoreContexts) throws -> Result
    ) throws(StrataError) -> Result {
        do {
            return try StrataError.catching { try body(sourceContext().contexts) }
        } catch {
            StrataLog.log(.error, .queries, "\(function) failed: \(error)")
            throw error
        }
    }
}

/// The object context a ``FetchableSource`` reads through. Opaque: only
/// Strata's stack and transactions make one.
public struct SourceContext {
    let contexts: StoreContexts

    init(_ contexts: StoreContexts) {
        self.contexts = contexts
    }
}

extension FetchableSource {
    /// Every object the query matches, in its order (limit and offset applied).
    ///
    /// ```swift
    /// let adults = try stack.fetchAll(From<Person>().where(\.$age >= 18).orderBy(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchAll<Object: ManagedObject>(
        _ query: From<Object>
    ) throws(StrataError) -> [Object] {
        try read { try $0.fetchAll(query) }
    }

    /// The first object the query matches, or `nil`.
    ///
    /// ```swift
    /// let youngest = try tx.fetchOne(From<Person>().orderBy(.ascending(\.$age)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchOne<Object: ManagedObject>(
        _ query: From<Object>
    ) throws(StrataError) -> Object? {
        // Read as a `ManagedObject?`, whose metadata is static: `Object?`'s
        // would be instantiated on every call, this not being specialized.
        let object: ManagedObject? = try read { try $0.fetchOne(query) }
        guard let object else { return nil }
        // The object is of `Object`'s entity, so of its class or a subclass.
        return unsafeDowncast(object, to: Object.self)
    }

    /// How many objects the query matches (limit and offset applied).
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchCount<Object: ManagedObject>(
        _ query: From<Object>
    ) throws(StrataError) -> Int {
        try read { try $0.fetchCount(query) }
    }

    /// The IDs of the objects the query matches, in its order: `Sendable`
    /// values to hand to another thread or store.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchObjectIDs<Object: ManagedObject>(
        _ query: From<Object>
    ) throws(StrataError) -> [ObjectID<Object>] {
        try read { try $0.fetchObjectIDs(query) }
    }

    /// The ID of the first object the query matches, in its order; `nil`
    /// when none does. Reads only the row ID.
    ///
    /// ```swift
    /// let oldestID = try stack.fetchObjectID(From<Person>().orderBy(.descending(\.$age)))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchObjectID<Object: ManagedObject>(
        _ query: From<Object>
    ) throws(StrataError) -> ObjectID<Object>? {
        try read { contexts in
            try contexts.fetchObjectIDs(query.tweak { $0.fetchLimit = 1 }).first
        }
    }

    /// Whether any object matches the query.
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchExists<Object: ManagedObject>(
        _ query: From<Object>
    ) throws(StrataError) -> Bool {
        try read { try $0.fetchExists(query) }
    }

    /// This source's instance of `object` (from any context), or `nil` if it
    /// no longer exists (in a transaction: or was deleted there). The object
    /// is found by its own entity and store, whatever type it is seen as (a
    /// `Dog` passed as an `Animal` or a `ManagedObject`); an object made with
    /// `init()` outside any transaction, or one of another stack's store
    /// (another file), is found nowhere.
    ///
    /// ```swift
    /// let fresh = try stack.fetchExisting(personFromATransaction)
    /// ```
    ///
    /// - Throws: a ``StrataError`` if the read fails.
    public func fetchExisting<Object: ManagedObject>(
        _ object: Object
    ) throws(StrataError) -> Object? {
        // Not by `object.objectID`, an `ObjectID<Object>`: `Object` may be a
        // superclass that is no entity of the store (`ManagedObject`, say).
        try read { try $0.fetchExisting(CollectionOfOne(object)).first }
    }

    /// The object with `id`, or `nil` if it no longer exists.
    ///
    /// - Throws: a ``StrataError`` if the read fails.
    public func fetchExisting<Object: ManagedObject>(
        _ id: ObjectID<Object>
    ) throws(StrataError) -> Object? {
        try read { try $0.fetchExisting(id) }
    }

    /// The objects with `ids` that still exist, in the same order; those the
    /// context does not hold yet are read in one query (in a transaction,
    /// `edit(ids)` does the same without throwing).
    ///
    /// ```swift
    /// let people = try stack.fetchExisting(selectedIDs)
    /// ```
    ///
    /// - Throws: a ``StrataError`` if the read fails.
    public func fetchExisting<IDs: Sequence, Object: ManagedObject>(
        _ ids: IDs
    ) throws(StrataError) -> [Object]
    where IDs.Element == ObjectID<Object> {
        // `IDs` before `Object`, so that the call infers `Object` (see `tx.edit(ids)`).
        try read { try $0.fetchExisting(ids) }
    }

    /// The objects with `ids` that still exist, in the same order: the
    /// sequence form, for an array literal (`fetchExisting([a, b])`), whose
    /// element type the generic form cannot infer.
    ///
    /// - Throws: a ``StrataError`` if the read fails.
    public func fetchExisting<Object: ManagedObject>(
        _ ids: [ObjectID<Object>]
    ) throws(StrataError) -> [Object] {
        try read { try $0.fetchExisting(ids) }
    }

    /// This source's instances of `objects` (from any context of this
    /// stack's stores) that still exist, in the same order; those it does not
    /// hold yet are read in one query per entity (in a transaction, `edit(objects)` does the same
    /// without throwing).
    ///
    /// ```swift
    /// let current = try stack.fetchExisting(objectsFromATransaction)
    /// let mine = try tx.fetchExisting(monitor.objectsInAllSections())
    /// ```
    ///
    /// - Throws: a ``StrataError`` if the read fails.
    public func fetchExisting<Object: ManagedObject>(
        _ objects: some Sequence<Object>
    ) throws(StrataError) -> [Object] {
        try read { try $0.fetchExisting(objects) }
    }

    /// The one object the query matches, or `nil` when none or several do
    /// (after the query's own limit and offset). Reads at most two rows.
    ///
    /// ```swift
    /// let ann = try stack.fetchUnique(From<Person>().where(\.$email == "ann@example.com"))
    /// ```
    ///
    /// - Throws: a ``StrataError`` (see ``FetchableSource``).
    public func fetchUnique<Object: ManagedObject>(
        _ query: From<Object>
    ) throws(StrataError) -> Object? {
        try read { try $0.fetchUnique(query) }
    }
}
