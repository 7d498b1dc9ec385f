import Foundation

/// Following the store: every commit, this stack's or another writer's,
/// reaches the main context in generation order (Docs/Architecture.md, "Threads"; Docs/History.md).
///
/// - This stack's commits wait in the store runtime with their values.
/// - Other writers' commits are read from the commit log, their values read
///   in one query per entity, only for rows a registered object or an
///   observer needs.
/// - A change the log cannot describe (a write that bypassed it, a hole left
///   by purging, a store without a log) becomes a refresh: every registered
///   object is read again and every observer refreshes.
///
/// Law: the main context's generation, an object's and a monitor's only
/// grow; a change set is merged once, after every older one.
extension MainContext: SnapshotFollower {
    /// A snapshot seen by a read showed a change: learn its generation and
    /// read what the merge will need, in that same snapshot.
    nonisolated func snapshotDidChange() throws -> UInt64 {
        try MainActor.assumeIsolated { try examineSnapshot(on: context.readConnection()) }
    }

    /// Commits read from the log, delivered, or seen in a snapshot wait to
    /// be merged: a pass stopped at an awaited commit's completion, or on an
    /// error. (A snapshot kept from that pass ends before the caller resumes:
    /// its end was queued on the main actor first.)
    nonisolated var isBehind: Bool {
        MainActor.assumeIsolated {
            !waiting.isEmpty || waitingRefresh != nil || context.knownSnapshot.generation > generation
        }
    }

    nonisolated func readDidEnd() {
        MainActor.assumeIsolated { catchUp() }
    }

    nonisolated func keptSnapshotDidBegin() {
        // Enqueued behind every job waiting now: it runs once the current
        // job (and those) are done, and the next job's reads see the latest commit.
        Task { @MainActor [weak self] in self?.endKeptSnapshot() }
    }

    /// Ends the snapshot the main context's reads keep, if one is open: what
    /// is read next reads the latest commit.
    func endKeptSnapshot() {
        (try? context.readConnection())?.endKeptRead()
    }
}

extension MainContext {
    /// How far behind the log the main context may fall and still replay it
    /// commit by commit; past that, one refresh costs less.
    static let replayLimit: UInt64 = 10_000

    /// What a refresh read: per entity, the values of the registered rows
    /// that still exist, and which registered rows were looked for.
    struct Refresh {
        let generation: UInt64
        var values: [Int: [Int64: ContiguousArray<StoredValue>]] = [:]
        var lookedFor: [Int: [Int64]] = [:]
    }

    // MARK: Catching up

    /// Merges everything committed that the main context has not merged yet,
    /// in generation order. A call made while a merge is notifying observers
    /// returns at once: the pass in progress takes what is new after the
    /// change set it is on, so every observer sees generation order.
    ///
    /// A transaction's completion runs right after the merge of its commit.
    /// An `await perform` from the main actor holds further merges until it
    /// has resumed, so that its caller's next step sees its own commit and no
    /// later one; `yielding` passes (the ones the main actor was asked for)
    /// wait meanwhile. Passes a read or a synchronous commit needs now do not.
    func catchUp(yielding: Bool = false) {
        guard !isMerging, !(yielding && isHeldForResumption) else { return }
        isMerging = true
        defer { isMerging = false }
        var readTheStore = false
        while true {
            takeLocalChangeSets()
            if runMergedCompletions(), yielding { return }
            if let refresh = waitingRefresh {
                waitingRefresh = nil
                waiting = waiting.filter { $0.key > refresh.generation }
                // Read in the kept snapshot, or in an older one, or in a
                // newer one that ended it: the kept snapshot shows no less.
                apply(refresh)
                continue
            }
            if var next = waiting.removeValue(forKey: generation + 1) {
                if next.needsValues {
                    do {
                        next = try inPinnedSnapshot { try readNeededValues(of: [next], on: $0)[0] }
                    } catch {
                        StrataLog.warning(.history, "Strata could not read the values of a bulk write: \(error)")
                    }
                }
                if next.generation > context.knownSnapshot.generation {
                    // A snapshot kept open shows only up to the known generation
                    // (whatever looks at a newer one ends it first): what is
                    // read after this merge must show it.
                    endKeptSnapshot()
                }
                merge(next)
                if next.rowCount >= DeferredRelease.threshold { DeferredRelease.release(consume next) }
                continue
            }
            waiting = waiting.filter { $0.key > generation }
            let behind = !waiting.isEmpty || context.knownSnapshot.generation > generation
            // One look at the store per pass: what it shows is then all known.
            guard behind, !readTheStore else { return }
            readTheStore = true
            do {
                try inPinnedSnapshot { connection in _ = try examineSnapshot(on: connection) }
            } catch {
                StrataLog.warning(.history, "Strata could not read the commit log: \(error)")
                return
            }
        }
    }

    /// Looks at the store now: when its data version moved, catches up, in
    /// a yielding pass: a look that comes while an awaiting caller holds
    /// merges learns of the new commits and leaves them for after it.
    /// The watcher's whole cost when nothing changed is this one point read.
    func poll() {
        guard !isMerging else { return }
        endKeptSnapshot()  // a look at the store now, not at a snapshot kept from earlier
        do {
            let reader = try context.readConnection()
            // The read that brings SQLite's data version up to date, and a server's.
            let generation = try CommitLog.generation(on: reader)
            guard reader.dataVersion(knowing: generation) != context.knownSnapshot.dataVersion else { return }
            try inPinnedSnapshot { connection in _ = try examineSnapshot(on: connection) }
        } catch {
            StrataLog.warning(.history, "Strata could not look for other writers' commits: \(error)")
            return
        }
        catchUp(yielding: true)
    }

    /// Runs `body` on the reader inside one read transaction.
    private func inPinnedSnapshot<Result>(_ body: (Connection) throws -> Result) throws -> Result {
        let reader = try context.readConnection()
        reader.endKeptRead()
        try reader.executePrepared(reader.dialect.beginRead)
        defer { try? reader.executePrepared("COMMIT") }
        // The snapshot starts with the first read.
        return try body(reader)
    }

    private func takeLocalChangeSets() {
        for delivery in context.store.takeDelivered() {
            switch delivery {
            case .changeSet(let changeSet):
                if changeSet.generation > generation { waiting[changeSet.generation] = changeSet }
            case .completion(let after, let holdsMerges, let body):
                completions.append((after, holdsMerges, body))
            }
        }
    }

    /// Runs, in the order they were delivered, the completions whose commit
    /// is merged. Like an observer callback, a completion runs inside the
    /// pass: what it reads merges nothing more, so the monitors it looks at
    /// show its own commit and no later one (a fetch reads the store as it
    /// is, later commits included: the writer does not wait),
    /// and what it commits is merged after it returns.
    /// Returns `true` when one that holds merges ran: the pass stops there.
    private func runMergedCompletions() -> Bool {
        while let first = completions.first, first.after <= generation {
            completions.removeFirst()
            first.body()
            if first.holdsMerges {
                isHeldForResumption = true
                return true
            }
        }
        return false
    }

    /// An awaiting caller resumed after its commit's merge: merging goes on.
    ///
    /// While completions of transactions queued behind the caller wait here
    /// (their own tasks found merging held), the task holds the context
    /// until it has run them: a caller that lets the stack go as it resumes
    /// would otherwise free the context, and them, uncalled. Otherwise it
    /// holds it weakly, so that a stack let go closes its connections at
    /// once, not when the main actor comes to this task.
    func resumeMerging() {
        guard isHeldForResumption else { return }
        isHeldForResumption = false
        if completions.isEmpty {
            Task { @MainActor [weak self] in self?.catchUp(yielding: true) }
        } else {
            Task { @MainActor in self.catchUp(yielding: true) }
        }
    }

    // MARK: Reading a snapshot

    /// Reads the generation of the snapshot open on `connection` and, when it
    /// is new, what the merge needs to reach it: other writers' change sets,
    /// or a refresh. Returns the generation.
    func examineSnapshot(on connection: Connection) throws -> UInt64 {
        guard context.store.hasLog else {
            // No log to read (a read-only store made before it): every change is a refresh.
            let generation = try CommitLog.generation(on: connection)
            let dataVersion = connection.dataVersion(knowing: generation)
            if dataVersion != context.knownSnapshot.dataVersion {
                let next = max(generation, self.generation)
                waitingRefresh = try readRefresh(at: next, on: connection)
                context.knownSnapshot = (dataVersion, next)
            }
            return context.knownSnapshot.generation
        }
        let generation = try CommitLog.generation(on: connection)
        let dataVersion = connection.dataVersion(knowing: generation)
        let known = context.knownSnapshot
        context.knownSnapshot = (dataVersion, generation)
        if dataVersion != known.dataVersion, generation == known.generation {
            // The file changed, and no commit was logged: a writer bypassed Strata.
            waitingRefresh = try readRefresh(at: max(generation, self.generation), on: connection)
            return generation
        }
        try readLog(through: generation, on: connection)
        return generation
    }

    /// Reads the records of other writers' commits up to `last`, and the
    /// values their change sets carry, into `waiting`; a hole in the records
    /// becomes a refresh.
    private func readLog(through last: UInt64, on connection: Connection) throws {
        takeLocalChangeSets()
        // Only commits this snapshot shows: this stack's own commit may have
        // been delivered after the snapshot began, and its rows read here
        // would hold the values from before it. Newer ones are read when merged.
        let unread = waiting.values.filter { $0.needsValues && $0.generation <= last }
        for changeSet in try readNeededValues(of: unread, on: connection) {
            waiting[changeSet.generation] = changeSet
        }
        let first = max(generation, waitingRefresh?.generation ?? 0) + 1
        guard last >= first else { return }
        if last - first >= Self.replayLimit {
            waitingRefresh = try readRefresh(at: last, on: connection)
            return
        }
        let missing = (first...last).filter { waiting[$0] == nil }
        guard let low = missing.first, let high = missing.last else { return }
        let records = try CommitLog.records(after: low - 1, through: high, on: connection)
            .filter { waiting[$0.generation] == nil }
        guard records.map(\.generation) == missing else {
            // Purged, unreadable, or never written (a store that gained its log late).
            waitingRefresh = try readRefresh(at: last, on: connection)
            return
        }
        for changeSet in try readNeededValues(of: records.map(changeSet(of:)), on: connection) {
            waiting[changeSet.generation] = changeSet
        }
    }

    /// Another writer's record as a change set whose rows have no values yet.
    private func changeSet(of record: CommitRecord) -> ChangeSet {
        var changes: [String: ChangeSet.EntityChanges] = [:]
        for (name, logged) in record.entities where context.schema.entity(named: name) != nil {
            changes[name] = ChangeSet.EntityChanges(
                deleted: Set(logged.deleted), insertedUnread: logged.inserted, updatedUnread: logged.updated,
                cleared: logged.cleared)
        }
        var changeSet = ChangeSet(
            generation: record.generation, author: record.author, date: record.date, isLocal: false,
            changes: changes, configuration: context.schema.configuration)
        changeSet.needsValues = true
        return changeSet
    }

    /// The change sets with the values of the rows someone here needs (a
    /// registered object's, or any row of an entity an observer watches),
    /// read in the snapshot open on `connection`, one query per entity.
    /// Rows nobody needs, and rows gone since, stay listed without values.
    func readNeededValues(of changeSets: [ChangeSet], on connection: Connection) throws -> [ChangeSet] {
        guard changeSets.contains(where: \.needsValues) else { return changeSets }
        let watched = observation.watchedEntityNames
        var needed: [String: Set<Int64>] = [:]
        for changeSet in changeSets where changeSet.needsValues {
            for (name, changes) in changeSet.changes where changes.hasUnreadRows {
                guard let entity = context.schema.entity(named: name) else { continue }
                let rows = changes.insertedUnread + Array(changes.updatedUnread.keys)
                if watched.contains(name) {
                    needed[name, default: []].formUnion(rows)
                } else {
                    needed[name, default: []].formUnion(rows.filter { context.registered(entity, $0) != nil })
                }
            }
        }
        var values: [String: [Int64: ContiguousArray<StoredValue>]] = [:]
        for (name, rowIDs) in needed where !rowIDs.isEmpty {
            values[name] = try context.readValues(of: context.schema.entity(named: name)!, rowIDs: rowIDs, on: connection)
        }
        return changeSets.map { changeSet in
            guard changeSet.needsValues else { return changeSet }
            var changes = changeSet.changes
            for (name, read) in values {
                guard var entityChanges = changes[name] else { continue }
                entityChanges.insertedUnread.removeAll { rowID in
                    guard let row = read[rowID] else { return false }
                    entityChanges.inserted.append((rowID, row))
                    return true
                }
                for (rowID, fields) in entityChanges.updatedUnread {
                    guard let row = read[rowID] else { continue }
                    entityChanges.updated[rowID] = ChangeSet.Update(values: row, changedFields: fields)
                    entityChanges.updatedUnread[rowID] = nil
                }
                changes[name] = entityChanges
            }
            return ChangeSet(
                generation: changeSet.generation, author: changeSet.author, date: changeSet.date,
                isLocal: changeSet.isLocal, changes: changes, configuration: changeSet.configuration)
        }
    }

    // MARK: Moving to a reopened store

    /// The generation the store's next history must start after: every
    /// generation this context has merged or seen a snapshot at.
    var followedGeneration: UInt64 { max(generation, context.knownSnapshot.generation) }

    /// Goes on with `store`, opened again in place of the closed one the
    /// context followed (its file replaced or reset), its history restarted
    /// past ``followedGeneration``: nothing in its log says what changed, so
    /// it is a refresh, as for a write that bypassed the log. Registered
    /// objects take their row's values in the new file, or are deleted when
    /// it has no such row, and every observer refreshes, at the next
    /// ``catchUp(yielding:)``: the stack calls it once the swap is over, so
    /// that an observer may start a transaction on the new store.
    func follow(_ store: StoreRuntime, reader: Connection) throws {
        context.follow(store, reader: reader)
        waiting = [:]
        try inPinnedSnapshot { connection in
            let generation = try CommitLog.generation(on: connection)
            context.knownSnapshot = (connection.dataVersion(knowing: generation), generation)
            waitingRefresh = try readRefresh(at: max(generation, self.generation), on: connection)
        }
    }

    // MARK: Refreshing

    /// Reads every registered object's row again, in the open snapshot.
    private func readRefresh(at generation: UInt64, on connection: Connection) throws -> Refresh {
        var refresh = Refresh(generation: generation)
        var registered: [Int: [Int64]] = [:]
        context.forEachRegistered { object in
            registered[object.entity!.index, default: []].append(object.rowID)
        }
        for (index, rowIDs) in registered {
            let entity = context.schema.entities[index]
            refresh.lookedFor[index] = rowIDs
            refresh.values[index] = try context.readValues(of: entity, rowIDs: rowIDs, on: connection)
        }
        return refresh
    }

    /// Applies a refresh: registered objects take the values read (or are
    /// deleted when their row is gone), and every observer refreshes with a
    /// change set of what changed among them.
    private func apply(_ refresh: Refresh) {
        var changes: [String: ChangeSet.EntityChanges] = [:]
        for (index, rowIDs) in refresh.lookedFor {
            let entity = context.schema.entities[index]
            let values = refresh.values[index] ?? [:]
            var entityChanges = ChangeSet.EntityChanges()
            for rowID in rowIDs {
                guard let object = context.registered(entity, rowID) else { continue }
                guard let new = values[rowID] else {
                    object.isDeleted = true
                    context.unregister(object)
                    entityChanges.deleted.insert(rowID)
                    continue
                }
                let fields = entity.changedFieldNames(from: object.values) { new[$0] }
                object.values = new
                object.generation = max(object.generation, refresh.generation)
                if !fields.isEmpty {
                    entityChanges.updated[rowID] = ChangeSet.Update(values: new, changedFields: fields)
                }
            }
            if !entityChanges.isEmpty { changes[entity.name] = entityChanges }
        }
        generation = max(generation, refresh.generation)
        var changeSet = ChangeSet(
            generation: generation, author: nil, date: Date(), isLocal: false, changes: changes,
            configuration: context.schema.configuration)
        changeSet.isRefresh = true
        mergingChangeSet = changeSet
        defer { mergingChangeSet = nil }
        observation.didRefresh(changeSet)
    }

    // MARK: Watching

    /// Starts following the store while any observer is alive: polling its
    /// file, or listening for the server's announcements.
    func startWatching() {
        if let server = context.store.settings.server {
            startListening(to: server)
            return
        }
        guard watcher == nil else { return }
        watcher = Task { @MainActor [weak self] in
            while !Task.isCancelled {
                guard let interval = self?.pollingInterval() else { return }
                try? await Task.sleep(for: interval)
                guard let self, self.observation.hasObservers else {
                    self?.watcher = nil
                    return
                }
                self.poll()
            }
        }
    }

    /// Listens for the server's commit announcements: each wakes the main
    /// actor for one look at the store (``poll()``), announcements that come
    /// before it runs included. Stops when no observer is left.
    private func startListening(to server: any ServerStoreEngine) {
        guard commitListener == nil else { return }
        let isWaiting = wakeIsWaiting
        commitListener = server.listen { [weak self] in
            let wasWaiting = isWaiting.withLock { waiting in
                defer { waiting = true }
                return waiting
            }
            guard !wasWaiting else { return }
            Task { @MainActor [weak self] in
                isWaiting.withLock { $0 = false }
                guard let self else { return }
                guard self.observation.hasObservers else { return self.stopListening() }
                self.poll()
            }
        }
    }

    func stopListening() {
        commitListener?.stop()
        commitListener = nil
    }
}
