/// The stack's read-only context on the main actor: fetched objects live
/// here, weakly held, and committed change sets — this stack's and every
/// other writer's, read from the commit log — are merged into them in
/// generation order (see `MainContext+Following.swift`).
@MainActor
final class MainContext {
    let context: ObjectContext
    /// The generation of the last change set merged (or refresh applied).
    var generation: UInt64
    /// Whether a merge pass is notifying observers right now.
    var isMerging = false
    /// The change set whose merge is notifying observers now.
    var mergingChangeSet: ChangeSet?
    /// While a merge notifies observers: per entity, every row the change
    /// set updated, with the object this context holds for it (`nil` for
    /// none), so that a monitor does not look each up again.
    var updatedRows: [String: [(rowID: Int64, object: ManagedObject?)]] = [:]
    /// The monitors and publishers that follow merged change sets.
    let observation = ObservationCenter()
    /// Change sets read ahead of the merge, by generation: this stack's, taken
    /// from the store runtime, and other writers', read from the log.
    var waiting: [UInt64: ChangeSet] = [:]
    /// Transaction completions waiting for the merge of their commit, in order.
    var completions: [(after: UInt64, holdsMerges: Bool, body: @MainActor @Sendable () -> Void)] = []
    /// Whether merges asked for wait until an awaiting caller has resumed.
    var isHeldForResumption = false
    /// A refresh a read found necessary (a write that bypassed the log, a
    /// hole in the log), to apply before anything newer.
    var waitingRefresh: Refresh?
    /// Polls the store for other writers' commits while anyone observes.
    var watcher: Task<Void, Never>?
    /// For a store on a server, in place of polling: wakes the context when
    /// the server announces a commit, while anyone observes.
    var commitListener: (any ServerCommitListener)?
    /// Whether a wake from the commit listener waits for the main actor:
    /// announcements that come meanwhile are taken by that one look. (A
    /// box of its own, so that the listener's thread never holds the context.)
    let wakeIsWaiting = Locked(false)
    /// How long the watcher waits between two looks at the store (the stack's setting).
    let pollingInterval: @Sendable () -> Duration
    /// Whether ``close()`` ran: the store was removed, and nothing more is merged.
    private(set) var isClosed = false

    /// A main context on `context`, which reads through the store's reader,
    /// at the generation of the reader's first snapshot.
    init(context: ObjectContext, pollingInterval: @escaping @Sendable () -> Duration) throws {
        self.context = context
        self.pollingInterval = pollingInterval
        let reader = try context.readConnection()
        let generation = context.store.hasLog ? try CommitLog.generation(on: reader) : 0
        // The reader's data version is that of the snapshot the query just read.
        context.knownSnapshot = (reader.dataVersion(knowing: generation), generation)
        self.generation = generation
        context.follower = self
        observation.didAddObserver = { [weak self] in self?.startWatching() }
        observation.families = context.schema.entityFamilies
        Self.register(self)  // findable from its objects, for `object.$field.observe`
    }

    /// The store was removed from the stack: the watcher stops, observers
    /// are told nothing more comes (streams end), and reads throw
    /// ``StrataError/storeNotAdded``. Objects keep the values they hold.
    /// Transaction completions still waiting run now, in order.
    func close() {
        isClosed = true
        // Nothing more to follow: an observer added later (a field of an
        // object held from before) must not start a watcher or a listener.
        observation.didAddObserver = nil
        watcher?.cancel()
        watcher = nil
        stopListening()
        observation.endAll()
        context.closeReader()
        // Completions whose commit will never be merged here still run, once, in order.
        let left = completions.map(\.body)
        completions = []
        isHeldForResumption = false
        for body in left { body() }
        for case .completion(_, _, let body) in context.store.takeDelivered() { body() }
    }

    /// Brings the context's objects up to the change set's values, then tells
    /// every observer; never moves an object back to an older generation than
    /// the one it was read at.
    func merge(_ changeSet: ChangeSet) {
        guard changeSet.generation > generation else { return }
        generation = changeSet.generation
        var changeSet = listingClearedRows(changeSet)
        changeSet.families = context.schema.entityFamilies
        // The values the objects held, freed once the observers have been
        // told (many of them off the main actor): freeing touches every
        // replaced array, cold in memory (about a tenth of a 10,000-row
        // merge), and nothing the observers see needs it done first.
        var replaced: [ContiguousArray<StoredValue>] = []
        replaced.reserveCapacity(changeSet.changes.values.reduce(0) { $0 + $1.updated.count })
        for (entityName, changes) in changeSet.changes {
            guard let entity = context.schema.entity(named: entityName) else { continue }
            let rowIDs = Array(changes.updated.keys)
            let rows = zip(rowIDs, context.registered(entity, rowIDs)).map { (rowID: $0, object: $1) }
            // The values come in the order of the keys.
            for ((_, object), update) in zip(rows, changes.updated.values) {
                guard let object, object.generation < changeSet.generation else { continue }
                replaced.append(object.exchangeValues(update.values))
                object.generation = changeSet.generation
            }
            updatedRows[entityName] = rows
            // Inserted objects need nothing: any instance here was read after
            // the commit, from the store, and already has these values.
            for rowID in changes.deleted {
                guard let object = context.registered(entity, rowID) else { continue }
                object.isDeleted = true
                object.generation = changeSet.generation
                context.unregister(object)
            }
        }
        mergingChangeSet = changeSet
        defer {
            mergingChangeSet = nil
            updatedRows = [:]
        }
        observation.didMerge(changeSet)
        if replaced.count >= DeferredRelease.threshold { DeferredRelease.release(consume replaced) }
    }

    /// The change set with the rows of each entity it cleared that this
    /// context holds from before it listed as deleted: every object held
    /// that was read at an older generation (a newer one was read after the
    /// clearing, from a row made since).
    private func listingClearedRows(_ changeSet: ChangeSet) -> ChangeSet {
        // Every merge passes here: no set is built unless something was cleared.
        guard changeSet.changes.values.contains(where: \.cleared) else { return changeSet }
        let cleared = changeSet.clearedEntityNames
        var changes = changeSet.changes
        context.forEachRegistered { object in
            let name = object.entity!.name
            if cleared.contains(name), object.generation < changeSet.generation {
                changes[name]?.deleted.insert(object.rowID)
            }
        }
        return ChangeSet(
            generation: changeSet.generation, author: changeSet.author, date: changeSet.date,
            isLocal: changeSet.isLocal, changes: changes, configuration: changeSet.configuration)
    }

    /// The main context's object for a row a change set carries, taking the
    /// change set's values when the context does not hold it yet (no I/O).
    func object(
        _ entity: EntityDescription, rowID: Int64, values: ContiguousArray<StoredValue>, generation: UInt64
    ) -> ManagedObject {
        context.object(entity, rowID: rowID, values: values, generation: generation)
    }
}
