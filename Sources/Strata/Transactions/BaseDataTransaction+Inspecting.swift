/// What a transaction has created, changed and deleted so far, before it
/// commits: CoreStore's "inspecting pending objects".
///
/// Each call looks at the objects the transaction holds, in every store of
/// the stack. An object created and then deleted in the same transaction is
/// in none of the sets; rows that `deleteAll` or `updateAll` changed without
/// an object standing for them are in none either (the commit's
/// ``ChangeSet`` lists them), while a held object whose row they changed is
/// updated. After a commit the sets start empty again, as
/// the next commit's changes start.
extension BaseDataTransaction {
    /// The objects of type `type` (its subentities' included) that this
    /// transaction created and has not deleted.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in
    ///     let ann = tx.create(Into<Person>())
    ///     tx.insertedObjects(Person.self)   // [ann]
    /// })
    /// ```
    public func insertedObjects<Object: ManagedObject>(_ type: Object.Type) -> Set<Object> {
        objects(.inserted, of: type)
    }

    /// The IDs of every object this transaction created and has not deleted.
    public func insertedObjectIDs() -> Set<AnyObjectID> {
        objectIDs(.inserted)
    }

    /// The IDs of the objects of type `type` (its subentities' included) that
    /// this transaction created and has not deleted.
    public func insertedObjectIDs<Object: ManagedObject>(_ type: Object.Type) -> Set<ObjectID<Object>> {
        Set(objects(.inserted, of: type).map(\.objectID))
    }

    /// The objects of type `type` (its subentities' included) that existed
    /// before this transaction and that it changed: a field or to-one
    /// relationship holds another value than when the transaction read it,
    /// or a to-many relationship gained or lost a member. An object whose
    /// fields were set back to their old values is not among them.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in
    ///     tx.edit(ann)?.age += 1
    ///     tx.updatedObjects(Person.self).count   // 1
    /// })
    /// ```
    public func updatedObjects<Object: ManagedObject>(_ type: Object.Type) -> Set<Object> {
        objects(.updated, of: type)
    }

    /// The IDs of every object that existed before this transaction and that
    /// it changed (see ``updatedObjects(_:)``).
    public func updatedObjectIDs() -> Set<AnyObjectID> {
        objectIDs(.updated)
    }

    /// The IDs of the objects of type `type` (its subentities' included) that
    /// existed before this transaction and that it changed.
    public func updatedObjectIDs<Object: ManagedObject>(_ type: Object.Type) -> Set<ObjectID<Object>> {
        Set(objects(.updated, of: type).map(\.objectID))
    }

    /// The objects of type `type` (its subentities' included) that existed
    /// before this transaction and that it deleted, those its delete rules
    /// took with them included.
    ///
    /// ```swift
    /// try stack.perform(synchronous: { tx in
    ///     tx.delete(owner)                      // cascades to the pets
    ///     tx.deletedObjects(Pet.self).count     // the owner's pets
    /// })
    /// ```
    public func deletedObjects<Object: ManagedObject>(_ type: Object.Type) -> Set<Object> {
        objects(.deleted, of: type)
    }

    /// The IDs of every object that existed before this transaction and that
    /// it deleted.
    public func deletedObjectIDs() -> Set<AnyObjectID> {
        objectIDs(.deleted)
    }

    /// The IDs of the objects of type `type` (its subentities' included) that
    /// existed before this transaction and that it deleted.
    public func deletedObjectIDs<Object: ManagedObject>(_ type: Object.Type) -> Set<ObjectID<Object>> {
        Set(objects(.deleted, of: type).map(\.objectID))
    }

    /// Whether `object` has changes this transaction has not committed: its
    /// ``ManagedObject/hasChanges``, CoreStore's spelling.
    public func objectHasPersistentChangedValues<Object: ManagedObject>(_ object: Object) -> Bool {
        object.hasChanges
    }

    private func objects<Object: ManagedObject>(_ change: ObjectChange, of type: Object.Type) -> Set<Object> {
        var found = Set<Object>()
        for context in contexts.all {
            for object in changedObjects(change, in: context) {
                if let object = object as? Object { found.insert(object) }
            }
        }
        return found
    }

    private func objectIDs(_ change: ObjectChange) -> Set<AnyObjectID> {
        var found = Set<AnyObjectID>()
        for context in contexts.all {
            for object in changedObjects(change, in: context) { found.insert(object.objectID.erased) }
        }
        return found
    }

    /// What `context` holds of `change`; a failure to read an object whose
    /// to-many relationship changed fails the transaction's commit instead.
    private func changedObjects(_ change: ObjectChange, in context: ObjectContext) -> [ManagedObject] {
        deferringFailure(or: []) { try context.changedObjects(change) }
    }
}
