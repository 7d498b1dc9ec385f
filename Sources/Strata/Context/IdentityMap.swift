/// One object per ID within a context: a table per entity's table, keyed by
/// row ID. The entities of an inheritance tree share their root's table, as
/// their rows share row IDs: one row is one object whichever entity reached it.
struct IdentityMap {
    private let tables: [EntityObjectTable]
    /// The same tables, unretained, for the path every deinitialized object
    /// takes: borrowing a table from here costs no retain and release.
    private let unretainedTables: [Unmanaged<EntityObjectTable>]

    init(entityCount: Int, ownership: EntityObjectTable.Ownership) {
        tables = (0..<entityCount).map { _ in EntityObjectTable(ownership: ownership) }
        unretainedTables = tables.map { Unmanaged.passUnretained($0) }
    }

    func table(_ entity: EntityDescription) -> EntityObjectTable { tables[entity.tableIndex] }

    func object(_ entity: EntityDescription, _ rowID: Int64) -> ManagedObject? {
        tables[entity.tableIndex].object(rowID)
    }

    func objects(_ entity: EntityDescription, _ rowIDs: [Int64]) -> [ManagedObject?] {
        tables[entity.tableIndex].objects(rowIDs)
    }

    func insert(_ object: ManagedObject, _ entity: EntityDescription) {
        unretainedTables[entity.tableIndex]._withUnsafeGuaranteedRef { $0.insert(object) }
    }

    /// Removes the entry for the object's ID if it is this very object.
    func remove(_ object: ManagedObject, _ entity: EntityDescription) {
        unretainedTables[entity.tableIndex]._withUnsafeGuaranteedRef { $0.remove(object) }
    }

    func forEach(_ body: (ManagedObject) throws -> Void) rethrows {
        for table in tables { try table.forEach(body) }
    }

    /// How many objects the map holds.
    var count: Int { tables.reduce(0) { $0 + $1.count } }

    func removeAll() {
        for table in tables { table.removeAll() }
    }

    /// Lets each table's direct array start at its first live row, or at the
    /// next row ID the transaction gives out (`nextRowIDs`, by table; 0 when
    /// not known): after a transaction retired the objects it created (see
    /// `ObjectContext+Retiring`).
    func trimDirectHeads(nextRowIDs: [Int64]) {
        for (table, next) in zip(tables, nextRowIDs) { table.trimDirectHead(nextRowID: next) }
    }
}

/// The objects of one entity in one context.
///
/// Objects sit in the slots of a slab; row IDs map to slots through a direct
/// array while row IDs are dense (the usual case: SQLite hands them out in
/// order), and through a dictionary past that. The direct array covers the
/// row IDs from `directBase` on: 0 until a transaction lets go of the objects
/// it created and moves it past them (`trimDirectHead`), so that the rows it
/// creates next stay in the array. A transaction's table retains its
/// objects. The main context's must not keep objects alive, and weak
/// references would give every object a side table and slow each retain, so
/// there `ManagedObject.deinit` empties the object's slot (an array write).
/// A row ID whose slot was emptied, or reused by another row, reads as absent.
///
/// A class, so that the manual retains of the strong mode are never copied;
/// its state is only touched from the owning context, never with overlapping
/// accesses, hence unchecked exclusivity (checked in the checked build).
final class EntityObjectTable {
    enum Ownership { case strong, unretained }

    let ownership: Ownership
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var slab: [Unmanaged<ManagedObject>?] = []
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var freeSlots: [Int] = []
    /// Slot + 1 per row ID from `directBase` on, below `directBase +
    /// direct.count`; 0 for none.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var direct: [Int32] = []
    /// The row ID of `direct[0]`; never negative.
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var directBase: Int64 = 0
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var overflow: [Int64: Int] = [:]
    #if !STRATA_CHECKED
    @exclusivity(unchecked)
    #endif
    private var liveCount = 0
    #if STRATA_CHECKED
    private var invariantSchedule = InvariantCheckSchedule()
    #endif

    init(ownership: Ownership) {
        self.ownership = ownership
    }

    deinit {
        #if STRATA_CHECKED
        checkInvariants()
        #endif
        removeAll()
    }

    /// The index of `rowID` in the direct array, when the array covers it.
    @inline(__always)
    private func directIndex(_ rowID: Int64) -> Int? {
        // Wrapping: a row ID far below the base wraps to a huge difference.
        let index = rowID &- directBase
        return index >= 0 && index < Int64(direct.count) ? Int(index) : nil
    }

    private func slot(of rowID: Int64) -> Int? {
        if let index = directIndex(rowID) {
            let entry = direct[index]
            // Never in the overflow too: `setSlot` files covered row IDs here,
            // and `growDirect` moves them in when the array grows over them.
            return entry == 0 ? nil : Int(entry) - 1
        }
        return overflow[rowID]
    }

    @inline(__always)
    private func setSlot(_ slot: Int, for rowID: Int64) {
        checkUsage(slot < Int(Int32.max), "Strata: too many objects in one context")
        // A row ID the direct array covers must be stored there, where
        // `slot(of:)` looks first, even when the array has since grown past
        // what the live objects alone would justify.
        if let index = directIndex(rowID) {
            direct[index] = Int32(slot + 1)
        } else {
            setSlotBeyondDirect(slot, for: rowID)
        }
    }

    private func setSlotBeyondDirect(_ slot: Int, for rowID: Int64) {
        // The direct array grows while it stays at most ~4 entries per live
        // object, and up to 65,536 entries in any case in the main context's
        // table (which lives as long as the stack) or once 64 objects are
        // live. A transaction's table holding a few objects keeps a far row ID
        // in the overflow: an array up to it, allocated and zeroed for each
        // transaction, cost more than a small transaction's own fetch.
        let floor = ownership == .unretained || liveCount >= 64 ? 1 << 16 : 0
        let limit = Int64(max(floor, 4 * (liveCount + 1)))
        let index = rowID &- directBase
        if index >= 0, index < limit {
            if index >= Int64(direct.count) {
                growDirect(to: min(Int(limit), max(Int(index) + 1, direct.count * 2)))
            }
            direct[Int(index)] = Int32(slot + 1)
        } else {
            overflow[rowID] = slot
        }
    }

    /// Drops the direct array's empty entries before its first live one and
    /// moves its base up to there; when less than one entry in 16 is live
    /// and `nextRowID` (the next row ID the transaction gives out) is known,
    /// moves those few to the overflow and starts the array afresh at
    /// `nextRowID`. Called after a transaction retired the objects it
    /// created: their rows leave the array nearly empty, and without this the
    /// rows created next, past its limit of a few entries per live object,
    /// would all go to the overflow (or stay there behind one object someone
    /// still holds). A row below the new base that is registered again goes
    /// to the overflow. The overflow's row IDs whose objects are gone go too.
    func trimDirectHead(nextRowID: Int64) {
        if !overflow.isEmpty { sweepOverflow() }
        let liveIndices = direct.indices.filter { direct[$0] != 0 }
        if liveIndices.count * 16 < direct.count, nextRowID > directBase {
            for index in liveIndices { overflow[directBase + Int64(index)] = Int(direct[index]) - 1 }
            // Past every row just moved, so that none is both here and there.
            directBase = max(nextRowID, directBase + Int64((liveIndices.last ?? -1) + 1))
            direct.removeAll(keepingCapacity: true)
        } else if let firstLive = liveIndices.first, firstLive > 0 {
            direct.removeFirst(firstLive)
            directBase += Int64(firstLive)
        }
    }

    /// Extends the direct array to `size` entries, moving in the row IDs of
    /// the new range that the overflow held: `slot(of:)` reads the direct
    /// array first, so an entry left behind would hide its object.
    private func growDirect(to size: Int) {
        let oldCount = direct.count
        direct.append(contentsOf: repeatElement(0, count: size - oldCount))
        guard !overflow.isEmpty else { return }
        // The new range's row IDs.
        let start = directBase + Int64(oldCount), end = directBase + Int64(size)
        // Whichever is smaller: the new range, or the overflow (the array can
        // grow a few entries at a time while the overflow holds thousands).
        if size - oldCount <= overflow.count {
            for rowID in start..<end {
                if let slot = overflow.removeValue(forKey: rowID) {
                    direct[Int(rowID - directBase)] = Int32(slot + 1)
                }
            }
        } else {
            for (rowID, slot) in overflow where rowID >= start && rowID < end {
                direct[Int(rowID - directBase)] = Int32(slot + 1)
            }
            overflow = overflow.filter { $0.key < start || $0.key >= end }
        }
    }

    /// How many objects the table holds.
    var count: Int { liveCount }

    /// How many row IDs the overflow holds (for tests: the rows the direct array missed).
    var overflowCount: Int { overflow.count }

    func object(_ rowID: Int64) -> ManagedObject? {
        guard let slot = slot(of: rowID), let entry = slab[slot] else { return nil }
        let object = entry.takeUnretainedValue()
        return object.rowID == rowID ? object : nil
    }

    /// The objects held for `rowIDs`, in the same order, `nil` where none is.
    ///
    /// Looked up in passes that retain nothing until the last: a retain is
    /// a locked instruction, which holds back the loads after it, so rows
    /// looked up one at a time wait for each one's cache misses in turn (the
    /// direct array, the slab, the object). Here the processor fetches many
    /// rows' at once; a merge of 10,000 rows at random does this.
    func objects(_ rowIDs: [Int64]) -> [ManagedObject?] {
        let entries = rowIDs.map { rowID in slot(of: rowID).flatMap { slab[$0] } }
        let isLive = zip(entries, rowIDs).map { entry, rowID in
            entry?._withUnsafeGuaranteedRef { $0.rowID == rowID } ?? false
        }
        return entries.indices.map { isLive[$0] ? entries[$0]!.takeUnretainedValue() : nil }
    }

    func insert(_ object: ManagedObject) {
        if let previous = self.object(object.rowID) {
            if previous === object { return }
            remove(previous)
        }
        insertNew(object)
    }

    /// Inserts an object whose row ID the caller just looked up and found absent.
    func insertNew(_ object: ManagedObject) {
        let reference = Unmanaged.passUnretained(object)
        if ownership == .strong { _ = reference.retain() }
        let slot: Int
        if !freeSlots.isEmpty {
            slot = freeSlots.removeLast()
            slab[slot] = reference
        } else {
            slot = slab.count
            slab.append(reference)
        }
        object.identitySlot = Int32(slot)
        liveCount += 1
        setSlot(slot, for: object.rowID)
        if overflow.count > 1_024, overflow.count > 2 * liveCount { sweepOverflow() }
        #if STRATA_CHECKED
        checkAfterChange(to: object, isPresent: true)
        #endif
    }

    /// Removes the object's entry if it is this very object.
    func remove(_ object: ManagedObject) {
        let slot = Int(object.identitySlot)
        guard slot >= 0, slot < slab.count,
              let entry = slab[slot], entry.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
        else { return }
        slab[slot] = nil
        freeSlots.append(slot)
        // Forget the row ID too: left pointing at the slot, a later look-up of
        // the row would read whichever object reuses the slot (a cache miss per
        // row when a fetch repeats one whose objects are gone).
        if let index = directIndex(object.rowID), direct[index] == Int32(truncatingIfNeeded: slot + 1) {
            direct[index] = 0
        }
        object.identitySlot = -1
        liveCount -= 1
        #if STRATA_CHECKED
        // Before the release, which may deinitialize the object.
        checkAfterChange(to: object, isPresent: false)
        #endif
        if ownership == .strong { entry.release() }
    }

    /// Calls `body` with each object, borrowed rather than retained (a
    /// commit visits every object twice): the table holds it, or, in the
    /// main context, its deinit takes it out first. So `body` must not
    /// remove the object it is given, nor drop the last reference to it.
    func forEach(_ body: (ManagedObject) throws -> Void) rethrows {
        for entry in slab { if let entry { try entry._withUnsafeGuaranteedRef { try body($0) } } }
    }

    func removeAll() {
        let entries = slab
        slab = []
        freeSlots = []
        direct = []
        directBase = 0
        overflow = [:]
        liveCount = 0
        for entry in entries {
            guard let entry else { continue }
            entry.takeUnretainedValue().identitySlot = -1
            if ownership == .strong { entry.release() }
        }
        #if STRATA_CHECKED
        checkInvariants()
        #endif
    }

    /// Drops overflow row IDs whose objects are gone.
    private func sweepOverflow() {
        overflow = overflow.filter { rowID, slot in
            slab[slot].map { $0.takeUnretainedValue().rowID == rowID } ?? false
        }
    }

    // MARK: Invariants

    #if DEBUG || STRATA_CHECKED
    /// Checks the whole table: every live object is found by its row ID, in
    /// the slot it records; the free slots are exactly the empty ones; no row
    /// ID the direct array covers is in the overflow too; every slot the
    /// direct array or the overflow names exists. (An entry may name a slot
    /// since emptied or reused by another row: that reads as absent.)
    func checkInvariants() {
        var live = 0
        for (slot, entry) in slab.enumerated() {
            guard let entry else { continue }
            live += 1
            // Borrowed, not retained: in the main context's table an object
            // may be on its way out, and removes itself in its deinit.
            entry._withUnsafeGuaranteedRef { object in
                let rowID = object.rowID
                checkInvariant(
                    Int(object.identitySlot) == slot,
                    "row \(rowID) is in slot \(slot), not its own")
                checkInvariant(
                    self.slot(of: rowID) == slot, "row \(rowID) does not lead to its slot \(slot)")
            }
        }
        checkInvariant(live == liveCount, "\(liveCount) live objects counted, \(live) in the slab")
        checkInvariant(Set(freeSlots).count == freeSlots.count, "a free slot is listed twice")
        checkInvariant(
            freeSlots.allSatisfy { $0 >= 0 && $0 < slab.count && slab[$0] == nil },
            "a listed free slot is in use")
        checkInvariant(
            freeSlots.count + liveCount == slab.count, "an empty slot is not listed as free")
        checkInvariant(
            direct.allSatisfy { Int($0) <= slab.count }, "the direct array names no slot")
        for (rowID, slot) in overflow {
            checkInvariant(
                slot >= 0 && slot < slab.count, "the overflow names no slot for row \(rowID)")
            checkInvariant(
                directIndex(rowID) == nil, "row \(rowID) is in the overflow and the direct array")
        }
    }
    #endif

    #if STRATA_CHECKED
    /// After each change (checked build): what the change touched, then the
    /// whole table when its turn comes.
    private func checkAfterChange(to object: ManagedObject, isPresent: Bool) {
        let slot = Int(object.identitySlot), rowID = object.rowID
        if isPresent {
            let reference = Unmanaged.passUnretained(object).toOpaque()
            checkInvariant(
                slot >= 0 && slot < slab.count && slab[slot]?.toOpaque() == reference,
                "row \(rowID) was inserted, but not into the slot it records")
            checkInvariant(
                self.object(rowID) === object,
                "row \(rowID) does not find the object just inserted")
        } else {
            checkInvariant(slot == -1, "row \(rowID) was removed but records slot \(slot)")
            checkInvariant(
                self.object(rowID) !== object, "row \(rowID) still finds the object just removed")
        }
        checkInvariant(
            freeSlots.count + liveCount == slab.count, "an empty slot is not listed as free")
        if invariantSchedule.isFullCheckDue(size: liveCount) { checkInvariants() }
    }
    #endif
}
