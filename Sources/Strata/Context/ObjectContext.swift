/// A scope of objects: an identity map (one object per ID), their values and,
/// in a transaction, their changes.
///
/// The main context reads through the store's reader connection, does not
/// keep its objects alive (each object removes itself from the map when it is
/// deinitialized) and is read-only. A transaction's context writes through
/// the writer connection inside one SQLite transaction, holds its objects
/// strongly and flushes their changes before every read, so reads are exact.
final class ObjectContext {
    enum Kind { case main, transaction }

    let kind: Kind
    let schema: Schema
    /// The store the context reads and writes; a main context's moves to
    /// the store reopened in its place when the file is replaced or reset.
    private(set) var store: StoreRuntime
    /// False once the transaction that owns the context has ended.
    var isOpen = true
    /// Whether the transaction has taken its store's writer once: from then
    /// on it is bound to that store (see ``takeWriter()``).
    private var hasTouchedStore = false

    private var reader: Connection?
    /// A transaction's look at the store as last committed (see `committedConnection`).
    private var committedReader: Connection?
    private let objects: IdentityMap
    /// The schema's entities by index, unretained (`schema` keeps them), so
    /// that an object, which keeps its entity's index, finds the entity
    /// with no retain and release (see ``ManagedObject/withMembership(_:)``).
    private let entityTable: UnsafeMutableBufferPointer<Unmanaged<EntityDescription>>

    // Transaction state.
    var writer: Connection?
    /// The writers of a transaction over several stores, taken together.
    var writerSet: WriterSet?
    /// Records what the transaction changes in this store, when a commit
    /// over several stores may have to keep it in another (see `CrossStoreCommit`).
    var recorder: ChangeRecorder?
    // Touched by every `create` and first change: unchecked exclusivity
    // (checked in the checked build), like `fieldSlots` below; the access
    // checks were a quarter of `create`'s samples.
    /// Per entity index, the next row ID to give out (0: not read yet).
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var nextRowIDs: [Int64]
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var pendingObjects: [ManagedObject] = []
    var relationshipChanges: [ObjectKey: Set<String>] = [:]
    var denyChecks: [DenyCheck] = []
    /// What bulk writes changed without objects (see `ObjectContext+BulkWrites`).
    var bulkChanges = BulkChanges()
    /// Per entity index, the rows of objects the transaction created and let
    /// go of once written (see `ObjectContext+Retiring`).
    var retiredInserts: [Int: RowIDRanges] = [:]
    /// How many objects may be pending before a create writes them and lets
    /// go of the created ones nobody else holds.
    var insertRetirementThreshold = ObjectContext.defaultInsertRetirementThreshold
    /// Set when a flush for retiring failed: the transaction retires no more.
    var insertRetirementSuspended = false
    /// The commit generation the last fetch's rows reflect (main context),
    /// not that of a read the merge it set off made.
    var lastReadGeneration: UInt64 = 0
    /// The reader's data version and the generation it was seen at: a read
    /// whose snapshot shows the same data version needs nothing merged (main context).
    var knownSnapshot: (dataVersion: UInt32, generation: UInt64) = (0, 0)
    /// Told of every read snapshot that shows a change (main context).
    weak var follower: (any SnapshotFollower)?
    /// A failure in a setter, which cannot throw; the next flush throws it.
    var deferredError: StrataError?
    /// Whether the context goes on after a commit with the objects it holds
    /// (an unsafe transaction), which another writer may change meanwhile.
    var keepsObjectsAcrossCommits = false
    /// The generation the kept objects' values come from (unsafe transaction).
    var keptGeneration: UInt64?
    /// Set for an unsafe transaction's context: traps use from two threads at once.
    var exclusiveUse: ExclusiveUse?
    /// The undo history of an unsafe transaction begun with `supportsUndo: true`,
    /// which the changes below record into (see `UndoHistory`); `nil` records nothing.
    var undoHistory: UndoHistory?

    var isReadOnly: Bool { kind == .main }

    /// The typed error for a failure met on this context's store.
    func translated(_ error: any Error) -> StrataError {
        if let database = error as? DatabaseError, database.primaryCode == 1,
           let mismatch = schemaMismatch()
        {
            return mismatch
        }
        return StoreErrors.translate(error, path: store.path, schema: schema)
    }

    /// The store's mismatch, when another stack migrated or recreated it for
    /// another schema since this context's stack opened it: SQL made for this
    /// schema then meets a missing table or column (`SQLITE_ERROR`), and the
    /// caller should learn that the store moved on, as a commit would report it.
    private func schemaMismatch() -> StrataError? {
        guard let connection = kind == .main ? reader : writer,
              let meta = try? connection.storeMeta(),
              let fingerprint = meta["fingerprint"], fingerprint != store.schema.fingerprint
        else { return nil }
        return .schemaMismatch(
            path: store.path, storeVersion: meta["version"] ?? "unknown",
            schemaVersion: store.schema.version)
    }

    /// Per entity, the field wrapper key paths already resolved to value slots,
    /// by identity. The key paths themselves are kept in `resolvedKeyPaths`, so
    /// no identifier in the table can be reused by another object; only the
    /// first of equal key paths is added (a generic class's accessors make a
    /// new key path object on every access, which must not grow the table).
    // Unchecked exclusivity (checked in the checked build): read on every
    // field access, appended to only here.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var fieldSlots: [ContiguousArray<(keyPath: ObjectIdentifier, slot: Int)>]
    /// Per entity, the relationships resolved the same way.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var relationships: [[ObjectIdentifier: RelationshipDescription]]
    private var resolvedKeyPaths: Set<ResolvedKeyPath> = []

    /// A key path resolved for one entity, compared by value.
    private struct ResolvedKeyPath: Hashable {
        let entity: Int
        let keyPath: AnyKeyPath
    }

    /// The value slot of the field whose wrapper is at `keyPath`, when an
    /// earlier access resolved it. Inlined into field accesses, with no call
    /// on the way, so that borrowing the object's context and entity
    /// (`Unmanaged`) costs no retain.
    @inline(__always)
    func resolvedSlot(ofFieldAt keyPath: AnyKeyPath, inEntityAt entityIndex: Int) -> Int? {
        let id = ObjectIdentifier(keyPath)
        return fieldSlots.withUnsafeBufferPointer { tables in
            tables[entityIndex].withUnsafeBufferPointer { table in
                table.first { $0.keyPath == id }?.slot
            }
        }
    }

    /// What ``resolveSlot(ofFieldAt:in:)`` gives for a field with a
    /// `customGetter` or `customSetter`: no slot, so that its accessors take
    /// the slow path, which runs them.
    static let slotOfCustomAccessors = -1

    /// Resolves the value slot of the field whose wrapper is at `keyPath` by
    /// the field's name, and remembers it for the entity; for a field with
    /// custom accessors, ``slotOfCustomAccessors``.
    @inline(never)
    func resolveSlot(ofFieldAt keyPath: AnyKeyPath, in entity: EntityDescription) -> Int {
        guard let field = DeclaredFields.field(at: keyPath),
              var slot = entity.slot(of: field.declaration.name)
        else {
            misuse("Strata: \(keyPath) does not name a stored field of \(entity.name).")
        }
        if field.hasCustomAccessors { slot = Self.slotOfCustomAccessors }
        if remember(keyPath, for: entity) {
            fieldSlots[entity.index].append((ObjectIdentifier(keyPath), slot))
        }
        return slot
    }

    /// The relationship whose wrapper is at `keyPath`, resolved once per
    /// entity by its name; no global look-up on the way.
    func relationship(at keyPath: AnyKeyPath, in entity: EntityDescription) -> RelationshipDescription {
        if let known = relationships[entity.index][ObjectIdentifier(keyPath)] { return known }
        guard let name = DeclaredFields.field(at: keyPath)?.declaration.name,
              let relationship = entity.relationships[name]
        else {
            misuse("Strata: \(keyPath) does not name a relationship of \(entity.name).")
        }
        if remember(keyPath, for: entity) {
            relationships[entity.index][ObjectIdentifier(keyPath)] = relationship
        }
        return relationship
    }

    /// Keeps `keyPath` alive for the entity's tables; `false` when an equal
    /// one is already kept, and this one must not be added.
    private func remember(_ keyPath: AnyKeyPath, for entity: EntityDescription) -> Bool {
        resolvedKeyPaths.insert(ResolvedKeyPath(entity: entity.index, keyPath: keyPath)).inserted
    }

    /// How many field and relationship key paths the context keeps resolved
    /// (for tests): one per entity and field read, however many times.
    var resolvedKeyPathCount: Int { resolvedKeyPaths.count }

    init(kind: Kind, schema: Schema, store: StoreRuntime, reader: Connection? = nil) {
        self.kind = kind
        self.schema = schema
        self.store = store
        self.reader = reader
        let count = schema.entities.count
        entityTable = .allocate(capacity: count)
        _ = entityTable.initialize(from: schema.entities.lazy.map { Unmanaged.passUnretained($0) })
        self.objects = IdentityMap(entityCount: count, ownership: kind == .main ? .unretained : .strong)
        self.fieldSlots = Array(repeating: [], count: count)
        self.relationships = Array(repeating: [:], count: count)
        self.nextRowIDs = Array(repeating: 0, count: count)
    }

    deinit {
        // The read-only reader closes before the writer can: the last
        // connection to close checkpoints the WAL and removes it, which a
        // read-only connection cannot do.
        reader?.close()
        committedReader?.close()
        entityTable.deallocate()
    }

    /// Whether `entity` is one of the context's schema's (a schema
    /// restricted to a configuration has entities of its own).
    func holds(_ entity: EntityDescription) -> Bool {
        entity.index < entityTable.count && self.entity(at: entity.index) === entity
    }

    /// The entity at `index` in the context's schema.
    func entity(at index: Int) -> EntityDescription {
        entityTable[index].takeUnretainedValue()
    }

    /// The entity at `index` in the context's schema, unretained.
    @inline(__always)
    func entityReference(at index: Int) -> Unmanaged<EntityDescription> {
        entityTable[index]
    }

    // MARK: Connections

    /// Closes the main context's reader: its store was removed from the
    /// stack, and reads now throw ``StrataError/storeNotAdded``.
    func closeReader() {
        reader?.close()
        reader = nil
    }

    /// Points the main context at `store`, reopened in place of the one it
    /// read (its file replaced or reset), reading through `reader`. Its
    /// objects stay registered, to be read again by a refresh.
    func follow(_ store: StoreRuntime, reader: Connection) {
        precondition(kind == .main && self.reader == nil, "only a closed main context moves to another store")
        self.store = store
        self.reader = reader
    }

    /// The connection reads go through: the main context's reader, or in a
    /// transaction the one `scope` names (see ``ReadScope``).
    func readConnection(_ scope: ReadScope = .pending) throws -> Connection {
        switch kind {
        case .main:
            guard let reader else { throw StrataError.storeNotAdded }
            return reader
        case .transaction:
            switch scope {
            case .pending:
                try flush()
                return try writeConnection()
            case .unflushed:
                return try writeConnection()
            case .committed:
                return try committedConnection()
            }
        }
    }

    /// A transaction's read-only connection of its own, which sees the store
    /// as last committed. The transaction begins writing first, holding the
    /// store's write lock, so no other writer commits between what this
    /// connection shows and what the transaction reads. Opened on first use,
    /// closed when the transaction's SQLite transaction ends.
    private func committedConnection() throws -> Connection {
        _ = try writeConnection()
        if let committedReader { return committedReader }
        let connection = try store.settings.openConnection(.inspector, create: false)
        committedReader = connection
        return connection
    }

    /// Closes the connection ``committedConnection()`` opened, if any.
    func closeCommittedReader() {
        committedReader?.close()
        committedReader = nil
    }

    /// The writer connection, beginning the SQLite write transaction on
    /// first use (with the other stores' of a transaction over several).
    func writeConnection() throws -> Connection {
        checkUsage(isOpen, "Strata: this transaction has ended; start a new one to read or write.")
        if let writer { return writer }
        if let writerSet {
            try writerSet.beginWriting()
            if let writer { return writer }  // else a read-only store's, refused below
        }
        try takeWriter()
        do {
            try catchUpIfKeepingObjects()
        } catch {
            abandonWriter()
            throw error
        }
        return writer!
    }

    /// Takes the store's writer and begins its SQLite write transaction.
    ///
    /// A transaction's first look at its store: when the stack has replaced
    /// or reset the store's file since the transaction began, it works on the
    /// store opened in its place (waiting for the swap to end), as one begun
    /// after the swap would; it has seen nothing of the old file.
    func takeWriter() throws {
        do {
            writer = try store.beginWriting()
        } catch StrataError.storeNotAdded where kind == .transaction && !hasTouchedStore {
            guard let successor = store.succession.successor() else {
                throw StrataError.storeNotAdded
            }
            store = successor
            try takeWriter()
        }
        hasTouchedStore = true
    }

    /// Rolls back the SQLite transaction and gives the writer back, leaving
    /// the objects as they are: for a failure while beginning to write.
    func abandonWriter() {
        guard let writer else { return }
        self.writer = nil
        recorder = nil
        store.endWriting(writer, rollback: true)
    }

    /// Brings kept objects up to the store (an unsafe transaction that goes
    /// on after a commit), right after the writer is taken.
    func catchUpIfKeepingObjects() throws {
        if keepsObjectsAcrossCommits, let writer { try catchUpKeptObjects(on: writer) }
    }

    // MARK: Identity map

    func registered(_ entity: EntityDescription, _ rowID: Int64) -> ManagedObject? {
        objects.object(entity, rowID)
    }

    /// The registered objects for `rowIDs`, in the same order; faster than
    /// one look-up at a time for many rows (see `EntityObjectTable.objects(_:)`).
    func registered(_ entity: EntityDescription, _ rowIDs: [Int64]) -> [ManagedObject?] {
        objects.objects(entity, rowIDs)
    }

    func register(_ object: ManagedObject) {
        // The entity borrowed: `object.entity!` retained and released it per object.
        let registered: Void? = object.withMembership { _, entity in
            objects.insert(object, entity)
        }
        if registered == nil { misuse("Strata: a detached object cannot be registered.") }
    }

    func unregister(_ object: ManagedObject) {
        let unregistered: Void? = object.withMembership { _, entity in
            objects.remove(object, entity)
        }
        if unregistered == nil { misuse("Strata: a detached object cannot be unregistered.") }
    }

    /// After unregistering many objects of the rows a transaction created
    /// last: see ``IdentityMap/trimDirectHeads(nextRowIDs:)``.
    func trimIdentityMap() {
        objects.trimDirectHeads(nextRowIDs: nextRowIDs)
    }

    /// Called by `ManagedObject.deinit`: drops the main context's entry for the object.
    func objectWillDeinitialize(_ object: ManagedObject, _ entity: EntityDescription) {
        if kind == .main { objects.remove(object, entity) }
    }

    /// Every object the context holds.
    var registeredObjects: [ManagedObject] {
        var all: [ManagedObject] = []
        objects.forEach { all.append($0) }
        return all
    }

    /// Visits every object the context holds without copying the map.
    func forEachRegistered(_ body: (ManagedObject) throws -> Void) rethrows {
        try objects.forEach(body)
    }

    /// How many objects the context holds.
    var registeredCount: Int { objects.count }

    /// Forgets every object; used when a transaction ends.
    func removeAllObjects() {
        objects.removeAll()
    }

    // MARK: Materializing rows

    /// The object for a row whose `_pk` is column 0 and whose attributes follow
    /// in slot order, reusing the registered object when there is one.
    /// `server` is the statement's ``Statement/server``, read once a fetch.
    @inline(__always)
    private func object(
        _ entity: EntityDescription, row statement: Statement, server: (any ServerStatement)?,
        generation: UInt64, table: EntityObjectTable, batch: RowBatch
    ) -> ManagedObject {
        let rowID = server?.int64(at: 0) ?? statement.sqliteRow.int64(at: 0)
        if let existing = table.object(rowID) {
            if kind == .main, existing.generation < generation {
                existing.values = readValues(entity, statement)
                existing.generation = generation
            }
            return existing
        }
        let object = entity.type.init()
        let row = batch.append(statement, server: server)
        object.attach(toRow: row, in: batch, entity: entity, rowID: rowID)
        object.generation = generation
        table.insertNew(object)
        return object
    }

    /// The registered object for a row, or a new one with `values`, registered.
    /// In an inheritance tree, a new object is of the entity the values'
    /// discriminator names (a change set of a base entity's family).
    func object(
        _ entity: EntityDescription, rowID: Int64, values: ContiguousArray<StoredValue>, generation: UInt64
    ) -> ManagedObject {
        let table = objects.table(entity)
        if let existing = table.object(rowID) { return existing }
        var entity = entity
        if entity.sharesTable, case .text(let name) = values[EntityTree.discriminatorSlot],
           let concrete = schema.entity(named: name), entity.includes(concrete) {
            entity = concrete
        }
        let object = entity.type.init()
        object.attach(to: self, entity: entity, rowID: rowID)
        object.values = values
        object.generation = generation
        table.insertNew(object)
        return object
    }

    private func readValues(_ entity: EntityDescription, _ statement: Statement) -> ContiguousArray<StoredValue> {
        let count = entity.attributes.count
        guard count > 0 else { return [] }
        return ContiguousArray(unsafeUninitializedCapacity: count) { buffer, initialized in
            for slot in 0..<count {
                (buffer.baseAddress! + slot).initialize(to: statement.value(at: Int32(slot + 1)))
            }
            initialized = count
        }
    }

    /// Runs a `SELECT` of whole rows of `entity` and materializes the objects.
    func fetchObjects<Object: ManagedObject>(
        _ entity: EntityDescription, sql: String, arguments: [StoredValue],
        as type: Object.Type = ManagedObject.self, scope: ReadScope = .pending, maxRows: Int = .max
    ) throws -> [Object] {
        let fetched = try read(sql, arguments, scope: scope) { statement, hasRow, generation in
            lastReadGeneration = generation
            var fetched: [ManagedObject] = []
            guard hasRow else { return fetched }
            let table = objects.table(entity)
            let columns = entity.attributes.count
            let server = statement.server
            // A server's result arrives whole: its rows are counted already, and
            // a batch needs no room for more. (Reserving the result's capacity
            // by the count measured no faster and slowed both sides of the
            // benchmark by moving glibc's thresholds: Docs/Performance.md.)
            let rows = min(maxRows, server?.resultRowCount ?? .max)
            var batch = RowBatch(columns: columns, rows: rows, context: self)
            // In an inheritance tree each row is of the entity its discriminator names.
            let tree = entity.sharesTable ? TreeRows(entity, schema: schema) : nil
            repeat {
                if !batch.hasRoom {
                    batch.finish()
                    // The next rows likely need as many text and blob bytes as the
                    // last batch took; up to 1 MB, so that one batch of long texts
                    // does not make every later one reserve as much.
                    batch = RowBatch(
                        columns: columns, rows: max(1, rows - fetched.count),
                        byteCapacity: min(batch.byteCount, 1 << 20), context: self)
                }
                if let tree {
                    // A row of another branch of the tree (a read by row ID) is not one of `entity`'s.
                    guard let concrete = tree.entity(of: statement) else { continue }
                    fetched.append(object(
                        concrete, row: statement, server: server, generation: generation, table: table,
                        batch: batch))
                } else {
                    fetched.append(object(
                        entity, row: statement, server: server, generation: generation, table: table,
                        batch: batch))
                }
            } while try fetched.count < maxRows && statement.step()
            batch.finish()
            return fetched
        }
        if !retiredInserts.isEmpty { markRetiredInserts(fetched) }
        // Every row of the entity is an object of its class, `Object`, or of a
        // subentity's, a subclass: the array can be reinterpreted without a
        // cast per element.
        precondition(Object.self == ManagedObject.self || Object.self == entity.type)
        return uncheckedDowncast(fetched, to: [Object].self)
    }

    /// The object with `rowID`, registered or read from the store; `nil` if there is none.
    /// In an inheritance tree, the object is of its concrete entity, and
    /// `nil` unless that is `entity` or a subentity.
    func existingObject(_ entity: EntityDescription, rowID: Int64) throws -> ManagedObject? {
        if let object = registered(entity, rowID) {
            guard !object.isDeleted else { return nil }
            return !entity.sharesTable || entity.includes(object.entity!) ? object : nil
        }
        return try fetchObjects(
            entity, sql: entity.selectRowSQL, arguments: [.integer(rowID)], scope: .unflushed, maxRows: 1
        ).first
    }
}

