/// The stack's read-only context on the main actor: fetched objects live
/// here, weakly held, and committed change sets are merged into them.
@MainActor
final class MainContext {
    let context: ObjectContext
    /// The generation of the last change set merged.
    private(set) var generation: UInt64
    /// Whether a merge pass is notifying observers right now.
    var isMerging = false
    /// The monitors and publishers that follow merged change sets.
    let observation = ObservationCenter()

    init(context: ObjectContext, generation: UInt64) {
        self.context = context
        self.generation = generation
        Self.register(self)  // findable from its objects, for `object.$field.observe`
    }

    /// Brings the context's objects up to the change set's values; never moves
    /// an object back to an older generation than the one it was read at.
    func merge(_ changeSet: ChangeSet) {
        guard changeSet.generation > generation else { return }
        generation = changeSet.generation
        for (entityName, changes) in changeSet.changes {
            guard let entity = context.schema.entity(named: entityName) else { continue }
            for (rowID, update) in changes.updated {
                guard let object = context.registered(entity, rowID),
                      object.generation < changeSet.generation
                else { continue }
                object.values = update.values
                object.generation = changeSet.generation
            }
            // Inserted objects need nothing: any instance here was read after
            // the commit, from the store, and already has these values.
            for rowID in changes.deleted {
                guard let object = context.registered(entity, rowID) else { continue }
                object.isDeleted = true
                object.generation = changeSet.generation
                context.unregister(object)
            }
        }
        observation.didMerge(changeSet)
    }

    /// The main context's object for a row a change set carries, taking the
    /// change set's values when the context does not hold it yet (no I/O).
    func object(
        _ entity: EntityDescription, rowID: Int64, values: ContiguousArray<StoredValue>, generation: UInt64
    ) -> ManagedObject {
        context.object(entity, rowID: rowID, values: values, generation: generation)
    }
}
