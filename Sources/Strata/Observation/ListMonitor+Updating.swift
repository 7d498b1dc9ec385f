import Foundation

/// Following merged change sets: in memory when the monitor can decide,
/// otherwise by re-fetching and diffing.
extension ListMonitor {
    /// The entities whose objects may be members: the monitored one and,
    /// unless the fetch's tweak leaves them out, its subentities.
    var memberEntityNames: [String] {
        query.options.includesSubentities ? entity.familyNames : [entity.name]
    }

    var watchedEntityNames: Set<String> { Set(memberEntityNames) }

    func didMerge(_ changeSet: ChangeSet) {
        // A merge that a read inside `load()` set off is older than the list being loaded.
        guard changeSet.generation > generation, !isLoading else { return }
        defer { generation = max(generation, changeSet.generation) }
        let mine = changeSet.changes(of: entity, includingSubentities: query.options.includesSubentities)
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

        // Every changed object that matches, as a member; the lists below
        // hold indices into it. Each row's old key is read and its new one
        // written in one step of the key map.
        var fresh: [ListMember] = []
        var incoming: [Int] = []                  // entering, or moving to a new position
        // Keys before the change, to find in the list: of what leaves
        // (deleted or no longer matching, owner -1) and of what stays
        // (owner: its index in `fresh`).
        var oldKeys: [ListKey] = []
        var owners: [Int] = []
        for rowID in changes.deleted {
            if let old = keysByRowID.removeValue(forKey: rowID) {
                oldKeys.append(old)
                owners.append(-1)
            }
        }
        // The rows as the main context's merge met them, with the objects it
        // holds: looked up once per merge, not once more per monitor. A
        // family's changes are several entities' together: looked up here.
        let merged = main.updatedRows[entity.name].flatMap { rows in
            rows.count == changes.updated.count && memberEntityNames.count == 1 ? rows : nil
        } ?? changes.updated.keys.map { (rowID: $0, object: nil) }
        for (rowID, held) in merged {
            let object = held ?? main.object(entity, rowID: rowID, values: changes.updated[rowID]!.values, generation: generation)
            if matches(object) {
                let member = member(object)
                if let old = keysByRowID.updateValue(member.key, forKey: rowID) {
                    oldKeys.append(old)
                    owners.append(fresh.count)
                } else {
                    incoming.append(fresh.count)
                }
                fresh.append(member)
            } else if let old = keysByRowID.removeValue(forKey: rowID) {
                oldKeys.append(old)
                owners.append(-1)
            }
        }
        for (rowID, values) in changes.inserted where keysByRowID[rowID] == nil {
            let object = main.object(entity, rowID: rowID, values: values, generation: generation)
            if matches(object) {
                let member = member(object)
                keysByRowID[rowID] = member.key
                incoming.append(fresh.count)
                fresh.append(member)
            }
        }
        guard !oldKeys.isEmpty || !fresh.isEmpty else { return }

        // Only observers of objects or sections need index paths and section
        // contents; the counts and the list itself are kept either way.
        let boxes = liveObservers
        let removalsBefore = observerRemovals
        let wantsObjects = boxes.contains { $0.didInsertObject != nil }
        let wantsSections = boxes.contains { $0.didDeleteSection != nil }

        // Old positions, found in list order in one walk, and index paths
        // against the list as it was.
        let oldSections = sectionRuns
        let (byOldKey, oldPositions) = members.locate(oldKeys)
        var oldCursor = SectionCursor(oldSections)
        // Each list comes out in ascending order of old position.
        var deletedObjects: [(ManagedObject, IndexPath)] = []
        var updatedObjects: [(ManagedObject, IndexPath)] = []
        var removals: [Int] = []                   // of what leaves or moves
        var movedFrom = [IndexPath?](repeating: nil, count: wantsObjects ? fresh.count : 0)
        for (rank, keyIndex) in byOldKey.enumerated() {
            let owner = owners[keyIndex]
            guard let position = oldPositions[rank] else {
                // Not in the list, against the key map: the member stays as it was.
                if owner >= 0 { keysByRowID[oldKeys[keyIndex].rowID] = oldKeys[keyIndex] }
                continue
            }
            let (section, item) = oldCursor.locate(position)
            // The section key leads the keys, so equal keys mean the same
            // section value; its name may still differ (say for 0.0 and -0.0).
            if owner >= 0, oldKeys[keyIndex].sortsWith(fresh[owner].key),
               oldSections[section].name == fresh[owner].section {
                if wantsObjects { updatedObjects.append((fresh[owner].object, IndexPath(item: item, section: section))) }
                continue
            }
            // What leaves or moves comes out of its section now (the index
            // paths read the copy of the sections).
            removals.append(position)
            sectionRuns[section].count -= 1
            if owner >= 0 {
                incoming.append(owner)
                if wantsObjects { movedFrom[owner] = IndexPath(item: item, section: section) }
            } else if wantsObjects {
                deletedObjects.append((members[position].object, IndexPath(item: item, section: section)))
            }
        }

        // Sections left empty, by index in the old list (nothing has moved yet).
        var deletedSections: [Int] = []
        // An unsectioned list keeps its one section, even empty.
        for index in sectionRuns.indices where sectionRuns[index].count == 0 && sectionBy != nil {
            deletedSections.append(index)
        }
        // What each deleted section held, read before the members change.
        let deletedSectionInfos = wantsSections
            ? deletedSections.reversed().map { (sectionInfo(at: $0, of: oldSections, in: members), $0) }
            : []
        for index in deletedSections.reversed() { sectionRuns.remove(at: index) }
        // With names not monotone in the section key, an emptied section can
        // leave two of the same name side by side, which a fetch makes one.
        let joinsSections = sectionRuns.indices.dropFirst().contains { sectionRuns[$0 - 1].name == sectionRuns[$0].name }
        // Remove what leaves or moves, then insert what enters or moves, each
        // as one batch: a chunk of the list is rewritten once however many
        // of its members change.
        members.remove(ascending: removals)

        // Final positions: where each would go among the remaining members
        // (found in one walk, in list order), plus the incoming members
        // that sort before it.
        let (placed, placedKeys, placedNames) = ListOrdering.sorted(incoming, of: fresh)
        var positions = members.insertionPoints(ofAscending: placedKeys)
        for index in positions.indices { positions[index] += index }
        let (placedSections, splitsASection) = placeInSections(positions, names: placedNames)
        members.insert(ListOrdering.entries(at: positions, of: placed, in: fresh))
        if splitsASection || joinsSections {
            // A SectionBy whose names are not monotone in its key split or
            // joined sections: they are rebuilt and observers told so as a refetch.
            rebuildSections(names: members.map { sectionName(of: $0.object) })
            announceRefetch(to: boxes, since: removalsBefore, changed: Set(fresh.map(\.key.rowID)))
            return
        }
        let refilled = ListSection.keepingRefilled(
            deleted: deletedSections, of: oldSections, inserted: placedSections.sorted(), of: sectionRuns)
        let deletedForGood = Set(refilled.deleted)

        // New index paths, against the list as it is now: `positions` is
        // ascending, as observers get inserts.
        var insertedObjects: [(ManagedObject, IndexPath)] = []
        var movedObjects: [(ManagedObject, IndexPath, IndexPath)] = []
        if wantsObjects {
            var newCursor = SectionCursor(sectionRuns)
            for (position, index) in zip(positions, placed) {
                let (section, item) = newCursor.locate(position)
                let path = IndexPath(item: item, section: section)
                if let from = movedFrom[index] {
                    movedObjects.append((fresh[index].object, from, path))
                } else {
                    insertedObjects.append((fresh[index].object, path))
                }
            }
        }
        notify(
            boxes, since: removalsBefore, deleted: deletedObjects.reversed(),
            inserted: insertedObjects, moved: movedObjects, updated: updatedObjects,
            deletedSections: deletedSectionInfos.filter { deletedForGood.contains($0.1) },
            insertedSections: refilled.inserted)
    }

    /// Counts each placed member into the section it joins (the one before
    /// or after it when the name matches), or a new section between them.
    ///
    /// `positions` (final, of members named `names`) ascend, so one cursor walks the
    /// sections once, and a new section's index is final when it is made
    /// (later ones come after it). Returns the new sections' indices, and whether a
    /// member would split a section (a SectionBy whose names are not
    /// monotone in its key), which needs the sections rebuilt.
    private func placeInSections(_ positions: [Int], names: [String]) -> (inserted: [Int], split: Bool) {
        guard sectionBy != nil else {
            sectionRuns[0].count += positions.count
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
        for (position, name) in zip(positions, names) {
            let before = position > 0 ? section(containing: position - 1) : nil
            let after = position < total ? section(containing: position) : nil
            if let before, sectionRuns[before.section].name == name {
                sectionRuns[before.section].count += 1
                cursor = before
            } else if let after, sectionRuns[after.section].name == name {
                sectionRuns[after.section].count += 1
                cursor = after
            } else if let before, let after, before.section == after.section {
                return (inserted, true)
            } else {
                let index = after?.section ?? sectionRuns.count
                sectionRuns.insert(ListSection(name: name, count: 1), at: index)
                inserted.append(index)
                cursor = (index, position)
            }
            total += 1
        }
        return (inserted, false)
    }

    /// Tells `boxes` (less those removed since ``observerRemovals`` was
    /// `removals`) that the list was rebuilt, as a refetch, the rows in
    /// `changed` inserted or updated: once every monitor has taken the
    /// change set, and not if a refetch replaced the list meanwhile.
    private func announceRefetch(
        to boxes: [ListObserverBox<Object>], since removals: Int, changed: Set<Int64>
    ) {
        let loads = loadCount
        main.observation.deliver { [weak self] in
            guard let self, loadCount == loads else { return }
            rowsChangedByRebuild = changed
            defer { rowsChangedByRebuild = [] }
            for box in boxes where isObserving(box, removals: removals) { box.willRefetch(self) }
            for box in boxes where isObserving(box, removals: removals) { box.didRefetch(self) }
        }
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
    ///
    /// During a merge the calls wait until every monitor has taken the
    /// change set (``ObservationCenter/deliver(_:)``); an observer removed
    /// meanwhile (since ``observerRemovals`` was `removals`) is not called.
    private func notify(
        _ boxes: [ListObserverBox<Object>], since removals: Int,
        deleted: [(ManagedObject, IndexPath)], inserted: [(ManagedObject, IndexPath)],
        moved: [(ManagedObject, IndexPath, IndexPath)], updated: [(ManagedObject, IndexPath)],
        deletedSections: [(ListSectionInfo<Object>, Int)], insertedSections: [Int]
    ) {
        guard !boxes.isEmpty else { return }
        let loads = loadCount
        main.observation.deliver { [weak self] in
            guard let self, loadCount == loads else { return }
            call(
                boxes, since: removals, deleted: deleted, inserted: inserted, moved: moved,
                updated: updated, deletedSections: deletedSections,
                insertedSections: insertedSections)
        }
    }

    private func call(
        _ boxes: [ListObserverBox<Object>], since removals: Int,
        deleted: [(ManagedObject, IndexPath)], inserted: [(ManagedObject, IndexPath)],
        moved: [(ManagedObject, IndexPath, IndexPath)], updated: [(ManagedObject, IndexPath)],
        deletedSections: [(ListSectionInfo<Object>, Int)], insertedSections: [Int]
    ) {
        #if DEBUG || STRATA_CHECKED
        checkInvariant(
            zip(deleted, deleted.dropFirst()).allSatisfy { $0.1 > $1.1 }
                && zip(inserted, inserted.dropFirst()).allSatisfy { $0.1 < $1.1 }
                && zip(updated, updated.dropFirst()).allSatisfy { $0.1 < $1.1 }
                && zip(deletedSections, deletedSections.dropFirst()).allSatisfy { $0.1 > $1.1 }
                && zip(insertedSections, insertedSections.dropFirst()).allSatisfy { $0 < $1 },
            "a list monitor's changes are out of order")
        #endif
        // An observer that a callback removes gets nothing more of the batch.
        func observing(_ box: ListObserverBox<Object>) -> Bool { isObserving(box, removals: removals) }
        for box in boxes where observing(box) { box.willChange(self) }
        for box in boxes {
            for (object, path) in deleted where observing(box) { box.didDeleteObject?(self, typed(object), path) }
            for (info, index) in deletedSections where observing(box) { box.didDeleteSection?(self, info, index) }
            for index in insertedSections where observing(box) {
                box.didInsertSection?(self, sectionInfo(at: index), index)
            }
            for (object, path) in inserted where observing(box) { box.didInsertObject?(self, typed(object), path) }
            for (object, from, to) in moved where observing(box) { box.didMoveObject?(self, typed(object), from, to) }
            for (object, path) in updated where observing(box) { box.didUpdateObject?(self, typed(object), path) }
        }
        for box in boxes where observing(box) { box.didChange(self) }
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
        let oldKeys = keysByRowID
        do {
            try load()
        } catch {
            StrataLog.warning(.observation, "A ListMonitor of \(entity.name) could not re-fetch: \(error)")
            return
        }
        // An updated member whose sort or section key changed is a move, as
        // in memory, wherever it lands; the diff keeps the others in place.
        let moved = updated.filter { rowID in
            guard let old = oldKeys[rowID], let new = keysByRowID[rowID] else { return false }
            return !old.sortsWith(new)
        }
        let newList = sectionedRowIDs()
        if oldList.regroupsRepeatedNames(into: newList, updated: updated) {
            // Sections of one name split or joined: a refetch, as in memory.
            let entered = newList.sections.lazy.flatMap(\.items).filter { oldKeys[$0] == nil }
            announceRefetch(to: liveObservers, since: observerRemovals, changed: updated.union(entered))
            return
        }
        emit(ListDiff.changes(from: oldList, to: newList, updated: updated, moved: moved),
             oldMembers: oldMembers, oldSections: oldSections)
    }

    private func emit(_ changes: ListChanges, oldMembers: ListMembers, oldSections: [ListSection]) {
        guard !changes.isEmpty else { return }
        func oldObject(at path: IndexPath) -> ManagedObject {
            oldMembers[Self.position(of: path, in: oldSections)].object
        }
        // The changes' lists are ascending.
        notify(
            liveObservers, since: observerRemovals,
            deleted: changes.deletes.reversed().map { (oldObject(at: $0), $0) },
            inserted: changes.inserts.map { (self[$0] as ManagedObject, $0) },
            moved: changes.moves.map { (self[$0.to] as ManagedObject, $0.from, $0.to) },
            updated: changes.updates.map { (oldObject(at: $0), $0) },
            deletedSections: changes.deletedSections.reversed().map {
                (sectionInfo(at: $0, of: oldSections, in: oldMembers), $0)
            },
            insertedSections: changes.insertedSections)
    }
}
