import Dispatch
import Foundation

/// The entry point: a schema, a store, a read-only main context and the
/// transactions that write.
///
/// ```swift
/// let stack = DataStack(Schema("V1", entities: [Entity<Person>("Person")]))
/// try stack.addStorageAndWait(SQLiteStore(fileName: "people.sqlite"))
/// try stack.perform(synchronous: { tx in
///     tx.create(Into<Person>()).name = "Ann"
/// })
/// let people = try stack.fetchAll(From<Person>())
/// ```
///
/// A `DataStack` is `Sendable`. Its reads (fetches, and later monitors) are
/// `@MainActor`; transactions run one at a time on the stack's transaction queue.
public final class DataStack: Sendable {
    /// The schema the stack's store holds: the history's current version.
    public let schema: Schema
    /// Every version the stack can open a store of, and how they migrate.
    public let schemaHistory: SchemaHistory
    /// The version name of ``schema``, the one the stack's stores hold (and
    /// migrate to): CoreStore's `dataStack.modelVersion`.
    public var modelVersion: String { schema.version }
    /// The schema the stack's stores hold, under CoreStore's name
    /// `dataStack.modelSchema`: the same as ``schema``.
    public var modelSchema: Schema { schema }

    /// The classes of the schema's entities that are `type` or inherit from
    /// it, by entity name, as CoreStore's `dataStack.entityTypesByName(for:)`.
    ///
    /// ```swift
    /// let all = stack.entityTypesByName(for: ManagedObject.self)   // ["Person": Person.self, "Pet": Pet.self]
    /// let animals = stack.entityTypesByName(for: Animal.self)      // Animal and its subentities
    /// ```
    public func entityTypesByName(for type: ManagedObject.Type) -> [String: ManagedObject.Type] {
        schema.entityTypesByName(for: type)
    }
    /// Data of your own kept with the stack, under keys of your own, as
    /// CoreStore's `dataStack.userInfo`; see ``UserInfo``.
    ///
    /// ```swift
    /// stack.userInfo[CacheKeys.thumbnails] = ThumbnailCache()
    /// ```
    public let userInfo = UserInfo()
    let transactionQueue = DispatchQueue(label: "Strata.DataStack.transactions")
    /// The open stores, one per configuration: the default configuration's
    /// first, then the named ones by name. Every stack and process orders
    /// them alike, which makes that the order a transaction locks them in.
    private let runtimes = Locked<[StoreRuntime]>([])
    /// The configurations whose store an `addStorage` call is opening right
    /// now, each with its store's place (``StoreSettings/placeKey``).
    private let opening = Locked<[String?: String]>([:])
    /// Settings any thread may change: the default author, the polling interval.
    let settings = Locked<(author: String?, pollingInterval: Duration)>((nil, .milliseconds(20)))
    /// The main actor's context of each store, in the order of `runtimes`.
    @MainActor var mainContexts: [MainContext] = [] {
        didSet {
            mainReads = mainContexts.isEmpty ? nil : StoreContexts(mainContexts.map(\.context), schema: schema)
        }
    }
    /// The main contexts as reads take them, made once per change of stores
    /// rather than on every fetch.
    @MainActor private var mainReads: StoreContexts?
    /// The feeds of the live ``changeSets(touching:author:)`` streams: a
    /// store added later feeds them too.
    @MainActor var changeSetFeeds: [WeakChangeSetFeed] = []
    /// The continuations of those streams, by key, ended by `deinit`: a
    /// monitor or publisher kept after the stack keeps its main context, and
    /// a field observation its observation center, which would otherwise go
    /// on feeding them, or never end them.
    let changeSetStreamEnds = Locked<(next: Int, continuations: [Int: AsyncStream<ChangeSet>.Continuation])>(
        (0, [:]))
    /// The migration steps run when the store was last added, for tests and diagnostics.
    let migrationsRun = Locked<[MigrationStep]>([])
    /// How many of this stack's synchronous commits returned without the
    /// merge they would have waited for (see ``mergeCommitted(_:)``), for
    /// tests and diagnostics.
    let waitsCutShort = Locked(0)

    /// The author written to the commit log for every transaction of this
    /// stack that names none itself; `nil` (the default) for none. Give each
    /// process or app target its own, to tell its commits from others' in
    /// ``history(after:author:)`` and in merged ``ChangeSet``s.
    ///
    /// ```swift
    /// stack.defaultAuthor = "importer"
    /// try stack.perform(synchronous: { tx in ... })                 // logged as "importer"
    /// try stack.perform(synchronous: { tx in ... }, author: "sync") // logged as "sync"
    /// ```
    public var defaultAuthor: String? {
        get { settings.withLock { $0.author } }
        set { settings.withLock { $0.author = newValue } }
    }

    /// How often the stack looks for other writers' commits while a monitor,
    /// publisher or field observation is alive: 20 ms unless set. Each look
    /// costs one point read when nothing changed; reads on the main context
    /// look anyway, at no extra statement. See `Docs/History.md`.
    ///
    /// A store on a server (`PostgreSQLStore`) is not polled: the server
    /// announces each commit, and the announcement wakes the stack.
    ///
    /// ```swift
    /// stack.pollingInterval = .milliseconds(100)   // a quieter background tool
    /// ```
    public var pollingInterval: Duration {
        get { settings.withLock { $0.pollingInterval } }
        set { settings.withLock { $0.pollingInterval = max(newValue, .milliseconds(1)) } }
    }

    /// A stack for `schema`. Add a store before using it.
    public convenience init(_ schema: Schema) {
        self.init(schemaHistory: SchemaHistory(schema))
    }

    /// A stack whose store holds `schemaHistory`'s current version; adding a
    /// store of an older version migrates it (see ``SchemaHistory``). A mistake
    /// in the history is thrown when the store is added.
    ///
    /// ```swift
    /// let stack = DataStack(schemaHistory: SchemaHistory(
    ///     [v1, v2, v3], chain: MigrationChain(["V1", "V2", "V3"])))
    /// ```
    public init(schemaHistory: SchemaHistory) {
        self.schemaHistory = schemaHistory
        self.schema = schemaHistory.currentSchema
        // Marks the queue once, here, where nothing runs on it: set from a
        // block on the queue itself (once per transaction, as it was), libdispatch
        // suspends and resumes the queue to apply it, which woke a worker
        // thread and sent the next transaction's sync down its slow path.
        transactionQueue.setSpecific(key: Self.queueKey, value: ObjectIdentifier(self))
    }

    deinit {
        // A finished transaction's objects are freed on the transaction queue,
        // and until then they hold the store's writer: let them go now, so
        // that the stack's connections close as it goes, the writer after the
        // reader (the last to close folds SQLite's WAL into the file). Not
        // when the last reference went on that queue, which would wait for itself.
        if DispatchQueue.getSpecific(key: Self.queueKey) != ObjectIdentifier(self) {
            transactionQueue.sync {}
        }
        // The change-set streams end with the stack, whatever keeps its main
        // contexts. Taken out first: finishing one runs its termination
        // handler, which takes the lock.
        let streams = changeSetStreamEnds.withLock { ends in
            defer { ends.continuations = [:] }
            return Array(ends.continuations.values)
        }
        for continuation in streams { continuation.finish() }
    }

    /// The first store (the one store of a one-store stack; the default
    /// configuration's when added), or ``StrataError/storeNotAdded``.
    func store() throws(StrataError) -> StoreRuntime {
        guard let store = runtimes.withLock({ $0.first }) else { throw StrataError.storeNotAdded }
        return store
    }

    /// Every open store, in store order; throws
    /// ``StrataError/storeNotAdded`` when there is none.
    func stores() throws(StrataError) -> [StoreRuntime] {
        let stores = runtimes.withLock { $0 }
        if stores.isEmpty { throw StrataError.storeNotAdded }
        return stores
    }

    /// Opens `storage` on the calling thread and installs it; the work of
    /// every member of the `addStorage` family (`DataStack+AddingStorage.swift`).
    /// With `main`, the closed main context of the store `storage` reopens
    /// (its file replaced or reset) goes on, on the new store, which takes
    /// the old one's place among the stack's stores; `recreating` empties
    /// the store as it opens (see ``StoreOpener/recreating``).
    @MainActor
    func addStorageNow(
        _ storage: some StorageInterface, following main: MainContext? = nil, recreating: Bool = false
    ) throws(StrataError) {
        try StrataError.catching {
            // A store opened again in its own place is not a second store of its configuration.
            let reserves = main == nil
            if reserves, try holdsOrRefuses(storage) { return }
            defer { if reserves { finishOpening(storage) } }
            var opener = StoreOpener(settings: storage.settings, history: schemaHistory)
            opener.continuingAfter = main?.followedGeneration
            opener.recreating = recreating
            let opened = try opener.open()
            try install(opened.store, reader: opened.reader, migrationsRun: opened.migrationsRun, following: main)
        }
    }

    /// Opens `storage` off the main actor, telling `progress`, then installs it.
    @MainActor
    func addStorageOffMain(
        _ storage: some StorageInterface, reporting progress: MigrationProgressHandler?
    ) async throws(StrataError) {
        try await StrataError.catching {
            guard try !holdsOrRefuses(storage) else { return }
            defer { finishOpening(storage) }
            var opener = StoreOpener(settings: storage.settings, history: schemaHistory)
            opener.progress = progress
            let opened = try await Self.open(opener)
            try install(
                opened.store, reader: opened.reader.take(), migrationsRun: opened.migrationsRun, following: nil)
        }
    }

    private struct Opened: Sendable {
        let store: StoreRuntime
        let reader: ConnectionHandOff
        let migrationsRun: [MigrationStep]
    }

    private static func open(_ opener: StoreOpener) async throws -> Opened {
        let (store, reader, migrationsRun) = try opener.open()
        return Opened(store: store, reader: ConnectionHandOff(reader), migrationsRun: migrationsRun)
    }

    /// A stack holds one store per configuration: `true` when `storage` is
    /// that store already (added again, as CoreStore allows: nothing to do);
    /// a second one of the configuration is refused before its file is
    /// opened, so that it is neither created, migrated nor recreated. So is
    /// a store of another configuration at the file of one the stack has,
    /// as CoreStore refuses it (`differentStorageExistsAtURL`): opened as
    /// the other configuration's, the file is a mismatch, and under
    /// `.recreateStoreOnModelMismatch` it would be emptied under the open store.
    private func holdsOrRefuses(_ storage: some StorageInterface) throws -> Bool {
        let configuration = storage.settings.configuration
        let stores = runtimes.withLock { $0 }
        if let current = stores.first(where: { $0.settings.configuration == configuration }) {
            if current.settings.isSameStore(as: storage.settings) { return true }
            throw StrataError.storage(
                path: storage.settings.displayPath,
                reason: "the stack already has the store at \(current.path) for configuration "
                    + "\(configuration ?? "(default)"); remove it first (removeStorage())")
        }
        let place = storage.settings.placeKey
        if let other = stores.first(where: { $0.settings.placeKey == place }) {
            throw StrataError.storage(
                path: storage.settings.displayPath,
                reason: "the stack already has the store at \(other.path) for configuration "
                    + "\(other.settings.configuration ?? "(default)"); "
                    + "a file holds the store of one configuration")
        }
        // Another add of the configuration, or at the place, still opening its
        // store: refused too, before this file is opened (and so neither
        // migrated nor recreated).
        let busy = opening.withLock { opening -> String? in
            if opening.keys.contains(configuration) {
                return "for configuration \(configuration ?? "(default)")"
            }
            if opening.values.contains(place) { return "at \(storage.settings.displayPath)" }
            opening[configuration] = place
            return nil
        }
        if let busy {
            throw StrataError.storage(
                path: storage.settings.displayPath, reason: "the stack is already adding a store " + busy)
        }
        return false
    }

    /// Ends the reservation ``holdsOrRefuses(_:)`` made for `storage`'s configuration.
    private func finishOpening(_ storage: some StorageInterface) {
        _ = opening.withLock { $0.removeValue(forKey: storage.settings.configuration) }
    }

    /// Makes `store` one of the stack's, with a new main context, or with
    /// `main` (a closed one of the store's configuration, still among
    /// ``mainContexts``) moved onto it, in the place of `main`'s old store
    /// when the stack still lists it. The main context does not catch up
    /// yet: the caller does, once the swap that reopened the store is over.
    @MainActor
    private func install(
        _ store: StoreRuntime, reader: Connection, migrationsRun: [MigrationStep], following main: MainContext?
    ) throws {
        try runtimes.withLock { current in
            if let main, let index = current.firstIndex(where: { $0 === main.context.store }) {
                current[index] = store
                return
            }
            if let other = current.first(where: { $0.settings.configuration == store.settings.configuration }) {
                throw StrataError.storage(
                    path: store.path, reason: "the stack already has the store at \(other.path)")
            }
            current.insert(store, at: current.firstIndex { $0.order > store.order } ?? current.endIndex)
        }
        self.migrationsRun.withLock { $0 = migrationsRun }
        do {
            if let main {
                try main.follow(store, reader: reader)
            } else {
                let main = try MainContext(
                    context: ObjectContext(kind: .main, schema: store.schema, store: store, reader: reader),
                    pollingInterval: { [settings] in settings.withLock { $0.pollingInterval } })
                mainContexts.insert(
                    main, at: mainContexts.firstIndex { $0.context.store.order > store.order } ?? mainContexts.endIndex)
                changeSetFeeds.removeAll { $0.feed == nil }
                for entry in changeSetFeeds { main.observation.add(entry.feed!, stage: .streams) }
            }
        } catch {
            runtimes.withLock { $0.removeAll { $0 === store } }
            // A transaction that found it listed meanwhile must not write to it.
            store.gate.close()
            main?.context.closeReader()
            throw StoreErrors.translate(error, path: store.path)
        }
        // A commit over several stores that a crash cut short is completed
        // before anything reads it half done (each transaction checks again).
        do {
            try CrossStoreCommit.recover(stores: runtimes.withLock { $0 })
        } catch {
            StrataLog.log(.warning, .transactions, "could not check \(store.path) for unfinished commits: \(error)")
        }
    }

    /// Takes `store` (every store when `nil`) out of the stack: its main
    /// context closes (its observers are told, its reads throw), and the
    /// stores are returned, their writers still open for the caller to close.
    @MainActor
    func uninstall(_ store: StoreRuntime? = nil) throws(StrataError) -> [StoreRuntime] {
        let stores = try stores().filter { store == nil || $0 === store }
        try refuseRemovingHeld(stores)
        // This stack's last commits, and their completions, reach the
        // observers before they are told nothing more comes.
        for main in mainContexts where stores.contains(where: { $0 === main.context.store }) {
            main.catchUp()
        }
        closeMainContexts(of: stores)
        return stores
    }

    /// Begins to swap `store`'s file: closes the store, keeping its main
    /// context, which has merged everything committed and whose reader is
    /// closed. ``addStorageNow(_:following:recreating:)`` then moves it onto
    /// the store opened again in its place (its file replaced or reset), and
    /// ``finishSwap(of:_:)`` ends the swap.
    ///
    /// The store stays listed until its successor takes its place: a
    /// transaction asked for meanwhile is queued, not refused, and one that
    /// comes for the closed writer waits for the swap to end (see ``StoreSuccession``).
    @MainActor
    func detach(_ store: StoreRuntime) throws(StrataError) -> MainContext {
        try refuseRemovingHeld([store])
        store.succession.beginSwap()
        // Once a running transaction has given the writer back.
        store.gate.close()
        // Every mainContext's context is a store's, and `store` was the stack's.
        let main = mainContexts.first { $0.context.store === store }!
        main.catchUp()  // this stack's last commits, and their completions
        main.context.closeReader()
        return main
    }

    /// Ends the swap ``detach(_:)`` began: transactions waiting for `store`'s
    /// writer go on with the store opened in its place, and `main` catches up
    /// with it (a refresh); when none could be opened, they fail with
    /// ``StrataError/storeNotAdded`` and `main` closes, as ``removeStorage()``
    /// would close it. Called once nothing of the swap is left to do, so
    /// that what the refresh tells observers may start transactions, and
    /// wait for them.
    @MainActor
    func finishSwap(of store: StoreRuntime, _ main: MainContext) {
        let successor = main.context.store === store
            ? nil : runtimes.withLock { $0.first { $0 === main.context.store } }
        store.succession.endSwap(replacedBy: successor)
        if successor == nil {
            closeMainContexts(of: [store, main.context.store])
        } else {
            main.catchUp()
        }
    }

    /// Closes the main contexts of `stores` (their observers are told, their
    /// reads throw) and takes them and the stores out of the stack.
    @MainActor
    func closeMainContexts(of stores: [StoreRuntime]) {
        for main in mainContexts where stores.contains(where: { $0 === main.context.store }) { main.close() }
        mainContexts.removeAll { main in stores.contains { $0 === main.context.store } }
        runtimes.withLock { current in current.removeAll { open in stores.contains { $0 === open } } }
    }

    private func refuseRemovingHeld(_ stores: [StoreRuntime]) throws(StrataError) {
        if let held = stores.first(where: { $0.gate.isHeldByCurrentThread }) {
            throw StrataError.storage(
                path: held.path,
                reason: "a transaction on this thread holds the store; commit or roll it back first")
        }
    }

    /// The first store's main context; a read before a store is added
    /// throws ``StrataError/storeNotAdded``.
    @MainActor
    func main() throws(StrataError) -> MainContext {
        guard let main = mainContexts.first else { throw StrataError.storeNotAdded }
        return main
    }

    /// The main context of the one store a monitor of `query` follows.
    ///
    /// - Throws: ``StrataError/storeNotFound(entity:configuration:)`` when no
    ///   store holds the entity, ``StrataError/invalidValue(entity:field:reason:)``
    ///   when several do and the query names no one configuration.
    @MainActor
    func main<Object: ManagedObject>(following query: From<Object>) throws -> MainContext {
        let context = try mains().oneHolding(Object.self, in: query.configurations, for: "a monitor follows one store")
        // Every context of `mains()` is a main context's.
        return mainContexts.first { $0.context === context }!
    }

    /// The main context of the store `id` names.
    ///
    /// - Throws: ``StrataError/storeNotFound(entity:configuration:)`` when the stack has no such store.
    @MainActor
    func main<Object: ManagedObject>(holding id: ObjectID<Object>) throws -> MainContext {
        _ = try main()
        guard let main = mainContexts.first(where: {
            $0.context.schema.configuration == id.configuration && $0.context.schema.entity(reading: id) != nil
        }) else {
            throw StrataError.storeNotFound(entity: id.entityName, configuration: id.configuration)
        }
        return main
    }

    /// The main context of every store, where main-actor reads go.
    @MainActor
    func mains() throws(StrataError) -> StoreContexts {
        guard let mainReads else { throw StrataError.storeNotAdded }
        return mainReads
    }
}
