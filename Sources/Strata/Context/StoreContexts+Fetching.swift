/// Fetches and queries over the stores a query names.
///
/// A query that reads one store runs there as it is. One that reads several
/// runs in each (its limit widened by its offset, which only the merged list
/// can apply), and the rows merge as one fetch would order them: by the
/// query's sort keys, each object's evaluated in its own store, then in
/// store order; without an order, store after store.
extension StoreContexts {
    func fetchAll<Object: ManagedObject>(_ query: From<Object>) throws -> [Object] {
        let contexts = try holding(Object.self, in: query.configurations)
        if contexts.count == 1 { return try contexts[0].fetchAll(query) }
        if query.order != nil, contexts[0].readsCommitted(query) {
            // Paged after the objects the transaction deleted are left out,
            // as in one store (`ObjectContext.committedMatches`).
            let unpaged = query.tweak {
                $0.fetchLimit = nil
                $0.fetchOffset = 0
            }
            let alive = try committedMerge(query, perStore: unpaged, contexts).compactMap(\.object)
            return uncheckedDowncast(page(alive, query.options), to: [Object].self)
        }
        let perStore = widened(query)
        return merged(try contexts.map { try $0.fetchAll(perStore) }, query)
    }

    func fetchOne<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        // One store holding the entity (`holding`'s first case), found
        // without an array of contexts, and its entity looked up once.
        if all.count == 1, query.configurations == nil,
           let entity = all[0].schema.entity(for: Object.self)
        {
            return try all[0].fetchOne(query, entity: entity)
        }
        let contexts = try holding(Object.self, in: query.configurations)
        if contexts.count == 1 { return try contexts[0].fetchOne(query) }
        return try fetchAll(query.tweak { $0.fetchLimit = 1 }).first
    }

    func fetchObjectIDs<Object: ManagedObject>(_ query: From<Object>) throws -> [ObjectID<Object>] {
        let contexts = try holding(Object.self, in: query.configurations)
        if contexts.count == 1 { return try contexts[0].fetchObjectIDs(query) }
        // Objects from several stores sort by their values: read them.
        guard query.order == nil else {
            if contexts[0].readsCommitted(query) {
                // The store's IDs, those the transaction deleted included.
                let merged = try committedMerge(query, perStore: widened(query), contexts)
                return page(merged.map(\.id), query.options)
            }
            return try fetchAll(query).map(\.objectID)
        }
        let perStore = widened(query)
        return page(try contexts.flatMap { try $0.fetchObjectIDs(perStore) }, query.options)
    }

    func fetchCount<Object: ManagedObject>(_ query: From<Object>) throws -> Int {
        let contexts = try holding(Object.self, in: query.configurations)
        if contexts.count == 1 { return try contexts[0].fetchCount(query) }
        // A negative offset is none, as in SQL (`OFFSET` is bound as at least 0).
        let offset = max(query.options.fetchOffset, 0)
        let limit = query.options.effectiveLimit
        // With a limit, matches past offset + limit change nothing: each store
        // counts at most those still needed, and the stores after the one
        // that fills them are not read. Saturating, as `widened` is.
        let needed = limit.map { $0 > Int.max - offset ? Int.max : $0 + offset }
        var total = 0
        for context in contexts {
            if let needed, total >= needed { break }
            let rest = needed.map { $0 - total }
            total += try context.fetchCount(query.tweak {
                $0.fetchLimit = rest
                $0.fetchOffset = 0
            })
        }
        let remaining = max(0, total - offset)
        return limit.map { min($0, remaining) } ?? remaining
    }

    /// Whether more objects match than the offset skips: a count limited to
    /// one, which reads no store past the first match that counts.
    func fetchExists<Object: ManagedObject>(_ query: From<Object>) throws -> Bool {
        let contexts = try holding(Object.self, in: query.configurations)
        if contexts.count == 1 { return try contexts[0].fetchExists(query) }
        return try fetchCount(query.tweak { $0.fetchLimit = 1 }) > 0
    }

    func fetchUnique<Object: ManagedObject>(_ query: From<Object>) throws -> Object? {
        // Two rows tell one match from several, within the query's own limit:
        // a limit of 1 makes a match unique. One fetch, in one store or merged
        // over several, so a transaction's read of the committed store too.
        let two = try fetchAll(query.tweak { $0.fetchLimit = min(2, $0.effectiveLimit ?? 2) })
        return two.count == 1 ? two[0] : nil
    }

    /// The context's own object for `id` in the store `id` names, or `nil`
    /// when it no longer exists (or the stack has no such store).
    func fetchExisting<Object: ManagedObject>(_ id: ObjectID<Object>) throws -> Object? {
        guard let context = context(ofConfiguration: id.configuration),
              context.schema.entity(reading: id) != nil
        else { return nil }
        return try context.fetchExisting(id)
    }

    /// The objects of `ids` that still exist, in the same order, each read in
    /// its own store (one query per store).
    func fetchExisting<Object: ManagedObject>(_ ids: some Sequence<ObjectID<Object>>) throws -> [Object] {
        if all.count == 1 {
            let context = all[0]
            let mine: [ObjectID<Object>] = ids.filter { $0.configuration == context.schema.configuration }
            return try context.fetchExisting(mine)
        }
        let ids = Array(ids)
        var found: [String?: [ObjectID<Object>: Object]] = [:]
        for configuration in Set(ids.map(\.configuration)) {
            guard let context = context(ofConfiguration: configuration),
                  context.schema.entity(for: Object.self) != nil
            else { continue }
            let mine: [ObjectID<Object>] = ids.filter { $0.configuration == configuration }
            let objects: [Object] = try context.fetchExisting(mine)
            found[configuration] = Dictionary(objects.map { ($0.objectID, $0) }, uniquingKeysWith: { a, _ in a })
        }
        return ids.compactMap { found[$0.configuration]?[$0] }
    }

    /// The context's own instances of `objects`, from any context, that
    /// still exist, in the same order, each read in its own store.
    func fetchExisting<Object: ManagedObject>(_ objects: some Sequence<Object>) throws -> [Object] {
        // Each object's store among these, found once: an object of another
        // store (another stack's file, another configuration) is none of
        // this one's, whatever its row ID names here.
        let homes = objects.map { (object: $0, context: context(of: $0)) }
        if all.count == 1 {
            return try all[0].fetchExisting(homes.compactMap { $0.context == nil ? nil : $0.object })
        }
        var found: [AnyObjectID: Object] = [:]
        for context in all {
            let mine = homes.compactMap { $0.context === context ? $0.object : nil }
            for existing in try context.fetchExisting(mine) { found[existing.objectID.erased] = existing }
        }
        return homes.compactMap { $0.context == nil ? nil : found[$0.object.objectID.erased] }
    }

    func queryValue<Object: ManagedObject, Result: FieldStorable>(
        _ query: QueryChain<Object, Result>
    ) throws -> Result? {
        try oneHolding(Object.self, in: query.from.configurations, for: "a Select query runs in one store")
            .queryValue(query)
    }

    func queryAttributes<Object: ManagedObject, Result>(
        _ query: QueryChain<Object, Result>
    ) throws -> [[String: StoredValue]] {
        try oneHolding(Object.self, in: query.from.configurations, for: "a Select query runs in one store")
            .queryAttributes(query)
    }

    func queryObjectID<Object: ManagedObject>(
        _ query: QueryChain<Object, ObjectID<Object>>
    ) throws -> ObjectID<Object>? {
        try oneHolding(Object.self, in: query.from.configurations, for: "a Select query runs in one store")
            .queryObjectID(query)
    }

    /// Each store a bulk write over `query` changes, with the query that
    /// selects there exactly the objects ``fetchAll(_:)`` returns from it:
    /// the query itself, or, when it reads several stores and pages them (a
    /// limit or an offset counts the merged list, not each store's), the
    /// objects of the merged page in that store, by row ID, in the query's order.
    func bulkTargets<Object: ManagedObject>(
        _ query: From<Object>
    ) throws -> [(context: ObjectContext, query: From<Object>)] {
        let contexts = try holding(Object.self, in: query.configurations)
        let options = query.options
        guard contexts.count > 1, options.effectiveLimit != nil || options.fetchOffset > 0 else {
            return contexts.map { ($0, query) }
        }
        let page = try fetchObjectIDs(query)
        return contexts.compactMap { context in
            let rowIDs = page.filter { $0.configuration == context.schema.configuration }
                .map { StoredValue.integer($0.rowID) }
            guard !rowIDs.isEmpty else { return nil }
            let exact = From<Object>().where(Where(.isIn(ValuePath(field: nil), StoredValueSet(rowIDs))))
            return (context, query.order.map { exact.ordered(by: $0) } ?? exact)
        }
    }

    // MARK: Merging

    /// The query each store runs: no offset, and a limit that leaves room for it.
    private func widened<Object>(_ query: From<Object>) -> From<Object> {
        query.tweak { tweak in
            // Saturating: a limit of `Int.max` stays one. A negative offset is none.
            let offset = max(tweak.fetchOffset, 0)
            tweak.fetchLimit = tweak.effectiveLimit.map { $0 > Int.max - offset ? Int.max : $0 + offset }
            tweak.fetchOffset = 0
        }
    }

    /// The stores' rows as one fetch: ordered by the query's keys (stable,
    /// so ties keep store order), then paged.
    private func merged<Object: ManagedObject>(_ perStore: [[Object]], _ query: From<Object>) -> [Object] {
        var rows = perStore.joined().map { ($0, [StoredValue]()) }
        if let order = query.order {
            let keys = order.sortKeySpecs
            for index in rows.indices {
                let object = rows[index].0
                rows[index].1 = MemoryEvaluator(graph: object.context!).sortValues(keys, of: object)
            }
            // Ties keep store order, then each store's own order (row IDs).
            rows = rows.enumerated().sorted { a, b in
                let result = SortKeySpec.order(keys, a.element.1, b.element.1)
                return result == .orderedSame ? a.offset < b.offset : result == .orderedAscending
            }.map(\.element)
        }
        return page(rows.map(\.0), query.options)
    }

    /// A transaction's ordered read of several stores as committed
    /// (``Tweak/includesPendingChanges`` `false`): each store's committed
    /// matches for `perStore`, merged by the values they had when the
    /// transaction began, since its objects hold its pending values, which
    /// may sort them elsewhere. Each match comes with the transaction's own
    /// object, `nil` for one it deleted. Unpaged.
    private func committedMerge<Object: ManagedObject>(
        _ query: From<Object>, perStore: From<Object>, _ contexts: [ObjectContext]
    ) throws -> [(id: ObjectID<Object>, object: ManagedObject?)] {
        let keys = query.order?.sortKeySpecs ?? []
        var rows: [(id: ObjectID<Object>, object: ManagedObject?, values: [StoredValue])] = []
        for context in contexts {
            let ids = try context.fetchObjectIDs(perStore)
            let entity = context.entity(Object.self)
            let references = ids.map { id in
                ObjectContext.RowReference(
                    entity: context.schema.entity(reading: id) ?? entity, rowID: id.rowID)
            }
            let evaluator = MemoryEvaluator(graph: CommittedValues(context: context))
            let objects = try context.existingObjects(references)
            for (reference, (id, object)) in zip(references, zip(ids, objects)) {
                // One the transaction deleted is still held, with its values.
                let held = object ?? context.registered(reference.entity, reference.rowID)
                let values = held.map { evaluator.sortValues(keys, of: $0) } ?? keys.map { _ in .null }
                rows.append((id, object, values))
            }
        }
        // Stable: ties keep store order, then each store's own (committed) order.
        return rows.enumerated().sorted { a, b in
            let result = SortKeySpec.order(keys, a.element.values, b.element.values)
            return result == .orderedSame ? a.offset < b.offset : result == .orderedAscending
        }.map { ($0.element.id, $0.element.object) }
    }

    private func page<Element>(_ rows: [Element], _ tweak: Tweak) -> [Element] {
        let start = min(max(tweak.fetchOffset, 0), rows.count)
        let end = tweak.effectiveLimit.map { start + min(rows.count - start, $0) } ?? rows.count
        return Array(rows[start..<end])
    }
}
