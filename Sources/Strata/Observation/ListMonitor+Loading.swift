/// Loading the list and ordering its members.
extension ListMonitor {
    /// The order the monitor keeps: the section key first when sectioned,
    /// then the query's keys (the row ID breaks ties).
    var orderForFetch: OrderBy<Object> {
        var keys = query.order?.keys ?? []
        if let sectionBy {
            keys.insert(OrderBy<Object>.SortKey(path: sectionBy.path, isAscending: true, options: [], nulls: .automatic), at: 0)
        }
        return OrderBy(keys)
    }

    /// Fetches the list from the store and rebuilds every index.
    func load() throws {
        let fetchQuery = query.orderBy(orderForFetch)
        let objects = try main.context.fetchAll(fetchQuery)
        generation = max(main.context.lastReadGeneration, main.generation)
        let schema = main.context.schema
        entitiesRead = orderForFetch.keys.reduce(into: query.predicate.map { schema.entitiesRead(by: $0.predicate, from: entity) } ?? []) {
            $0.formUnion(schema.entitiesRead(by: $1.path, from: entity))
        }
        specs = orderForFetch.keys.map {
            ListSortKey(path: $0.path, ascending: $0.isAscending, options: $0.options, nullsFirst: $0.nullsFirst)
        }
        let loaded = objects.map(member)
        members = ContiguousArray(loaded.map { ListEntry(object: $0.object, keys: $0.keys) })
        keysByRowID = Dictionary(uniqueKeysWithValues: loaded.map { ($0.object.rowID, $0.keys) })
        rebuildSections(names: loaded.map(\.section))
    }

    func member(_ object: ManagedObject) -> ListMember {
        let evaluator = MemoryEvaluator(context: main.context)
        let keys = specs.map { spec -> StoredValue in
            let value = evaluator.value(spec.path, of: object)
            if !spec.options.isEmpty, case .text(let text) = value {
                return .text(TextMatching.fold(text, spec.options))
            }
            return value
        }
        let section = sectionBy.map { $0.name(evaluator.value($0.path, of: object)) } ?? ""
        return ListMember(object: object, keys: keys, section: section)
    }

    /// Rebuilds the sections from each member's section name, in list order.
    func rebuildSections(names: [String]) {
        sections = []
        for name in names {
            if let last = sections.last, last.name == name {
                sections[sections.count - 1].count += 1
            } else {
                sections.append(ListSection(id: nextSectionID, name: name, count: 1))
                nextSectionID += 1
            }
        }
    }

    /// The section name of an object, as the SectionBy computes it.
    func sectionName(of object: ManagedObject) -> String {
        guard let sectionBy else { return "" }
        return sectionBy.name(MemoryEvaluator(context: main.context).value(sectionBy.path, of: object))
    }

    /// Whether a member with `keys` and `rowID` sorts before the one with `otherKeys`, `otherRowID`.
    func precedes(_ keys: [StoredValue], _ rowID: Int64, _ otherKeys: [StoredValue], _ otherRowID: Int64) -> Bool {
        for (index, spec) in specs.enumerated() {
            let left = keys[index], right = otherKeys[index]
            if left.isNull != right.isNull { return left.isNull == spec.nullsFirst }
            let order = StoredValue.sqliteOrder(left, right)
            if order != .orderedSame { return (order == .orderedAscending) == spec.ascending }
        }
        return rowID < otherRowID
    }

    /// The position where a member with these keys is, or would be inserted.
    func insertionPoint(keys: [StoredValue], rowID: Int64) -> Int {
        // Through buffer pointers: comparing in place, without retaining each
        // member's key array, is most of the cost of a binary search here.
        members.withUnsafeBufferPointer { entries in
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(entries[middle].keys, entries[middle].rowID, keys, rowID) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            return low
        }
    }

    /// The position of the member with `rowID`, found by its keys.
    func find(rowID: Int64, keys: [StoredValue]) -> Int? {
        let position = insertionPoint(keys: keys, rowID: rowID)
        guard position < members.count, members[position].rowID == rowID else { return nil }
        return position
    }
}
