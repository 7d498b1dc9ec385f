/// A running observation of one field of one object, started with
/// `object.$field.observe { old, new in ... }`. Keep it: the observation
/// stops when it is released or ``cancel()``ed. It keeps its closure, so a
/// closure that captures strongly whatever keeps the observation is a cycle:
/// capture `[weak self]`.
///
/// ```swift
/// let token = person.$age.observe { old, new in
///     print("age went from \(old) to \(new)")
/// }
/// // later
/// token.cancel()
/// ```
@MainActor
public final class FieldObservation {
    private var observer: (any ChangeSetObserver)?
    /// `nil` for an observation that starts inactive (see ``start(_:field:decode:handler:)``).
    private let center: ObservationCenter?

    init(_ observer: any ChangeSetObserver, center: ObservationCenter?) {
        self.observer = observer
        self.center = center
        center?.add(observer, stage: .monitors)
    }

    /// Whether the observation still runs: not cancelled, its object not
    /// deleted, and its store still followed (not removed from the stack,
    /// nor left by a stack released with nothing else keeping its main
    /// context).
    ///
    /// ```swift
    /// if !token.isActive { token = nil }
    /// ```
    public var isActive: Bool { (observer as? any FieldObserving)?.isRunning == true }

    /// Stops the observation; the closure is not called again.
    ///
    /// ```swift
    /// token.cancel()
    /// ```
    public func cancel() {
        guard let observer else { return }
        center?.remove(observer)
        self.observer = nil
    }

    /// The observed field's value as last reported (or as it was when the
    /// observation began); `nil` once cancelled.
    fileprivate func currentValue<Value>(as type: Value.Type) -> Value? {
        (observer as? FieldObserver<Value>).map { $0.decode($0.current) }
    }
}

@MainActor
private protocol FieldObserving {
    /// Whether a later commit may still call the handler.
    var isRunning: Bool { get }
}

/// Follows one field of one object through merged change sets and calls
/// the handler with its old and new values. The observation center holds it
/// weakly; its ``FieldObservation`` keeps it alive.
@MainActor
private final class FieldObserver<Value>: ChangeSetObserver, FieldObserving {
    let entityName: String
    let rowID: Int64
    let field: String
    let slot: Int
    /// The field's value from its stored form (the default when it does not read).
    let decode: (StoredValue) -> Value
    let handler: @MainActor (Value, Value) -> Void
    var generation: UInt64
    var current: StoredValue
    var isFinished = false
    private weak var main: MainContext?

    /// The main context merges into the center the observer is in: once it
    /// is gone (its stack released, nothing else keeping it) or closed (its
    /// store removed), nothing reaches the observer again.
    var isRunning: Bool { !isFinished && main?.isClosed == false }

    init(
        object: ManagedObject, entity: EntityDescription, field: String,
        decode: @escaping (StoredValue) -> Value,
        main: MainContext?, handler: @escaping @MainActor (Value, Value) -> Void
    ) {
        guard let slot = entity.slot(of: field) else {
            misuse("Strata: \(entity.name) has no stored field named '\(field)'.")
        }
        self.entityName = entity.name
        self.rowID = object.rowID
        self.field = field
        self.slot = slot
        self.decode = decode
        self.handler = handler
        self.main = main
        self.generation = max(main?.generation ?? 0, object.generation)
        self.current = object.value(at: slot)
    }

    func didMerge(_ changeSet: ChangeSet) {
        guard !isFinished, changeSet.generation > generation else { return }
        generation = changeSet.generation
        guard let changes = changeSet.changes[entityName] else { return }
        // A wipe lists only the rows the main context holds, and the
        // observation does not hold its object: every row of a cleared entity went.
        if changes.cleared || changes.deleted.contains(rowID) {
            isFinished = true
            return
        }
        guard let update = changes.updated[rowID], update.changedFields.contains(field) else {
            return
        }
        let new = update.values[slot]
        guard !new.isIdentical(to: current) else { return }
        let old = current
        current = new
        report(old, new)
    }

    var watchedEntityNames: Set<String> { [entityName] }

    /// The store was removed from the stack: nothing more is merged.
    func observationDidEnd() {
        isFinished = true
    }

    /// Anything may have changed: the field is read again.
    func didRefresh(_ changeSet: ChangeSet) {
        guard !isFinished else { return }
        generation = max(generation, changeSet.generation)
        guard let main, let entity = main.context.schema.entity(named: entityName)
        else { return }
        let object: ManagedObject?
        do {
            object = try main.context.existingObject(entity, rowID: rowID)
        } catch {
            StrataLog.warning(.observation, "An observation of \(entityName).\(field) could not read its object: \(error)")
            return
        }
        guard let object else {
            isFinished = true
            return
        }
        let new = object.value(at: slot)
        guard !new.isIdentical(to: current) else { return }
        let old = current
        current = new
        report(old, new)
    }

    /// Calls the handler once every monitor has taken the change set
    /// (Docs/Observing.md, Rule 1); weakly, so that a cancelled or released
    /// observation calls nothing more.
    private func report(_ old: StoredValue, _ new: StoredValue) {
        let call = { [weak self] in
            guard let self else { return }
            handler(decode(old), decode(new))
        }
        if let main { main.observation.deliver(call) } else { call() }
    }
}

extension Field.Stored {
    /// Calls `handler` with the field's old and new values after each commit
    /// that changes it, until the returned observation is released or
    /// cancelled, or the object is deleted.
    ///
    /// Observe fields of main-context objects (those the stack's fetches and
    /// monitors return); on any other object this traps. An object kept after
    /// its stack is released or its store removed gives an inactive observation.
    ///
    /// ```swift
    /// let person = try stack.fetchOne(From<Person>())!
    /// let token = person.$age.observe { old, new in
    ///     print("age: \(old) -> \(new)")
    /// }
    /// ```
    @MainActor
    public func observe(_ handler: @escaping @MainActor (_ old: Value, _ new: Value) -> Void)
        -> FieldObservation
    {
        let defaultValue = self.defaultValue
        return FieldObservation.start(
            enclosingObject, field: name, decode: { (try? Value(storedValue: $0)) ?? defaultValue },
            handler: handler)
    }
}

extension Field.Coded {
    /// Calls `handler` with the field's old and new values after each commit
    /// that changes its stored form (JSON with sorted keys, or a coder's
    /// bytes), until the returned
    /// observation is released or cancelled, or the object is deleted.
    ///
    /// Observe fields of main-context objects; on any other object this traps.
    /// An object kept after its stack is released or its store removed gives
    /// an inactive observation.
    ///
    /// ```swift
    /// let token = person.$address.observe { old, new in
    ///     print("moved from \(old?.city ?? "nowhere") to \(new?.city ?? "nowhere")")
    /// }
    /// ```
    @MainActor
    public func observe(_ handler: @escaping @MainActor (_ old: Value, _ new: Value) -> Void)
        -> FieldObservation
    {
        let defaultValue = self.defaultValue
        let coding = self.coding
        return FieldObservation.start(
            enclosingObject, field: name,
            decode: { (try? coding.decode($0)) ?? defaultValue },
            handler: handler)
    }
}

extension FieldObservation {
    /// Starts observing the field named `field` of `object`, a main-context
    /// object (else a trap), whose values `decode` reads. An object kept after
    /// its main context is gone (its stack released) or closed (its store
    /// removed) is no mistake: nothing will change it, and the observation
    /// starts inactive.
    fileprivate static func start<Value>(
        _ object: ManagedObject?, field: String, decode: @escaping (StoredValue) -> Value,
        handler: @escaping @MainActor (Value, Value) -> Void
    ) -> FieldObservation {
        guard let object, let context = object.context,
            let entity = object.entity,
            context.isReadOnly
        else {
            misuse(
                "Strata: observe '\(field)' on an object of the stack's main context "
                    + "(from stack.fetchAll, fetchExisting or a monitor); transaction objects "
                    + "and objects created with init() cannot be observed.")
        }
        let main = MainContext.owning(context).flatMap { $0.isClosed ? nil : $0 }
        let observer = FieldObserver(
            object: object, entity: entity, field: field, decode: decode, main: main, handler: handler)
        return FieldObservation(observer, center: main?.observation)
    }
}

extension MainContext {
    private struct Entry {
        weak var main: MainContext?
    }

    /// The live main contexts, by the identity of their object context.
    private static var directory: [ObjectIdentifier: Entry] = [:]

    /// Makes `main` findable from its objects, for `object.$field.observe`.
    static func register(_ main: MainContext) {
        directory = directory.filter { $0.value.main != nil }
        directory[ObjectIdentifier(main.context)] = Entry(main: main)
    }

    /// The main context whose object context is `context`.
    static func owning(_ context: ObjectContext) -> MainContext? {
        guard let main = directory[ObjectIdentifier(context)]?.main, main.context === context else {
            return nil
        }
        return main
    }

    /// The live main context that follows `store` (a snapshot's origin), if any.
    static func following(_ store: StoreRuntime) -> MainContext? {
        directory.values.lazy.compactMap(\.main).first { $0.context.store === store }
    }
}

/// What ``ManagedObjectIdentifiable/observe(_:options:changeHandler:)``
/// reports, as CoreStore's KVO-style observation does: which values a
/// change carries and whether the closure also runs at once, or before each change.
public struct FieldObservationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Each change carries the new value (``FieldChange/newValue``).
    public static let new = FieldObservationOptions(rawValue: 1 << 0)
    /// Each change carries the old value (``FieldChange/oldValue``).
    public static let old = FieldObservationOptions(rawValue: 1 << 1)
    /// The closure also runs once before `observe` returns, with the current
    /// value as the new one when `.new` is given.
    public static let initial = FieldObservationOptions(rawValue: 1 << 2)
    /// The closure also runs just before each change is reported, with
    /// ``FieldChange/isPrior`` set and, when `.old` is given, the old value.
    public static let prior = FieldObservationOptions(rawValue: 1 << 3)
}

/// One report of an observation started with
/// ``ManagedObjectIdentifiable/observe(_:options:changeHandler:)``: CoreStore's
/// `CoreStoreObjectValueDiff`. The values are there when the options asked for them.
public struct FieldChange<Value> {
    /// The field's value after the change, with ``FieldObservationOptions/new``.
    public let newValue: Value?
    /// The field's value before the change, with ``FieldObservationOptions/old``.
    public let oldValue: Value?
    /// Whether this report comes before the change (``FieldObservationOptions/prior``).
    public let isPrior: Bool
}

extension ManagedObjectIdentifiable {
    /// Calls `changeHandler` with the object and the change after each commit
    /// that changes the field at `keyPath`, CoreStore's form of
    /// `object.$field.observe { old, new in ... }`: `options` choose what the
    /// change carries and whether the closure also runs at once (`.initial`)
    /// or before each change (`.prior`). The observation holds the object
    /// and runs until it is released or cancelled, or the object is deleted.
    ///
    /// Observe fields of main-context objects (from the stack's fetches and
    /// monitors); on any other object this traps. An object kept after its
    /// stack is released or its store removed gives an inactive observation
    /// (`.initial` still reports at once).
    ///
    /// ```swift
    /// let person = try stack.fetchOne(From<Person>())!
    /// let observer = person.observe(\.$age, options: [.new]) { person, change in
    ///     print("Happy \(change.newValue!)th birthday, \(person.name)!")
    /// }
    /// ```
    @MainActor
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Field.Stored<Value>>, options: FieldObservationOptions = [],
        changeHandler: @escaping @MainActor (Self, FieldChange<Value>) -> Void
    ) -> FieldObservation {
        let field = self[keyPath: keyPath]
        return reporting(options, changeHandler) { field.observe($0) }
    }

    /// The same for a `@Field.Coded` field, whose changes are those of its
    /// stored form (see `Field.Coded.observe(_:)`).
    ///
    /// ```swift
    /// let observer = person.observe(\.$address, options: [.old, .new]) { person, change in
    ///     print("moved from \(change.oldValue??.city ?? "nowhere")")
    /// }
    /// ```
    @MainActor
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Field.Coded<Value>>, options: FieldObservationOptions = [],
        changeHandler: @escaping @MainActor (Self, FieldChange<Value>) -> Void
    ) -> FieldObservation {
        let field = self[keyPath: keyPath]
        return reporting(options, changeHandler) { field.observe($0) }
    }

    /// Starts an observation with `start` and turns its old and new values
    /// into the reports `options` ask for.
    @MainActor
    private func reporting<Value>(
        _ options: FieldObservationOptions,
        _ changeHandler: @escaping @MainActor (Self, FieldChange<Value>) -> Void,
        start: (@escaping @MainActor (Value, Value) -> Void) -> FieldObservation
    ) -> FieldObservation {
        let observation = start { [self] old, new in
            let oldValue = options.contains(.old) ? old : nil
            if options.contains(.prior) {
                changeHandler(self, FieldChange(newValue: nil, oldValue: oldValue, isPrior: true))
            }
            changeHandler(
                self, FieldChange(newValue: options.contains(.new) ? new : nil, oldValue: oldValue, isPrior: false))
        }
        if options.contains(.initial) {
            let current = options.contains(.new) ? observation.currentValue(as: Value.self) : nil
            changeHandler(self, FieldChange(newValue: current, oldValue: nil, isPrior: false))
        }
        return observation
    }
}
