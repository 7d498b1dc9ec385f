/// The base class of every model object.
///
/// Subclass it and declare fields with the `@Field` property wrappers. Create
/// objects inside a transaction with `create(Into<T>())`, never with `T()`.
///
/// ```swift
/// final class Person: ManagedObject {
///     @Field.Stored("name") var name: String = ""
///     @Field.Stored("age") var age: Int = 0
/// }
/// ```
///
/// An object belongs to one context and is not `Sendable`; objects of the
/// stack's main context are read-only. Pass ``ObjectID``s between contexts.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// Creates a detached object. Strata calls this when it materializes
    /// objects, and once per class to read its field declarations, so keep
    /// it free of side effects; your code creates objects with
    /// `transaction.create(Into<T>())`.
    public required init() {
        if DeclaredFields.isDescribing { DeclaredFields.initialized(self) }
    }

    /// Makes the object a member of `context`, with values of its own.
    final func attach(to context: ObjectContext, entity: EntityDescription, rowID: Int64) {
        setOwner(Unmanaged.passUnretained(context).toOpaque(), readsFromBatch: false)
        setEntity(entity, of: context)
        self.rowID = rowID
    }

    /// Makes the object a member of the context whose fetch read its row
    /// into `batch` as row `row`, reading its values from there.
    final func attach(
        toRow row: Int, in batch: RowBatch, entity: EntityDescription, rowID: Int64
    ) {
        setOwner(Unmanaged.passUnretained(batch).toOpaque(), readsFromBatch: true)
        batchRow = row
        setEntity(entity, of: batch.context)
        self.rowID = rowID
    }

    /// Records `entity` by its index in `context`'s schema.
    @inline(__always)
    private final func setEntity(_ entity: EntityDescription, of context: ObjectContext) {
        #if STRATA_CHECKED
        checkInvariant(
            context.holds(entity),
            "\(entity.name) is not entity \(entity.index) of its context's schema")
        #endif
        entityIndex = UInt16(truncatingIfNeeded: entity.index)
    }

    deinit {
        withMembership { context, entity in context.objectWillDeinitialize(self, entity) }
        releaseOwner()
        heldChanges?.release()
    }

    // MARK: State kept by the owning context
    //
    // The hot state opts out of dynamic exclusivity checks, which cost more
    // than a field read itself; only the owning context's code touches it, and
    // never with overlapping accesses (the checked build checks that). Every
    // object of a fetch carries this state, so it is kept compact: an object
    // of four fields is 88 bytes, a 96-byte heap block (one more word would
    // take it to 112). The context is not stored: the owner leads to it; nor
    // is the entity: its index in the context's schema is, beside the flags.

    /// What keeps the owning context alive as long as the object, held by
    /// hand (so that reading it costs no retain and release): the row batch
    /// the object reads its values from (which keeps the context; counted
    /// in its ``RowBatch/readerCount``), or, once the object has values of
    /// its own, the context itself, retained; `nil` while detached. Which of
    /// the two it is, `flags` says.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private final var owner: UnsafeMutableRawPointer?

    /// Holds `newOwner` and lets go of the previous owner.
    private final func setOwner(_ newOwner: UnsafeMutableRawPointer, readsFromBatch: Bool) {
        if readsFromBatch {
            let batch = Unmanaged<RowBatch>.fromOpaque(newOwner)
            batch._withUnsafeGuaranteedRef { $0.readerDidAttach() }
        } else {
            _ = Unmanaged<AnyObject>.fromOpaque(newOwner).retain()
        }
        releaseOwner()
        owner = newOwner
        self.readsFromBatch = readsFromBatch
    }

    /// Lets go of the owner, as `setOwner` held it.
    @inline(__always)
    private final func releaseOwner() {
        guard let owner else { return }
        if readsFromBatch {
            RowBatch.readerDidLeave(Unmanaged.fromOpaque(owner))
        } else {
            Unmanaged<AnyObject>.fromOpaque(owner).release()
        }
    }

    /// The owning context, unretained; `nil` for a detached object.
    @inline(__always)
    private final var contextReference: Unmanaged<ObjectContext>? {
        guard let owner else { return nil }
        if readsFromBatch { return Unmanaged<RowBatch>.fromOpaque(owner).takeUnretainedValue().unretainedContext }
        return Unmanaged<ObjectContext>.fromOpaque(owner)
    }

    /// The owning context; `nil` for a detached object.
    final var context: ObjectContext? { contextReference?.takeUnretainedValue() }
    /// The object's entity; `nil` for a detached object.
    final var entity: EntityDescription? { withMembership { _, entity in entity } }

    /// Calls `body` with the owning context and the entity, borrowed without
    /// a retain; `nil` for a detached object. For the paths run per field
    /// access or per object.
    @inline(__always)
    final func withMembership<Result>(
        _ body: (ObjectContext, EntityDescription) -> Result
    ) -> Result? {
        guard let (context, entity) = membership else { return nil }
        return context._withUnsafeGuaranteedRef { context in
            entity._withUnsafeGuaranteedRef { entity in body(context, entity) }
        }
    }

    /// The owning context and the object's entity, unretained (the object
    /// holds the context, the context its schema); `nil` for a detached
    /// object. For the paths run per field read and write, where a closure
    /// given to ``withMembership(_:)`` was left a call.
    @inline(__always)
    final var membership: (context: Unmanaged<ObjectContext>, entity: Unmanaged<EntityDescription>)? {
        guard let contextReference else { return nil }
        let index = Int(entityIndex)
        return (contextReference, contextReference._withUnsafeGuaranteedRef { $0.entityReference(at: index) })
    }

    final var rowID: Int64 = 0
    /// The object's own values, once it has any (see ``values``).
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private final var ownValues = ContiguousArray<StoredValue>()

    /// The rows of the fetch that read this object, unretained (the object
    /// holds it), while it has no values of its own: a fetch reads every row
    /// into one shared buffer instead of an array per object.
    @inline(__always)
    private final var batch: Unmanaged<RowBatch>? {
        readsFromBatch ? Unmanaged<RowBatch>.fromOpaque(owner.unsafelyUnwrapped) : nil
    }

    /// The current values, one per attribute slot of the entity. Setting or
    /// mutating them gives the object its own copy; so does reading them in
    /// a transaction, which reads a whole row to change it (to keep its
    /// baseline, then its flushed values): the row is decoded once.
    final var values: ContiguousArray<StoredValue> {
        get {
            guard let batch else { return ownValues }
            let (row, isReadOnly) = batch._withUnsafeGuaranteedRef { batch in
                (batch.row(batchRow), batch.context.isReadOnly)
            }
            if isReadOnly { return row }
            leaveBatch()
            ownValues = row
            return row
        }
        set {
            leaveBatch()
            ownValues = newValue
        }
        _modify {
            if let batch { ownValues = batch._withUnsafeGuaranteedRef { $0.row(batchRow) } }
            leaveBatch()
            yield &ownValues
        }
    }

    /// Sets the values, handing back the ones the object held of its own
    /// (empty when it read from a row batch) without releasing them, for a
    /// caller that frees many later, out of a latency-bound path.
    final func exchangeValues(_ newValue: ContiguousArray<StoredValue>) -> ContiguousArray<StoredValue> {
        leaveBatch()
        var replaced = newValue
        swap(&ownValues, &replaced)
        return replaced
    }

    /// Stops reading from the row batch; the object now holds the context.
    private final func leaveBatch() {
        guard let batch else { return }
        // The batch may go with the owner it is: take the context first.
        let context = batch._withUnsafeGuaranteedRef { $0.unretainedContext }
        setOwner(context.toOpaque(), readsFromBatch: false)
    }

    /// The value in one slot, without copying the row.
    @inline(__always)
    final func value(at slot: Int) -> StoredValue {
        if let batch { return batch._withUnsafeGuaranteedRef { $0.value(row: batchRow, slot: slot) } }
        return ownValues[slot]
    }

    /// In the main context, the commit generation the object's values were
    /// read at; in a transaction, once the object has changed, its
    /// ``PendingChanges``, retained (`holdsChanges` says which). One word for
    /// both, since a main-context object never changes and a transaction's
    /// objects have no use for a generation: a fetched object stays a
    /// 96-byte heap block.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private final var extra: UInt64 = 0

    /// The changes `extra` holds, unretained; `nil` when it holds a generation.
    @inline(__always)
    private final var heldChanges: Unmanaged<PendingChanges>? {
        guard holdsChanges else { return nil }
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: UInt(extra)).unsafelyUnwrapped)
    }

    /// The commit generation the values were read at (main context); 0 for
    /// an object its transaction changed, where it is not kept.
    final var generation: UInt64 {
        @inline(__always) get { holdsChanges ? 0 : extra }
        set { if !holdsChanges { extra = newValue } }
    }

    /// What only an object changed in a transaction needs; `nil` until then,
    /// so that the objects of a fetch are smaller.
    private final var changes: PendingChanges? {
        @inline(__always) get { heldChanges?.takeUnretainedValue() }
        set {
            let old = heldChanges
            if let newValue {
                extra = UInt64(UInt(bitPattern: Unmanaged.passRetained(newValue).toOpaque()))
            } else {
                extra = 0
            }
            holdsChanges = newValue != nil
            old?.release()
        }
    }

    /// The values when the enclosing transaction first changed the object.
    final var baseline: ContiguousArray<StoredValue>? {
        get { changes?.baseline }
        set { if changes != nil || newValue != nil { updateChanges { $0.baseline = newValue } } }
        _modify { yield &pendingChanges().baseline }
    }

    /// The values as last written to the transaction's store, while unwritten changes exist.
    final var flushed: ContiguousArray<StoredValue>? {
        get { changes?.flushed }
        set { if changes != nil || newValue != nil { updateChanges { $0.flushed = newValue } } }
        _modify { yield &pendingChanges().flushed }
    }

    /// Whether values that cannot be stored are pending: what a field's
    /// fast path asks, with no retain of the changes.
    @inline(__always)
    final var hasInvalidValues: Bool {
        guard let changes = heldChanges else { return false }
        return changes._withUnsafeGuaranteedRef { $0.hasInvalidValues }
    }

    /// Values assigned that cannot be stored; reported at the next flush.
    final var invalidValues: [Int: (value: Any, error: StrataError)]? {
        @inline(__always) get { changes?.invalidValues }
        set { if changes != nil || newValue != nil { updateChanges { $0.invalidValues = newValue } } }
        _modify { yield &pendingChanges().invalidValues }
    }

    private final func pendingChanges() -> PendingChanges {
        if let changes { return changes }
        let created = PendingChanges()
        changes = created
        return created
    }

    /// Applies `update`, creating the changes only to store something in
    /// them and dropping them once they hold nothing.
    private final func updateChanges(_ update: (PendingChanges) -> Void) {
        if let changes {
            update(changes)
            if changes.isEmpty { self.changes = nil }
        } else {
            let created = PendingChanges()
            update(created)
            if !created.isEmpty { changes = created }
        }
    }

    /// The object's slot in its context's identity map, or -1.
    final var identitySlot: Int32 = -1
    /// The object's entity: its index in the context's schema (see
    /// ``ObjectContext/entity(at:)``); a schema has at most 65,536 entities.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private final var entityIndex: UInt16 = 0
    /// The flags below in the low bits, the object's row in `batch` above
    /// them (see ``ObjectFlags``).
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private final var flags = ObjectFlags.written

    /// The object's row in `batch` (a batch holds at most 1,024).
    private final var batchRow: Int {
        @inline(__always) get { flags.batchRow }
        set { flags.batchRow = newValue }
    }

    /// Whether `owner` is the row batch the object reads its values from.
    private final var readsFromBatch: Bool {
        @inline(__always) get { flags.contains(.readsFromBatch) }
        set { flags.set(.readsFromBatch, newValue) }
    }
    final var isInserted: Bool {
        @inline(__always) get { flags.contains(.inserted) }
        set { flags.set(.inserted, newValue) }
    }
    final var isWritten: Bool {
        @inline(__always) get { flags.contains(.written) }
        set { flags.set(.written, newValue) }
    }
    final var isDeleted: Bool {
        @inline(__always) get { flags.contains(.deleted) }
        set { flags.set(.deleted, newValue) }
    }
    /// Whether `extra` holds the object's ``PendingChanges``.
    private final var holdsChanges: Bool {
        @inline(__always) get { flags.contains(.holdsChanges) }
        set { flags.set(.holdsChanges, newValue) }
    }

    // MARK: Identity

    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    open var description: String {
        guard let entity else { return "\(type(of: self)) (detached)" }
        let fields = entity.fieldAttributes.map { "\($0.name): \(value(at: $0.slot))" }
        return "\(entity.name)#\(rowID) { \(fields.joined(separator: ", ")) }"
    }

    /// Whether the object has been deleted, in its transaction or by a commit
    /// merged into the main context.
    public final var isDeletedObject: Bool { isDeleted }

    /// Whether the object has changes its transaction has not committed:
    /// it was created or deleted, a field or to-one relationship holds
    /// another value than at the start, a to-many relationship gained or
    /// lost a member, a field was given a value the commit will refuse
    /// (as Core Data's `hasChanges` is true until validation fails at the
    /// save), or a bulk write (`deleteAll`, `updateAll`) changed its row.
    /// Always `false` in the main context, and once the change is committed
    /// or rolled back: a deleted object then has none.
    public final var hasChanges: Bool {
        // A deletion is a change only while it is pending: a committed one,
        // a rolled-back insert and a merged one leave the context's map.
        if isDeleted { return !isInserted && identitySlot >= 0 }
        if isInserted || hasInvalidValues { return true }
        if let baseline, let entity, entity.hasChangedFields(from: baseline, to: values) { return true }
        return context?.hasChangesBesideFields(self) ?? false
    }
}

/// Gives every ``ManagedObject`` a statically typed ``objectID``.
public protocol ManagedObjectIdentifiable: ManagedObject {}

extension ManagedObject: ManagedObjectIdentifiable {}

extension ManagedObjectIdentifiable {
    /// The object's identity, valid in every context and across runs.
    public var objectID: ObjectID<Self> {
        guard let entity else {
            misuse(
                "Strata: this \(Self.self) was created with \(Self.self)() and has no identity. "
                    + "Create objects inside a transaction with create(Into<\(Self.self)>()).")
        }
        return ObjectID(entityName: entity.name, rowID: rowID, configuration: entity.configuration)
    }
}

extension ContiguousArray where Element == StoredValue {
    func isIdentical(to other: ContiguousArray<StoredValue>) -> Bool {
        count == other.count && indices.allSatisfy { self[$0].isIdentical(to: other[$0]) }
    }
}

/// The state of an object that its transaction changed (see ``ManagedObject``).
final class PendingChanges {
    var baseline: ContiguousArray<StoredValue>?
    var flushed: ContiguousArray<StoredValue>?
    // Unchecked exclusivity (checked in the checked build): read by every
    // field access of a changed object (``hasInvalidValues``), changed only
    // by the owning context, never while a read is in progress.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    var invalidValues: [Int: (value: Any, error: StrataError)]?

    /// Whether ``invalidValues`` holds any, read without copying them.
    var hasInvalidValues: Bool { invalidValues != nil }

    var isEmpty: Bool { baseline == nil && flushed == nil && invalidValues == nil }
}

/// A ``ManagedObject``'s flags in the low ``flagBits`` bits of 16, its row
/// in its row batch in the bits above them (a batch holds at most 1,024
/// rows: ten bits).
struct ObjectFlags: OptionSet {
    var rawValue: UInt16

    static let readsFromBatch = ObjectFlags(rawValue: 1)
    static let inserted = ObjectFlags(rawValue: 2)
    static let written = ObjectFlags(rawValue: 4)
    static let deleted = ObjectFlags(rawValue: 8)
    static let holdsChanges = ObjectFlags(rawValue: 16)

    private static let flagBits: UInt16 = 6

    /// The object's row in its batch.
    var batchRow: Int {
        @inline(__always) get { Int(rawValue >> Self.flagBits) }
        set {
            let row = UInt16(truncatingIfNeeded: newValue) << Self.flagBits
            rawValue = rawValue & (1 << Self.flagBits - 1) | row
        }
    }

    @inline(__always)
    mutating func set(_ flag: ObjectFlags, _ isOn: Bool) {
        if isOn { insert(flag) } else { remove(flag) }
    }
}
