/// One object per ID within a context: a table per entity, keyed by row ID.
struct IdentityMap {
    private var tables: [EntityObjectTable]

    init(entityCount: Int, ownership: EntityObjectTable.Ownership) {
        tables = Array(repeating: EntityObjectTable(ownership: ownership), count: entityCount)
    }

    func object(_ entity: EntityDescription, _ rowID: Int64) -> ManagedObject? {
        tables[entity.index].object(rowID)
    }

    mutating func insert(_ object: ManagedObject, _ entity: EntityDescription) {
        tables[entity.index].insert(object)
    }

    /// Removes the entry for the object's ID if it is this very object.
    mutating func remove(_ object: ManagedObject, _ entity: EntityDescription) {
        tables[entity.index].remove(object)
    }

    /// Gives `body` the entity's table for a whole batch, such as a fetch loop:
    /// one exclusive access instead of one per object.
    mutating func withTable<Result>(
        _ entity: EntityDescription, _ body: (inout EntityObjectTable) throws -> Result
    ) rethrows -> Result {
        try body(&tables[entity.index])
    }

    func forEach(_ body: (ManagedObject) throws -> Void) rethrows {
        for table in tables { try table.forEach(body) }
    }

    mutating func removeAll() {
        for index in tables.indices { tables[index] = EntityObjectTable(ownership: tables[index].ownership) }
    }
}

/// The objects of one entity in one context.
///
/// A transaction's table holds its objects strongly. The main context's must
/// not keep objects alive. Weak references would give every object a side
/// table and put each later retain on a slow path, so instead each object sits
/// unretained in a slot of a slab, and `ManagedObject.deinit` empties its slot
/// (an array write, no hashing). A row ID whose slot was emptied or reused is
/// recognised as gone on lookup; such stale row IDs are swept out once they
/// outnumber the live ones.
struct EntityObjectTable {
    enum Ownership { case strong, unretained }

    let ownership: Ownership
    private var strong: [Int64: ManagedObject] = [:]
    private var slots: [Int64: Int] = [:]
    private var slab: [Unmanaged<ManagedObject>?] = []
    private var freeSlots: [Int] = []
    private var liveCount = 0

    init(ownership: Ownership) {
        self.ownership = ownership
    }

    func object(_ rowID: Int64) -> ManagedObject? {
        if ownership == .strong { return strong[rowID] }
        guard let slot = slots[rowID], let entry = slab[slot] else { return nil }
        let object = entry.takeUnretainedValue()
        return object.rowID == rowID ? object : nil
    }

    mutating func insert(_ object: ManagedObject) {
        if ownership == .strong {
            strong[object.rowID] = object
            return
        }
        if let previous = self.object(object.rowID) { remove(previous) }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slab[slot] = Unmanaged.passUnretained(object)
        } else {
            slot = slab.count
            slab.append(Unmanaged.passUnretained(object))
        }
        object.identitySlot = slot
        slots[object.rowID] = slot
        liveCount += 1
        if slots.count > 1_024, slots.count > 2 * liveCount { sweep() }
    }

    /// Removes the object's entry if it is this very object.
    mutating func remove(_ object: ManagedObject) {
        if ownership == .strong {
            if strong[object.rowID] === object { strong[object.rowID] = nil }
            return
        }
        let slot = object.identitySlot
        guard slot >= 0, slot < slab.count,
              slab[slot]?.toOpaque() == Unmanaged.passUnretained(object).toOpaque()
        else { return }
        slab[slot] = nil
        freeSlots.append(slot)
        object.identitySlot = -1
        liveCount -= 1
    }

    func forEach(_ body: (ManagedObject) throws -> Void) rethrows {
        for object in strong.values { try body(object) }
        for entry in slab { if let entry { try body(entry.takeUnretainedValue()) } }
    }

    /// Drops row IDs whose objects are gone.
    private mutating func sweep() {
        var live: [Int64: Int] = [:]
        live.reserveCapacity(liveCount)
        for (slot, entry) in slab.enumerated() {
            if let entry { live[entry.takeUnretainedValue().rowID] = slot }
        }
        slots = live
    }
}
