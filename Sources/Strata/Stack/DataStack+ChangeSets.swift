/// Every merged change set, as an asynchronous sequence.
extension DataStack {
    /// The change sets the main context merges from now on, in generation
    /// order — this stack's commits and every other writer's, read from the
    /// commit log — beside the monitors, which see the same ones. With
    /// several stores, each store's come in its own generation order
    /// (``ChangeSet/configuration`` says whose), a store added later's too.
    ///
    /// `entityNames` keeps the change sets that touch one of those entities
    /// (all when empty); `author` keeps the ones of that author. A refresh
    /// (a write that bypassed the log, history purged past the stack) comes
    /// as a change set with ``ChangeSet/isRefresh`` set, listing what changed
    /// among the objects the stack holds; it passes every entity and author
    /// filter, since anyone may have changed anything. The stream ends when the stack is
    /// released, also while a monitor, publisher or field observation of
    /// its objects lives on, and when ``removeStorage()`` removes its stores; stop
    /// reading it (or cancel its task) to stop it.
    ///
    /// ```swift
    /// Task { @MainActor in
    ///     for await changeSet in try stack.changeSets(touching: ["Person"]) {
    ///         print(changeSet.generation, changeSet.author ?? "-", changeSet.updatedIDs(entity: "Person"))
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: ``StrataError/storeNotAdded`` before a store is added.
    @MainActor
    public func changeSets(touching entityNames: Set<String> = [], author: String? = nil)
        throws(StrataError) -> AsyncStream<ChangeSet>
    {
        _ = try main()
        let (stream, continuation) = AsyncStream.makeStream(of: ChangeSet.self)
        let feed = ChangeSetFeed(continuation: continuation, entityNames: entityNames, author: author)
        // Every store's merges, each store's in its generation order; a
        // store added later joins (`install`).
        for main in mainContexts { main.observation.add(feed, stage: .streams) }
        changeSetFeeds.removeAll { $0.feed == nil }
        changeSetFeeds.append(WeakChangeSetFeed(feed: feed))
        // The stack ends the stream when it goes (see `deinit`).
        let ends = changeSetStreamEnds
        let key = ends.withLock { ends in
            defer { ends.next &+= 1 }
            ends.continuations[ends.next] = continuation
            return ends.next
        }
        // The stream holds the feed; the stack and its main contexts hold it weakly.
        continuation.onTermination = { [weak self] _ in
            _ = ends.withLock { $0.continuations.removeValue(forKey: key) }
            Task { @MainActor in
                for main in self?.mainContexts ?? [] { main.observation.remove(feed) }
            }
        }
        return stream
    }
}
