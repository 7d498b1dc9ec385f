/// Reads on the main context. Objects returned are read-only; change them
/// inside a transaction with `tx.edit(object)`.
extension DataStack {
    /// Every object the query matches, in its order.
    ///
    /// ```swift
    /// let adults = try stack.fetchAll(From<Person>().where(\.$age >= 18).orderBy(.ascending(\.$name)))
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added, or an SQLite error.
    @MainActor
    public func fetchAll<Object: ManagedObject>(_ query: From<Object>) throws -> [Object] {
        try main().context.fetchAll(query)
    }

    /// The first object the query matches, or `nil`.
    @MainActor
    public func fetchOne<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        try main().context.fetchOne(query)
    }

    /// How many objects the query matches (limit and offset applied).
    @MainActor
    public func fetchCount<Object: ManagedObject>(_ query: From<Object>) throws -> Int {
        try main().context.fetchCount(query)
    }

    /// The IDs of the objects the query matches, in its order.
    @MainActor
    public func fetchObjectIDs<Object: ManagedObject>(_ query: From<Object>) throws -> [ObjectID<Object>] {
        try main().context.fetchObjectIDs(query)
    }

    /// Whether any object matches the query.
    @MainActor
    public func fetchExists<Object: ManagedObject>(_ query: From<Object>) throws -> Bool {
        try main().context.fetchExists(query)
    }

    /// The main context's instance of `object` (from any context), or `nil` if it no longer exists.
    @MainActor
    public func fetchExisting<Object: ManagedObject>(_ object: Object) throws -> Object? {
        try main().context.fetchExisting(object.objectID)
    }

    /// The object with `id`, or `nil` if it no longer exists.
    @MainActor
    public func fetchExisting<Object: ManagedObject>(_ id: ObjectID<Object>) throws -> Object? {
        try main().context.fetchExisting(id)
    }

    /// The objects with `ids` that still exist, in the same order; those the
    /// main context does not hold are read in one query.
    ///
    /// - Throws: a ``StrataError`` if the read fails.
    ///
    /// ```swift
    /// let people = try stack.fetchExisting(selectedIDs)
    /// ```
    @MainActor
    public func fetchExisting<IDs: Sequence, Object: ManagedObject>(_ ids: IDs) throws -> [Object]
    where IDs.Element == ObjectID<Object> {
        // `IDs` before `Object`, so that the call infers `Object` (see `tx.edit(ids)`).
        try main().context.fetchExisting(ids)
    }

    /// The generation of the last commit merged into the main context.
    @MainActor
    public var mergedGeneration: UInt64 { mainContext?.generation ?? 0 }
}
