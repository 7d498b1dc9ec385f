import Foundation

/// Following merged change sets: in memory when the monitor can decide,
/// otherwise by re-fetching and diffing.
extension ListMonitor {
    func didMerge(_ changeSet: ChangeSet) {
        guard changeSet.generation > generation else { return }
        defer { generation = max(generation, changeSet.generation) }
        let mine = changeSet.changes[entity.name]
        // The entities read through relationships (the monitored one too, for a
        // path back to it); raw SQL may read any table.
        let rawSQL = !(query.predicate?.isEvaluableInMemory ?? true)
        let othersChanged = rawSQL || changeSet.changes.keys.contains(where: entitiesRead.contains)
        let readsRelationships = rawSQL || !entitiesRead.isEmpty
        guard mine != nil || (readsRelationships && othersChanged) else { return }
        let changeCount = mine.map { $0.inserted.count + $0.updated.count + $0.deleted.count } ?? 0
        let mustRefetch = !(query.predicate?.isEvaluableInMemory ?? true)
            || (readsRelationships && othersChanged)
            || query.options.fetchLimit != nil || query.options.fetchOffset > 0
            || changeCount > max(32, members.count / 4)
        if mustRefetch {
            refetchAndDiff(updated: Set(mine?.updated.keys.map { $0 } ?? []))
        } else if let mine {
            update(with: mine, generation: changeSet.generation)
        }
    }

    // MARK: In memory, O(k log n)

    private func update(with changes: ChangeSet.EntityChanges, generation: UInt64) {
        let predicate = query.predicate
        let evaluator = MemoryEvaluator(context: main.context)
        func matches(_ object: ManagedObject) -> Bool {
            guard let predicate else { return true }
            return evaluator.evaluate(predicate.predicate, on: object) ?? false
        }

        var leaving: [(rowID: Int64, keys: [StoredValue])] = []   // deleted or no longer matching
        var moving: [Int64: ListMember] = [:]                         // still matching, sort or section key changed
        var entering: [ListMember] = []                               // newly matching
        var updatedInPlace: [Int64] = []
        for rowID in changes.deleted {
            if let keys = keysByRowID[rowID] { leaving.append((rowID, keys)) }
        }
        for (rowID, update) in changes.updated {
            let object = main.object(entity, rowID: rowID, values: update.values, generation: generation)
            let isMember = keysByRowID[rowID] != nil
            guard matches(object) else {
                if let keys = keysByRowID[rowID] { leaving.append((rowID, keys)) }
                continue
            }
            let fresh = member(object)
            if !isMember {
                entering.append(fresh)
            } else if let keys = keysByRowID[rowID], !sameKeys(keys, fresh.keys) {
                // The section key leads the keys, so equal keys mean the same section too.
                moving[rowID] = fresh
            } else {
                updatedInPlace.append(rowID)
            }
        }
        for (rowID, values) in changes.inserted where keysByRowID[rowID] == nil {
            let object = main.object(entity, rowID: rowID, values: values, generation: generation)
            if matches(object) { entering.append(member(object)) }
        }
        guard !leaving.isEmpty || !moving.isEmpty || !entering.isEmpty || !updatedInPlace.isEmpty else { return }

        // Old positions (one binary search each) and index paths, against the list as it was.
        var result = ListChanges()
        let oldSections = sections
        let oldStarts = sectionStarts(oldSections)
        func oldPosition(_ rowID: Int64) -> Int? {
            keysByRowID[rowID].flatMap { find(rowID: rowID, keys: $0) }
        }
        var deletedObjects: [(ManagedObject, IndexPath)] = []
        var removalPositions: [Int] = []
        for (rowID, _) in leaving {
            guard let position = oldPosition(rowID) else { continue }
            deletedObjects.append((members[position].object, Self.indexPath(ofPosition: position, starts: oldStarts)))
            removalPositions.append(position)
        }
        var movedFrom: [Int64: IndexPath] = [:]
        for rowID in moving.keys {
            guard let position = oldPosition(rowID) else { continue }
            movedFrom[rowID] = Self.indexPath(ofPosition: position, starts: oldStarts)
            removalPositions.append(position)
        }
        var updatedObjects: [(ManagedObject, IndexPath)] = []
        for rowID in updatedInPlace {
            guard let position = oldPosition(rowID) else { continue }
            updatedObjects.append((members[position].object, Self.indexPath(ofPosition: position, starts: oldStarts)))
        }

        // Remove what leaves or moves, then insert what enters or moves. The
        // sections follow one member at a time; the arrays move once per batch
        // when it is large (one O(n) pass instead of a memmove per member).
        var removedSectionIDs: [Int] = []
        removalPositions.sort(by: >)
        for position in removalPositions {
            let (sectionIndex, _) = sectionAndItem(ofPosition: position)
            sections[sectionIndex].count -= 1
            if sections[sectionIndex].count == 0 {
                removedSectionIDs.append(sections[sectionIndex].id)
                sections.remove(at: sectionIndex)
            }
            keysByRowID[members[position].rowID] = nil
        }
        var incoming = entering + Array(moving.values)
        let isLargeBatch = removalPositions.count + incoming.count > 8
        if isLargeBatch {
            compact(removingAscending: removalPositions.reversed())
        } else {
            for position in removalPositions {
                members.remove(at: position)
            }
        }
        incoming.sort { precedes($0.keys, $0.object.rowID, $1.keys, $1.object.rowID) }
        // Final positions: where each would go among the remaining members,
        // plus the incoming members that sort before it.
        let placed = incoming.enumerated().map { offset, member in
            (position: insertionPoint(keys: member.keys, rowID: member.object.rowID) + offset, member: member)
        }
        var insertedSectionIDs: [Int] = []
        var needsFullSectioning = false
        var total = members.count
        for (position, incoming) in placed {
            let before = position > 0 ? sections[sectionAndItem(ofPosition: position - 1).section].name : nil
            let after = position < total ? sections[sectionAndItem(ofPosition: position).section].name : nil
            if before == incoming.section {
                sections[sectionAndItem(ofPosition: position - 1).section].count += 1
            } else if after == incoming.section {
                sections[sectionAndItem(ofPosition: position).section].count += 1
            } else if before != nil, before == after {
                needsFullSectioning = true  // a non-monotone section name would split a section
            } else {
                let index = position < total ? sectionAndItem(ofPosition: position).section : sections.count
                sections.insert(ListSection(id: nextSectionID, name: incoming.section, count: 1), at: index)
                insertedSectionIDs.append(nextSectionID)
                nextSectionID += 1
            }
            total += 1
            keysByRowID[incoming.object.rowID] = incoming.keys
        }
        if isLargeBatch {
            merge(placed)
        } else {
            for (position, incoming) in placed {
                members.insert(ListEntry(object: incoming.object, keys: incoming.keys), at: position)
            }
        }
        if needsFullSectioning {
            // A SectionBy whose names are not monotone in its key split a
            // section: the sections are rebuilt and observers told so as a refetch.
            let boxes = liveObservers
            for box in boxes { box.willRefetch(self) }
            rebuildSections(names: members.map { sectionName(of: $0.object) })
            for box in boxes { box.didRefetch(self) }
            return
        }

        // New index paths, against the list as it is now.
        let oldSectionIndex = Dictionary(uniqueKeysWithValues: oldSections.enumerated().map { ($1.id, $0) })
        let newSectionIndex = Dictionary(uniqueKeysWithValues: sections.enumerated().map { ($1.id, $0) })
        result.deletedSections = removedSectionIDs.compactMap { oldSectionIndex[$0] }.sorted()
        result.insertedSections = insertedSectionIDs.compactMap { newSectionIndex[$0] }.sorted()
        // New index paths, from the final positions.
        let newStarts = sectionStarts(sections)
        var insertedObjects: [(ManagedObject, IndexPath)] = []
        var movedObjects: [(ManagedObject, IndexPath, IndexPath)] = []
        for (position, member) in placed {
            let path = Self.indexPath(ofPosition: position, starts: newStarts)
            if let from = movedFrom[member.object.rowID] {
                movedObjects.append((member.object, from, path))
            } else {
                insertedObjects.append((member.object, path))
            }
        }
        notify(
            deleted: deletedObjects, inserted: insertedObjects, moved: movedObjects, updated: updatedObjects,
            deletedSections: result.deletedSections.map { (oldSections[$0], $0) },
            insertedSections: result.insertedSections)
    }

    /// Where each section starts in the list.
    private func sectionStarts(_ sections: [ListSection]) -> [Int] {
        var starts: [Int] = []
        starts.reserveCapacity(sections.count)
        var start = 0
        for section in sections {
            starts.append(start)
            start += section.count
        }
        return starts
    }

    /// The index path of a position, by binary search over section starts.
    private static func indexPath(ofPosition position: Int, starts: [Int]) -> IndexPath {
        var low = 0, high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= position { low = middle + 1 } else { high = middle }
        }
        let section = max(low - 1, 0)
        return IndexPath(item: position - (starts.isEmpty ? 0 : starts[section]), section: section)
    }

    /// Removes the members at `positions` (ascending) in one pass, moving
    /// elements bitwise through buffer pointers (no retains).
    private func compact(removingAscending positions: [Int]) {
        let kept = members.withUnsafeMutableBufferPointer { entries in
            var write = 0
            var next = 0
            for read in 0..<entries.count {
                if next < positions.count, positions[next] == read {
                    next += 1
                    continue
                }
                if write != read { entries.swapAt(write, read) }
                write += 1
            }
            return write
        }
        members.removeLast(members.count - kept)
    }

    /// Inserts members at their final positions (ascending) in one pass from the end.
    private func merge(_ placed: [(position: Int, member: ListMember)]) {
        guard let first = placed.first else { return }
        let oldCount = members.count
        let filler = ListEntry(object: first.member.object, keys: [])
        members.append(contentsOf: repeatElement(filler, count: placed.count))
        members.withUnsafeMutableBufferPointer { entries in
            var read = oldCount - 1
            var write = entries.count - 1
            for (position, member) in placed.reversed() {
                while write > position {
                    entries.swapAt(write, read)
                    read -= 1
                    write -= 1
                }
                entries[write] = ListEntry(object: member.object, keys: member.keys)
                write -= 1
            }
        }
    }

    /// A member as the monitor's type; every member is an object of its entity.
    private func typed(_ object: ManagedObject) -> Object {
        unsafeDowncast(object, to: Object.self)
    }

    private func sameKeys(_ a: [StoredValue], _ b: [StoredValue]) -> Bool {
        zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
    }

    func sectionAndItem(ofPosition position: Int) -> (section: Int, item: Int) {
        let path = indexPath(ofPosition: position)
        return (path.section, path.item)
    }

    // MARK: Notifying

    private func notify(
        deleted: [(ManagedObject, IndexPath)], inserted: [(ManagedObject, IndexPath)],
        moved: [(ManagedObject, IndexPath, IndexPath)], updated: [(ManagedObject, IndexPath)],
        deletedSections: [(ListSection, Int)], insertedSections: [Int]
    ) {
        let boxes = liveObservers
        guard !boxes.isEmpty else { return }
        for box in boxes { box.willChange(self) }
        for box in boxes {
            for (object, path) in deleted.sorted(by: { $0.1 > $1.1 }) { box.didDeleteObject?(self, typed(object), path) }
            for (section, index) in deletedSections.sorted(by: { $0.1 > $1.1 }) {
                box.didDeleteSection?(self, ListSectionInfo(name: section.name, objects: []), index)
            }
            for index in insertedSections.sorted() { box.didInsertSection?(self, sectionInfo(at: index), index) }
            for (object, path) in inserted.sorted(by: { $0.1 < $1.1 }) { box.didInsertObject?(self, typed(object), path) }
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
        return SectionedList(sections: sections.map { section in
            let seen = occurrences[section.name, default: 0]
            occurrences[section.name] = seen + 1
            let items = members[start..<(start + section.count)].map(\.rowID)
            start += section.count
            // Names may repeat when a section name is not monotone in its key.
            let identifier = seen == 0 ? section.name : "\(section.name)\u{0}\(seen)"
            return SectionedList<Int64>.Section(identifier: identifier, items: items)
        })
    }

    private func refetchAndDiff(updated: Set<Int64>) {
        let oldList = sectionedRowIDs()
        let oldMembers = members
        let oldSections = sections
        do {
            try load()
        } catch {
            StrataLog.warning("A ListMonitor of \(entity.name) could not re-fetch: \(error)")
            return
        }
        emit(ListDiff.changes(from: oldList, to: sectionedRowIDs(), updated: updated),
             oldMembers: oldMembers, oldSections: oldSections)
    }

    private func emit(_ changes: ListChanges, oldMembers: ContiguousArray<ListEntry>, oldSections: [ListSection]) {
        guard !changes.isEmpty else { return }
        func oldObject(at path: IndexPath) -> ManagedObject {
            let start = oldSections[..<path.section].reduce(0) { $0 + $1.count }
            return oldMembers[start + path.item].object
        }
        notify(
            deleted: changes.deletes.map { (oldObject(at: $0), $0) },
            inserted: changes.inserts.map { (self[$0] as ManagedObject, $0) },
            moved: changes.moves.map { (self[$0.to] as ManagedObject, $0.from, $0.to) },
            updated: changes.updates.map { (oldObject(at: $0), $0) },
            deletedSections: changes.deletedSections.map { (oldSections[$0], $0) },
            insertedSections: changes.insertedSections)
    }
}
