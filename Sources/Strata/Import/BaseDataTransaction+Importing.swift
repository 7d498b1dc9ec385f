/// Creating and updating objects from source values (decoded JSON, network
/// payloads). See `Docs/Importing.md` for the rules these calls follow.
extension BaseDataTransaction {
    /// How many unique IDs one lookup query carries.
    @usableFromInline static let importBatchSize = 500

    /// Creates an object from `source`, or returns `nil` when
    /// ``ImportableObject/shouldInsert(from:in:)`` declines it.
    ///
    /// ```swift
    /// let person = try tx.importObject(Into<Person>(), source: json)
    /// ```
    ///
    /// - Throws: ``StrataError/userError(_:)`` wrapping the error
    ///   `prepareImport(for:in:)` or `didInsert(from:in:)` throws (a
    ///   ``StrataError`` comes out unchanged), as a transaction body's errors
    ///   come out of `perform`. The object stays created; throwing out of the
    ///   transaction rolls it back. ``StrataError/storeNotFound(entity:configuration:)``
    ///   when no store holds the entity in the configuration `into` names.
    public func importObject<Object: ImportableObject>(
        _ into: Into<Object>, source: Object.ImportSource
    ) throws(StrataError) -> Object? {
        try StrataError.catching {
            try withImportData(into.entityClass, for: [source]) {
                var checked = false
                return try insert(into, source: source, checked: &checked)
            }
        }
    }

    private func insert<Object: ImportableObject>(
        _ into: Into<Object>, source: Object.ImportSource, checked: inout Bool
    ) throws -> Object? {
        guard into.entityClass.shouldInsert(from: source, in: self) else { return nil }
        try checkCreationTarget(into, &checked)
        let object = create(into)
        try object.didInsert(from: source, in: self)
        return object
    }

    /// Fills in an existing object from `source` with `didInsert(from:in:)`,
    /// unless ``ImportableObject/shouldInsert(from:in:)`` declines it. An object
    /// of another context is edited through this transaction's instance; one
    /// that no longer exists, or is of another stack's store, is left alone.
    ///
    /// - Throws: ``StrataError/userError(_:)`` wrapping the error a hook throws,
    ///   as the other `importObject(_:source:)` does.
    public func importObject<Object: ImportableObject>(
        _ existing: Object, source: Object.ImportSource
    ) throws(StrataError) {
        try StrataError.catching {
            try withImportData(type(of: existing), for: [source]) {
                guard type(of: existing).shouldInsert(from: source, in: self),
                      let object = edit(existing)
                else { return }
                try object.didInsert(from: source, in: self)
            }
        }
    }

    /// Creates an object from each source that ``ImportableObject/shouldInsert(from:in:)``
    /// accepts, and returns them in the order of `sourceArray`.
    ///
    /// - Throws: ``StrataError/userError(_:)`` wrapping the first error a hook
    ///   throws (a ``StrataError`` comes out unchanged); the objects created
    ///   before it stay created. ``StrataError/storeNotFound(entity:configuration:)``
    ///   before the first object when no store holds the entity in the
    ///   configuration `into` names.
    public func importObjects<Object: ImportableObject, Sources: Sequence>(
        _ into: Into<Object>, sourceArray: Sources
    ) throws(StrataError) -> [Object] where Sources.Element == Object.ImportSource {
        let sources = Array(sourceArray)
        return try StrataError.catching {
            try withImportData(into.entityClass, for: sources) {
                var objects: [Object] = []
                objects.reserveCapacity(sources.count)
                var checked = false
                for source in sources {
                    if let object = try insert(into, source: source, checked: &checked) {
                        objects.append(object)
                    }
                }
                return objects
            }
        }
    }

    /// Updates the object whose unique ID matches `source`'s, or creates one;
    /// `nil` when the ID is `nil` or `shouldUpdate`/`shouldInsert` declines.
    /// Objects created earlier in this transaction are matched too.
    ///
    /// Runs one query (after flushing pending changes):
    ///
    /// ```sql
    /// SELECT ... FROM "Person" AS t0 WHERE t0."remoteID" IN (?)
    /// ```
    ///
    /// - Throws: ``StrataError/userError(_:)`` wrapping the error
    ///   `uniqueID(from:in:)`, `update(from:in:)` or `didInsert(from:in:)`
    ///   throws (a ``StrataError`` comes out unchanged); or a ``StrataError`` of the query,
    ///   or ``StrataError/storeNotFound(entity:configuration:)`` when the
    ///   object is new and no store holds the entity in the configuration `into` names.
    public func importUniqueObject<Object: ImportableUniqueObject>(
        _ into: Into<Object>, source: Object.ImportSource
    ) throws(StrataError) -> Object? {
        try importUniqueObjects(into, sourceArray: CollectionOfOne(source)).first
    }

    /// Updates or creates one object per unique ID in `sourceArray`, and
    /// returns them in input order.
    ///
    /// - Every source's ID is computed first; a thrown ID error leaves the
    ///   store untouched. Sources whose ID is `nil` are skipped (with an
    ///   optional ID field, an ID of `nil` too).
    /// - Among sources with the same ID, the last one is imported, at the
    ///   position of the first one. IDs are the same when their stored values
    ///   are, as the store's unique index compares them: text IDs (optional
    ///   or wrapped ones too) when their UTF-8 bytes are.
    /// - `preProcess` receives the sources by ID and returns the ones to
    ///   import; it may drop or replace them. IDs it adds that were not in
    ///   `sourceArray` are imported after the others, in no particular order
    ///   (an ID of `nil` it adds is skipped, as in `sourceArray`).
    ///   Without it (`nil`, the default) the sources are imported as
    ///   deduplicated, and no dictionary of them is built.
    /// - IDs are matched in batches of 500, one `IN (...)` query per batch,
    ///   so index the ID field (`.unique` or `.indexed`).
    ///
    /// ```swift
    /// let people = try JSONDecoder().decode([PersonJSON].self, from: data)
    /// let imported = try tx.importUniqueObjects(Into<Person>(), sourceArray: people)
    /// ```
    ///
    /// - Throws: ``StrataError/userError(_:)`` wrapping the error
    ///   `uniqueID(from:in:)`, `preProcess`, `update(from:in:)` or
    ///   `didInsert(from:in:)` throws (a ``StrataError`` comes out unchanged);
    ///   or a ``StrataError`` of a query; or, before the first new object,
    ///   ``StrataError/storeNotFound(entity:configuration:)`` when no store
    ///   holds the entity in the configuration `into` names (an import that
    ///   only updates needs none).
    @inlinable
    public func importUniqueObjects<Object: ImportableUniqueObject, Sources: Sequence>(
        _ into: Into<Object>, sourceArray: Sources,
        preProcess: ((
            _ mapping: [Object.UniqueIDType: Object.ImportSource]
        ) throws -> [Object.UniqueIDType: Object.ImportSource])? = nil
    ) throws(StrataError) -> [Object] where Sources.Element == Object.ImportSource {
        try StrataError.catching { try runUniqueImport(into, sourceArray, preProcess) }
    }

    /// The work of ``importUniqueObjects(_:sourceArray:preProcess:)``; its
    /// errors are wrapped there.
    @inlinable
    func runUniqueImport<Object: ImportableUniqueObject, Sources: Sequence>(
        _ into: Into<Object>, _ sourceArray: Sources,
        _ preProcess: (
            ([Object.UniqueIDType: Object.ImportSource]) throws -> [Object.UniqueIDType: Object.ImportSource]
        )?
    ) throws -> [Object] where Sources.Element == Object.ImportSource {
        // Each ID once, at its first position, with the index of its last
        // source: one hash of each ID, into a table of positions dropped
        // before the import's work. Sources are not copied unless an ID
        // repeats or is nil (an array passed in is shared, not copied).
        var sources = Array(sourceArray)
        // With an optional ID field the ID type is optional too, and a source
        // without an ID gives an ID of `nil` (`source["id"] as? Int` returns
        // one as `Int??`): no ID, skipped as `nil` is. It would match no row
        // (NULL equals nothing) and insert an object without an ID each time.
        let idMayBeNull = Object.UniqueIDType.self is any ExpressibleByNilLiteral.Type
        var pending = try Self.uniqueIDs(of: sources) { source -> Object.UniqueIDType? in
            guard let id = try into.entityClass.uniqueID(from: source, in: self) else { return nil }
            if idMayBeNull, (try? id.storedValue())?.isNull == true { return nil }
            return id
        }
        if let preProcess {
            var processed = try Self.preProcessed(
                pending.map { ($0.id, sources[$0.index]) }, by: preProcess)
            // An ID of `nil` preProcess adds is skipped too (Rule 1).
            if idMayBeNull { processed.removeAll { (try? $0.id.storedValue())?.isNull == true } }
            sources = processed.map(\.source)
            pending = processed.enumerated().map { (id: $1.id, index: $0) }
        }
        // The sources `prepareImport(for:)` sees: one per ID, in import order.
        let prepared = pending.count == sources.count ? sources : pending.map { sources[$0.index] }

        let uniqueIDField = Object.uniqueIDField
        let uniqueIDKeyPath: AnyKeyPath = Object.uniqueIDKeyPath
        // Text IDs were told apart by their bytes (`uniqueIDs`), as SQL
        // compares texts: the look-up's list need not be deduplicated again.
        // Not so for IDs told apart by `==`, which a type of one's own need
        // not keep to its stored values: integer IDs, and the keys of the
        // dictionary `preProcess` returns, but for `String`'s (two strings
        // `==` tells apart have different bytes).
        let storedIDsAreDistinct = Object.UniqueIDType.storedType == .text
            && (preProcess == nil || Object.UniqueIDType.self == String.self)
        uniqueImportDepth += 1
        defer {
            uniqueImportDepth -= 1
            if uniqueImportDepth == 0 { createdDuringUniqueImport.removeAll() }
        }
        return try withImportData(into.entityClass, for: prepared) {
            var objects: [Object] = []
            objects.reserveCapacity(pending.count)
            var creationChecked = false
            var start = 0
            while start < pending.count {
                let batch = pending[start..<min(start + Self.importBatchSize, pending.count)]
                start = batch.endIndex
                // The fetch flushes first, so objects created earlier in this
                // transaction (and in earlier batches) are found by SQL.
                // IDs converted here, specialized; an ID that cannot be stored
                // goes through `in:`, whose predicate names the field.
                let storedIDs = batch.map { try? $0.id.storedValue() }
                let stored = storedIDs.compactMap { $0 }
                let found = try fetchAll(From<Object>().where(
                    stored.count == batch.count
                        ? Where(Object.uniqueIDKeyPath, inStored: stored, distinct: storedIDsAreDistinct)
                        : Where(Object.uniqueIDKeyPath, in: batch.map(\.id))))
                // Matched by the ID as stored, as the query compared it: an ID
                // that reads back as another value (a `Date`, stored as
                // seconds since 1970) still finds its object, and a text only
                // the one with its bytes ("é" composed is not "e" and an accent).
                func storedKey(of object: Object) -> StoredValue.ExactKey? {
                    let stored = object.storedValue(forField: uniqueIDKeyPath)
                        ?? (try? object.storedField(at: uniqueIDKeyPath, uniqueIDField).storedValue())
                    return stored.map(StoredValue.ExactKey.init)
                }
                var existing = Dictionary(
                    found.lazy.compactMap { object in storedKey(of: object).map { ($0, object) } },
                    uniquingKeysWith: { first, _ in first })
                var createdSeen = createdDuringUniqueImport.count
                for ((id, index), storedID) in zip(batch, storedIDs) {
                    let source = sources[index]
                    if createdDuringUniqueImport.count > createdSeen {
                        // Objects created since the lookup (by a hook's nested import or
                        // create, or by this loop) are matched too, never duplicated; one
                        // that replaces a deleted holder of its ID (a hook deleted the
                        // object the lookup found, then made another) takes its place.
                        for case let object as Object in createdDuringUniqueImport[createdSeen...]
                        where !object.isDeletedObject {
                            if let key = storedKey(of: object),
                               existing[key]?.isDeletedObject ?? true
                            {
                                existing[key] = object
                            }
                        }
                        createdSeen = createdDuringUniqueImport.count
                    }
                    // An object a hook deleted since the lookup is not found (Rule 6).
                    var match = storedID.flatMap { existing[StoredValue.ExactKey($0)] }
                    if match?.isDeletedObject == true { match = nil }
                    let before = createdDuringUniqueImport.count
                    let imported = try importUnique(
                        into, id: id, source: source, existing: match,
                        uniqueIDField: (uniqueIDKeyPath, uniqueIDField), checked: &creationChecked)
                    // The object this record created holds an ID no later record has
                    // (the sources are deduplicated): it needs no matching.
                    if createdSeen == before, createdDuringUniqueImport.count == before + 1,
                       let imported, createdDuringUniqueImport[before] === imported {
                        createdSeen += 1
                    }
                    if let imported { objects.append(imported) }
                }
            }
            if !objects.isEmpty { Self.warnIfUnindexed(uniqueIDField, of: Object.self) }
            return objects
        }
    }

    /// `pending` as `preProcess` leaves it: the IDs it keeps, in their
    /// order, with the sources it gives them; then any IDs it adds.
    @usableFromInline
    static func preProcessed<ID: Hashable, Source>(
        _ pending: [(id: ID, source: Source)], by preProcess: ([ID: Source]) throws -> [ID: Source]
    ) throws -> [(id: ID, source: Source)] {
        let mapping = try preProcess(Dictionary(pending, uniquingKeysWith: { _, last in last }))
        var kept = pending.compactMap { id, _ in mapping[id].map { (id: id, source: $0) } }
        if kept.count < mapping.count {
            let inputIDs = Set(pending.lazy.map(\.id))
            kept += mapping.lazy.filter { !inputIDs.contains($0.key) }.map { (id: $0.key, source: $0.value) }
        }
        return kept
    }

    /// Each unique ID of `sources` once, at its first position, with the
    /// index of its last source; sources whose ID is `nil` are left out.
    /// Two IDs are one when the store's unique index takes them for one: by
    /// `==` for integers, by their stored value otherwise (see ``ImportIDKey``).
    @inlinable
    static func uniqueIDs<ID: FieldStorable & Hashable, Source>(
        of sources: [Source], _ uniqueID: (Source) throws -> ID?
    ) throws -> [(id: ID, index: Int)] {
        if ID.self == String.self, sources.count < Int(UInt32.max) {
            let pending = try uniqueTextIDs(of: sources) { try uniqueID($0).map { $0 as! String } }
            return unsafeBitCast(pending, to: [(id: ID, index: Int)].self)
        }
        if ID.storedType == .integer { return try firstPositions(of: sources, uniqueID) { $0 } }
        return try firstPositions(of: sources, uniqueID) { id in
            (try? id.storedValue()).map { ImportIDKey.stored(StoredValue.ExactKey($0)) } ?? .value(id)
        }
    }

    /// ``uniqueIDs(of:_:)`` with the IDs told apart by `key`.
    @inlinable
    static func firstPositions<ID, Key: Hashable, Source>(
        of sources: [Source], _ uniqueID: (Source) throws -> ID?, key: (ID) -> Key
    ) throws -> [(id: ID, index: Int)] {
        var pending: [(id: ID, index: Int)] = []
        var positions: [Key: Int] = [:]
        pending.reserveCapacity(sources.count)
        positions.reserveCapacity(sources.count)
        for (index, source) in sources.enumerated() {
            guard let id = try uniqueID(source) else { continue }
            let key = key(id)
            if let first = positions.updateValue(pending.count, forKey: key) {
                positions[key] = first
                pending[first].index = index
            } else {
                pending.append((id, index))
            }
        }
        return pending
    }

    /// ``uniqueIDs(of:_:)`` for text IDs, the commonest kind, through a
    /// ``TextIDTable``.
    @inlinable
    static func uniqueTextIDs<Source>(
        of sources: [Source], _ uniqueID: (Source) throws -> String?
    ) throws -> [(id: String, index: Int)] {
        var pending: [(id: String, index: Int)] = []
        pending.reserveCapacity(sources.count)
        var table = TextIDTable(capacity: sources.count)
        // A block of IDs at a time, hashed (and their slots asked for) before
        // any of them is recorded: see `TextIDTable.digestAhead`.
        var block: [(id: String, index: Int, digest: UInt64?)] = []
        block.reserveCapacity(TextIDTable.lookahead)
        var start = 0
        while start < sources.count {
            let end = start + min(TextIDTable.lookahead, sources.count - start)
            block.removeAll(keepingCapacity: true)
            for index in start..<end {
                guard let id = try uniqueID(sources[index]) else { continue }
                block.append((id, index, table.digestAhead(id)))
            }
            for (id, index, digest) in block {
                if let first = table.firstPosition(of: id, digest: digest, idAt: { pending[$0].id }) {
                    pending[first].index = index
                } else {
                    pending.append((id, index))
                }
            }
            start = end
        }
        return pending
    }

    @inlinable
    func importUnique<Object: ImportableUniqueObject>(
        _ into: Into<Object>, id: Object.UniqueIDType, source: Object.ImportSource,
        existing: Object?, uniqueIDField: (keyPath: AnyKeyPath, declared: DeclaredField<Object.UniqueIDType>),
        checked: inout Bool
    ) throws -> Object? {
        if let existing {
            guard into.entityClass.shouldUpdate(from: source, in: self),
                  existing.shouldUpdate(from: source, in: self)
            else { return nil }
            try existing.update(from: source, in: self)
            return existing
        }
        guard into.entityClass.shouldInsert(from: source, in: self) else { return nil }
        try checkCreationTarget(into, &checked)
        let object = create(into)
        object.setStoredField(id, at: uniqueIDField.keyPath, uniqueIDField.declared)
        try object.didInsert(from: source, in: self)
        return object
    }

    /// Throws, before an import call's first new object, what `create(into)`
    /// would leave for the commit: ``StrataError/storeNotFound(entity:configuration:)``
    /// when no store holds the entity in the configuration `into` names
    /// (CoreStore's `create` aborts there). An import that only updates
    /// needs no such store. `checked` is the call's: once is enough.
    @usableFromInline
    func checkCreationTarget<Object: ManagedObject>(_ into: Into<Object>, _ checked: inout Bool) throws {
        guard !checked else { return }
        _ = try contexts.creationTarget(for: into)
        checked = true
    }

    /// The entities already warned about, so each is named once per process.
    private static let warnedUnindexed = Locked<Set<ObjectIdentifier>>([])

    /// Logs once per entity when its unique-ID field has no index, so every
    /// batch query of an import scans the whole table.
    @usableFromInline
    static func warnIfUnindexed<Value>(_ field: DeclaredField<Value>, of type: ManagedObject.Type) {
        guard field.options.isDisjoint(with: [.unique, .indexed]),
            warnedUnindexed.withLock({ $0.insert(ObjectIdentifier(type)).inserted })
        else { return }
        StrataLog.warning(
            .importing,
            "\(type)'s unique-ID field is neither .unique nor .indexed: each import batch scans "
                + "the whole table. Declare it with .unique (or .indexed) in the model.")
    }
}
