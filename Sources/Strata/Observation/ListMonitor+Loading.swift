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
        specs = orderForFetch.keys.map {
            SortSpec(path: $0.path, ascending: $0.isAscending, options: $0.options, nullsFirst: $0.nullsFirst)
        }
        members = objects.map(member)
        keysByRowID = Dictionary(uniqueKeysWithValues: members.map { ($0.object.rowID, $0.keys) })
        rebuildSections()
    }

    func member(_ object: Object) -> Member {
        let evaluator = MemoryEvaluator(context: main.context)
        let keys = specs.map { spec -> StoredValue in
            let value = evaluator.value(spec.path, of: object)
            if !spec.options.isEmpty, case .text(let text) = value {
                return .text(TextMatching.fold(text, spec.options))
            }
            return value
        }
        let section = sectionBy.map { $0.name(evaluator.value($0.path, of: object)) } ?? ""
        return Member(object: object, keys: keys, section: section)
    }

    func rebuildSections() {
        sections = []
        for member in members {
            if let last = sections.last, last.name == member.section {
                sections[sections.count - 1].count += 1
            } else {
                sections.append(Section(id: nextSectionID, name: member.section, count: 1))
                nextSectionID += 1
            }
        }
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
        var low = 0, high = members.count
        while low < high {
            let middle = (low + high) / 2
            let other = members[middle]
            if precedes(other.keys, other.object.rowID, keys, rowID) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The position of the member with `rowID`, found by its keys.
    func find(rowID: Int64, keys: [StoredValue]) -> Int? {
        let position = insertionPoint(keys: keys, rowID: rowID)
        guard position < members.count, members[position].object.rowID == rowID else { return nil }
        return position
    }
}
