/// Live single objects on the main actor.
extension DataStack {
    /// A monitor of `object` (from any context, whatever type it is seen
    /// as: a `Dog` held as a `ManagedObject` is followed as a dog), which
    /// holds the main context's instance of it and tells its observers about
    /// each commit that updates or deletes it.
    ///
    /// List relationships after `observingRelated:` to hear about the objects
    /// related through them as well: observers then get `didUpdateObject`,
    /// with the relationship's name among the changed keys, when a commit
    /// updates a related object or changes which objects the relationship holds.
    ///
    /// ```swift
    /// let monitor = try stack.monitorObject(person)
    /// let withPets = try stack.monitorObject(person, observingRelated: \.$pets)
    /// withPets.addObserver(self)   // a pet renamed: changedPersistentKeys == ["pets"]
    /// ```
    ///
    /// If the object no longer exists, the monitor's ``ObjectMonitor/object`` is `nil`.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or an error reading the object.
    @MainActor
    public func monitorObject<Object: ManagedObject, each Related: RelationshipValue>(
        _ object: Object,
        observingRelated relationships: repeat KeyPath<Object, Field.Relationship<each Related>>
    ) throws(StrataError) -> ObjectMonitor<Object> {
        try monitorObject(object.objectID, observingRelated: repeat each relationships)
    }

    /// A monitor of the object with `id`; see `monitorObject(_:observingRelated:)` for an object.
    ///
    /// ```swift
    /// let monitor = try stack.monitorObject(personID, observingRelated: \.$pets, \.$friends)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or an error reading the object.
    @MainActor
    public func monitorObject<Object: ManagedObject, each Related: RelationshipValue>(
        _ id: ObjectID<Object>,
        observingRelated relationships: repeat KeyPath<Object, Field.Relationship<each Related>>
    ) throws(StrataError) -> ObjectMonitor<Object> {
        var names: [String] = []
        for keyPath in repeat each relationships { names.append(FieldPath.name(keyPath)) }
        return try StrataError.catching {
            try ObjectMonitor(main: main(holding: id), id: id, relationships: names)
        }
    }

    /// A publisher of `object` (from any context, whatever type it is seen
    /// as): ``ObjectSnapshot``s to closures, as an `AsyncSequence` and as an
    /// `@Observable` property.
    ///
    /// ```swift
    /// let publisher = try stack.publishObject(person)
    /// for await snapshot in publisher.snapshots { print(snapshot?.$name ?? "deleted") }
    /// ```
    ///
    /// If the object no longer exists, the publisher's ``ObjectPublisher/snapshot`` is `nil`.
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or an error reading the object.
    @MainActor
    public func publishObject<Object: ManagedObject>(_ object: Object) throws(StrataError)
        -> ObjectPublisher<Object>
    {
        try publishObject(object.objectID)
    }

    /// A publisher of the object with `id`.
    ///
    /// ```swift
    /// let publisher = try stack.publishObject(personID)
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded``, or an error reading the object.
    @MainActor
    public func publishObject<Object: ManagedObject>(_ id: ObjectID<Object>) throws(StrataError)
        -> ObjectPublisher<Object>
    {
        try StrataError.catching { try ObjectPublisher(main: main(holding: id), id: id) }
    }
}
