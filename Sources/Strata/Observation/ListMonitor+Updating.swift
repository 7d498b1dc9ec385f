import Foundation

/// Following merged change sets: in memory when the monitor can decide,
/// otherwise by re-fetching and diffing.
extension ListMonitor {
    /// The monitored entity and its subentities, whose rows are members too.
    var watchedEntityNames: Set<String> { Set(entity.familyNames) }

    func didMerge(_ changeSet: ChangeSet) {
        // A merge that a read inside `load()` set off is older than the list being loaded.
        guard changeSet.generation > generation, !isLoading else { return }
        defer { generation = max(generation, changeSet.generation) }
        let mine = changeSet.changes(of: entity)
        // The entities read through relationships (the monitored one too, for a
        // path back to it); raw SQL may read any table.
        let rawSQL = !(query.predicate?.isEvaluableInMemory ?? true)
        let othersChanged = rawSQL || changeSet.changes.keys.contains(where: entitiesRead.contains)
        let readsRelationships = rawSQL || !entitiesRead.isEmpty
        guard mine != nil || (readsRelationships && othersChanged) else { return }
        // Deleted rows count only when they are members: a bulk delete lists
        // rows the list never held.
        let changeCount = mine.map { changes in
            changes.inserted.count + changes.updated.count + changes.deleted.count { keysByRowID[$0] != nil }
        } ?? 0
        let mustRefetch = rawSQL
            || (readsRelationships && othersChanged)
            || query.options.effectiveLimit != nil || query.options.fetchOffset > 0
            || changeCount > max(32, members.count / 2)
        if mustRefetch {
            refetchAndDiff(updated: Set(mine?.updated.keys.map { $0 } ?? []))
        } else if let mine {
            update(with: mine, generation: changeSet.generation)
        }
    }

    /// Anything may have changed: the list is fetched again, and observers
    /// told so with `listMonitorWillRefetch` / `listMonitorDidRefetch`.
    func didRefresh(_ changeSet: ChangeSet) {
        guard !isLoading else { return }
        do {
            try refetch(from: query, sectionBy: sectionBy)
        } catch {
            StrataLog.warning(.observation, "A ListMonitor of \(entity.name) could not re-fetch: \(error)")
        }
        generation = max(generation, changeSet.generation)
    }

    // MARK: In memory, O(k log n)

    private func update(with changes: ChangeSet.EntityChanges, generation: UInt64) {
        let predicate = query.predicate
        let evaluator = MemoryEvaluator(graph: main.context)
        func matches(_ object: ManagedObject) -> Bool {
            guard let predicate else { return true }
            return evaluator.evaluate(predicate.predicate, on: object) ?? false
        }

        // Every changed object that matches, as a member, with its key before
        // the change (nil when it enters); the lists below hold indices into it.
        var fresh: [ListMember] = []
        var oldKeys: [ListKey?] = []
        var leaving: [ListKey] = []                   // deleted or no longer matching
        for rowID in changes.deleted {
            if let key = keysByRowID[rowID] { leaving.append(key) }
        }
        for (rowID, update) in changes.updated {
            let object = main.object(entity, rowID: rowID, values: update.values, generation: generation)
            let old = keysByRowID[rowID]
            if matches(object) {
                fresh.append(member(object))
                oldKeys.append(old)
            } else if let old {
                leaving.append(old)
            }
        }
        for (rowID, values) in changes.inserted where keysByRowID[rowID] == nil {
            let object = main.object(entity, rowID: rowID, values: values, generation: generation)
            if matches(object) {
                fresh.append(member(object))
                oldKeys.append(nil)
            }
        }
        guard !leaving.isEmpty || !fresh.isEmpty else { return }

        // Old positions (one binary search each) and index paths, against the list as it was.
        let oldSections = sectionRuns
        let oldEnds = sectionEnds(oldSections)
        // With their positions, by which they are put in the order observers get them.
        var deletedObjects: [((ManagedObject, IndexPath), position: Int)] = []
        // What leaves or moves comes out of its section now (the index
        // paths above read the old ends and the copy of the sections).
        var removals: [Int] = []
        for key in leaving {
            guard let position = members.position(of: key) else { continue }
            let path = IndexPath(position: position, sectionEnds: oldEnds)
            deletedObjects.append(((members[position].object, path), position))
            removals.append(position)
            sectionRuns[path.section].count -= 1
            keysByRowID[key.rowID] = nil
        }
        var incoming: [Int] = []                           // entering, or moving to a new position
        var movedFrom = [IndexPath?](repeating: nil, count: fresh.count)
        var updatedObjects: [((ManagedObject, IndexPath), position: Int)] = []
        for index in fresh.indices {
            guard let old = oldKeys[index] else {
                incoming.append(index)
                continue
            }
            guard let position = members.position(of: old) else { continue }
            let path = IndexPath(position: position, sectionEnds: oldEnds)
            // The section key leads the keys, so equal keys mean the same
            // section value; its name may still differ (say for 0.0 and -0.0).
            if old.sortsWith(fresh[index].key), oldSections[path.section].name == fresh[index].section {
                updatedObjects.append(((fresh[index].object, path), position))
            } else {
                movedFrom[index] = path
                removals.append(position)
                sectionRuns[path.section].count -= 1
                incoming.append(index)
            }
        }

        // Sections left empty, by index in the old list (nothing has moved yet).
        var deletedSections: [Int] = []
        // An unsectioned list keeps its one section, even empty.
        for index in sectionRuns.indices where sectionRuns[index].count == 0 && sectionBy != nil {
            deletedSections.append(index)
        }
        // What each deleted section held, read before the members change.
        let deletedSectionInfos = deletedSections.reversed().map {
            (Self.sectionInfo(at: $0, of: oldSections, in: members), $0)
        }
        for index in deletedSections.reversed() { sectionRuns.remove(at: index) }
        // With names not monotone in the section key, an emptied section can
        // leave two of the same name side by side, which a fetch makes one.
        let joinsSections = sectionRuns.indices.dropFirst().contains { sectionRuns[$0 - 1].name == sectionRuns[$0].name }
        // Remove what leaves or moves, then insert what enters or moves, each
        // as one batch: a chunk of the list is rewritten once however many
        // of its members change.
        members.remove(ascending: removals.sorted())

        // Final positions: where each would go among the remaining members,
        // plus the incoming members that sort before it.
        var placed: [(position: Int, member: ListMember)] = []
        var placedFrom: [IndexPath?] = []
        placed.reserveCapacity(incoming.count)
        placedFrom.reserveCapacity(incoming.count)
        for index in ListOrdering.byKey(incoming, of: fresh) {
            let member = fresh[index]
            let position = members.insertionPoint(of: member.key) + placed.count
            placed.append((position, member))
            placedFrom.append(movedFrom[index])
            keysByRowID[member.key.rowID] = member.key
        }
        let (insertedSections, splitsASection) = placeInSections(placed)
        members.insert(placed.map { ($0.position, ListEntry(object: $0.member.object, key: $0.member.key)) })
        if splitsASection || joinsSections {
            // A SectionBy whose names are not monotone in its key split or
            // joined sections: they are rebuilt and observers told so as a refetch.
            let boxes = liveObservers
            for box in boxes { box.willRefetch(self) }
            rebuildSections(names: members.map { sectionName(of: $0.object) })
            for box in boxes { box.didRefetch(self) }
            return
        }

        // New index paths, against the list as it is now: `placed` is in
        // ascending order of position, as observers get inserts.
        let newEnds = sectionEnds(sectionRuns)
        var insertedObjects: [(ManagedObject, IndexPath)] = []
        var movedObjects: [(ManagedObject, IndexPath, IndexPath)] = []
        for ((position, member), from) in zip(placed, placedFrom) {
            let path = IndexPath(position: position, sectionEnds: newEnds)
            if let from {
                movedObjects.append((member.object, from, path))
            } else {
                insertedObjects.append((member.object, path))
            }
        }
        notify(
            deleted: ListOrdering.descending(deletedObjects), inserted: insertedObjects,
            moved: movedObjects, updated: ListOrdering.ascending(updatedObjects),
            deletedSections: deletedSectionInfos, insertedSections: insertedSections.sorted())
    }

    /// Counts each placed member into the section it joins (the one before
    /// or after it when the name matches), or a new section between them.
    ///
    /// `placed` is ascending by final position, so one cursor walks the
    /// sections once, and a new section's index is final when it is made
    /// (later ones come after it). Returns the new sections' indices, and whether a
    /// member would split a section (a SectionBy whose names are not
    /// monotone in its key), which needs the sections rebuilt.
    private func placeInSections(_ placed: [(position: Int, member: ListMember)]) -> (inserted: [Int], split: Bool) {
        guard sectionBy != nil else {
            sectionRuns[0].count += placed.count
            return ([], false)
        }
        var inserted: [Int] = []
        var total = members.count
        // The section holding the position the cursor last found, and where it starts.
        var cursor = (section: 0, start: 0)
        func section(containing position: Int) -> (section: Int, start: Int) {
            if position < cursor.start { cursor = (0, 0) }
            while cursor.section < sectionRuns.count - 1, cursor.start + sectionRuns[cursor.section].count <= position {
                cursor.start += sectionRuns[cursor.section].count
                cursor.section += 1
            }
            return cursor
        }
        for (position, incoming) in placed {
            let before = position > 0 ? section(containing: position - 1) : nil
            let after = position < total ? section(containing: position) : nil
            if let before, sectionRuns[before.section].name == incoming.section {
                sectionRuns[before.section].count += 1
                cursor = before
            } else if let after, sectionRuns[after.section].name == incoming.section {
                sectionRuns[after.section].count += 1
                cursor = after
            } else if let before, let after, before.section == after.section {
                return (inserted, true)
            } else {
                let index = after?.section ?? sectionRuns.count
                sectionRuns.insert(ListSection(name: incoming.section, count: 1), at: index)
                inserted.append(index)
                cursor = (index, position)
            }
            total += 1
        }
        return (inserted, false)
    }

    /// A member as the monitor's type; every member is an object of its entity.
    private func typed(_ object: ManagedObject) -> Object {
        uncheckedDowncast(object, to: Object.self)
    }

    // MARK: Notifying

    /// Tells every observer, in the order batch updates apply changes:
    /// deletes (of objects, then sections) from the end, inserts (of
    /// sections, then objects) from the start; updates ascending. Callers
    /// pass each list in that order, sorting by position where they know it
    /// (cheaper than comparing index paths).
    private func notify(
        deleted: [(ManagedObject, IndexPath)], inserted: [(ManagedObject, IndexPath)],
        moved: [(ManagedObject, IndexPath, IndexPath)], updated: [(ManagedObject, IndexPath)],
        deletedSections: [(ListSectionInfo<Object>, Int)], insertedSections: [Int]
    ) {
        let boxes = liveObservers
        guard !boxes.isEmpty else { return }
        #if DEBUG || STRATA_CHECKED
        checkInvariant(
            zip(deleted, deleted.dropFirst()).allSatisfy { $0.1 > $1.1 }
                && zip(inserted, inserted.dropFirst()).allSatisfy { $0.1 < $1.1 }
                && zip(updated, updated.dropFirst()).allSatisfy { $0.1 < $1.1 }
                && zip(deletedSections, deletedSections.dropFirst()).allSatisfy { $0.1 > $1.1 }
                && zip(insertedSections, insertedSections.dropFirst()).allSatisfy { $0 < $1 },
            "a list monitor's changes are out of order")
        #endif
        for box in boxes { box.willChange(self) }
        for box in boxes {
            for (object, path) in deleted { box.didDeleteObject?(self, typed(object), path) }
            for (info, index) in deletedSections { box.didDeleteSection?(self, info, index) }
            for index in insertedSections { box.didInsertSection?(self, sectionInfo(at: index), index) }
            for (object, path) in inserted { box.didInsertObject?(self, typed(object), path) }
            for (object, from, to) in moved { box.didMoveObject?(self, typed(object), from, to) }
            for (object, path) in updated { box.didUpdateObject?(self, typed(object), path) }
        }
        for box in boxes { box.didChange(self) }
    }

    // MARK: By re-fetching

    /// The visible list as section identifiers and row IDs, for diffing.
    func sectionedRowIDs() -> SectionedList<Int64> {
        var occurrences: [String: Int] = [:]
        var start = 0
        return SectionedList(sections: sectionRuns.map { section in
            let seen = occurrences[section.name, default: 0]
            occurrences[section.name] = seen + 1
            let items = members.entries(in: start..<(start + section.count)).map(\.rowID)
            start += section.count
            // Names may repeat when a section name is not monotone in its key.
            let identifier = seen == 0 ? section.name : "\(section.name)\u{0}\(seen)"
            return SectionedList<Int64>.Section(identifier: identifier, items: items)
        })
    }

    private func refetchAndDiff(updated: Set<Int64>) {
        let oldList = sectionedRowIDs()
        let oldMembers = members
        let oldSections = sectionRuns
        do {
            try load()
        } catch {
            StrataLog.warning(.observation, "A ListMonitor of \(entity.name) could not re-fetch: \(error)")
            return
        }
        emit(ListDiff.changes(from: oldList, to: sectionedRowIDs(), updated: updated),
             oldMembers: oldMembers, oldSections: oldSections)
    }

    private func emit(_ changes: ListChanges, oldMembers: ListMembers, oldSections: [ListSection]) {
        guard !changes.isEmpty else { return }
        func oldObject(at path: IndexPath) -> ManagedObject {
            oldMembers[Self.position(of: path, in: oldSections)].object
        }
        // The changes' lists are ascending.
        notify(
            deleted: changes.deletes.reversed().map { (oldObject(at: $0), $0) },
            inserted: changes.inserts.map { (self[$0] as ManagedObject, $0) },
            moved: changes.moves.map { (self[$0.to] as ManagedObject, $0.from, $0.to) },
            updated: changes.updates.map { (oldObject(at: $0), $0) },
            deletedSections: changes.deletedSections.reversed().map {
                (Self.sectionInfo(at: $0, of: oldSections, in: oldMembers), $0)
            },
            insertedSections: changes.insertedSections)
    }
}

/// Sorting for the monitor, outside the main actor: a closure formed in a
/// main-actor method is isolated to it, and Swift checks the executor on
/// every call when such a closure is handed to a generic algorithm. These
/// run once per changed member, so they stay nonisolated.
enum ListOrdering {
    /// The indices of `members` at `indices`, in list order.
    static func byKey(_ indices: [Int], of members: [ListMember]) -> [Int] {
        let keys = members.map(\.key)
        return indices.sorted { keys[$0] < keys[$1] }
    }

    /// Items in ascending order of their position in the list, without it.
    static func ascending<Item>(_ items: [(Item, position: Int)]) -> [Item] {
        items.sorted { $0.position < $1.position }.map(\.0)
    }

    /// Items in descending order of their position in the list, without it.
    static func descending<Item>(_ items: [(Item, position: Int)]) -> [Item] {
        items.sorted { $0.position > $1.position }.map(\.0)
    }
}
