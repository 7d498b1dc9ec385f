/// Loading the list and ordering its members.
extension ListMonitor {
    /// The order the monitor keeps: the section key first when sectioned,
    /// then the query's keys (the row ID breaks ties).
    var orderForFetch: OrderBy<Object> {
        var keys = query.order?.keys ?? []
        if let sectionBy {
            // An invalid sectioning makes the fetch throw, as an invalid key would.
            keys.insert(
                OrderBy<Object>.SortKey(
                    path: sectionBy.path, isAscending: true, options: [], nulls: .automatic,
                    problem: sectionBy.problem),
                at: 0)
        }
        return OrderBy(keys)
    }

    /// Fetches the list from the store and rebuilds every index.
    func load() throws {
        namesBySectionKey = SectionNameCache()
        let fetchQuery = query.ordered(by: orderForFetch)
        isLoading = true
        defer { isLoading = false }
        loadCount &+= 1
        var objects = try main.context.fetchAll(fetchQuery)
        // A read that saw a new snapshot merges up to it before it returns,
        // and a read made during that merge may see a newer one still, which
        // the merge goes on to: change sets this list, being loaded, never
        // got. Its rows are then older than the main context: read again.
        while main.context.lastReadGeneration < main.generation {
            objects = try main.context.fetchAll(fetchQuery)
        }
        // Rows read at least as new as the main context, and objects as it
        // holds them: the change sets up to the read come to the list too,
        // and merge as no change where the read already showed them.
        generation = main.generation
        let schema = main.context.schema
        entitiesRead = orderForFetch.keys.reduce(into: query.predicate.map { schema.entitiesRead(by: $0.predicate, from: entity) } ?? []) {
            $0.formUnion(schema.entitiesRead(by: $1.path, from: entity))
        }
        specs = orderForFetch.keys.map {
            ListSortKey(
                path: $0.path, ascending: $0.isAscending, options: $0.options, nullsFirst: $0.nullsFirst,
                slot: $0.path.relationships.isEmpty ? $0.path.field.flatMap(entity.slot(of:)) : nil)
        }
        // In the order of the keys the monitor keeps, not the SQL's, which
        // may differ: a path through a relationship orders by the related
        // row in the read's snapshot, the key by the object the main context
        // holds, and a read made while a merge is notifying sees a newer
        // snapshot than its objects show. Out of key order, the list's
        // searches miss members (a deletion is lost) and its invariant
        // check traps. Mostly they agree: one pass finds it, and nothing is copied.
        var loaded = objects.map(member)
        if zip(loaded, loaded.dropFirst()).contains(where: { $1.key < $0.key }) {
            loaded.sort { $0.key < $1.key }
        }
        members = ListMembers(loaded.map { ListEntry(object: $0.object, key: $0.key) }, chunkCapacity: members.chunkCapacity)
        keysByRowID = ListKeyMap(loaded.map(\.key))
        rebuildSections(names: loaded.map(\.section))
    }

    /// The object as a member: its key and its section name, each value read once.
    func member(_ object: ManagedObject) -> ListMember {
        var writer = ListKey.Writer()
        var section = ""
        // By index, not `enumerated()`, which copies each key spec; the
        // encoding reads the spec's plain rule, not the spec.
        let specs = specs
        for index in specs.indices {
            let value: StoredValue
            if let slot = specs[index].slot {
                value = object.value(at: slot)
            } else {
                value = MemoryEvaluator(graph: main.context).value(specs[index].path, of: object)
            }
            // When sectioned, the section key leads the keys.
            if index == 0, namesSection != nil { section = sectionName(ofValue: value) }
            let rule = specs[index].rule
            writer.append(rule.isDecimal ? DecimalOrdering.sortValue(value) : value, rule)
        }
        return ListMember(object: object, key: ListKey(writer, rowID: object.rowID), section: section)
    }

    /// The name of the section for a section-key value (remembered; see
    /// ``SectionNameCache``), or `""` for a list without sections.
    func sectionName(ofValue value: StoredValue) -> String {
        guard let namesSection else { return "" }
        return namesBySectionKey.name(of: value, naming: namesSection)
    }

    /// Rebuilds the sections from each member's section name, in list order.
    /// An unsectioned list always has exactly one section, empty or not, as
    /// in NSFetchedResultsController and CoreStore.
    func rebuildSections(names: [String]) {
        guard sectionBy != nil else {
            sectionRuns = [ListSection(name: "", count: names.count)]
            return
        }
        sectionRuns = []
        for name in names {
            if let last = sectionRuns.last, last.name == name {
                sectionRuns[sectionRuns.count - 1].count += 1
            } else {
                sectionRuns.append(ListSection(name: name, count: 1))
            }
        }
    }

    /// The section name of an object, as the SectionBy computes it.
    func sectionName(of object: ManagedObject) -> String {
        guard let sectionBy else { return "" }
        return sectionName(ofValue: MemoryEvaluator(graph: main.context).value(sectionBy.path, of: object))
    }
}
