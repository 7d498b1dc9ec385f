/// One object per ID within a context, in a table per entity keyed by row ID.
///
/// A transaction's map holds its objects strongly. The main context's map
/// must not keep objects alive. Weak references would give every object a
/// side table and put each later retain on a slow path, so instead each
/// unretained object sits in a slot of a slab, and `ManagedObject.deinit`
/// empties its slot (an array write, no hashing). A row ID whose slot was
/// emptied or reused is recognised as gone on lookup, and such stale entries
/// are swept out once they outnumber the live ones.
struct IdentityMap {
    enum Ownership { case strong, unretained }

    let ownership: Ownership
    private var strong: [[Int64: ManagedObject]]
    private var unretained: [UnretainedTable]

    init(entityCount: Int, ownership: Ownership) {
        self.ownership = ownership
        strong = Array(repeating: [:], count: ownership == .strong ? entityCount : 0)
        unretained = Array(repeating: UnretainedTable(), count: ownership == .unretained ? entityCount : 0)
    }

    func object(_ entity: EntityDescription, _ rowID: Int64) -> ManagedObject? {
        switch ownership {
        case .strong: return strong[entity.index][rowID]
        case .unretained: return unretained[entity.index].object(rowID)
        }
    }

    mutating func insert(_ object: ManagedObject, _ entity: EntityDescription) {
        switch ownership {
        case .strong: strong[entity.index][object.rowID] = object
        case .unretained: unretained[entity.index].insert(object)
        }
    }

    /// Removes the entry for the object's ID if it is this very object.
    mutating func remove(_ object: ManagedObject, _ entity: EntityDescription) {
        switch ownership {
        case .strong:
            if strong[entity.index][object.rowID] === object { strong[entity.index][object.rowID] = nil }
        case .unretained:
            unretained[entity.index].remove(object)
        }
    }

    func forEach(_ body: (ManagedObject) throws -> Void) rethrows {
        for table in strong { for object in table.values { try body(object) } }
        for table in unretained { try table.forEach(body) }
    }

    mutating func removeAll() {
        for index in strong.indices { strong[index].removeAll() }
        for index in unretained.indices { unretained[index] = UnretainedTable() }
    }
}

/// The unretained table of one entity: row ID -> slab slot -> object.
private struct UnretainedTable {
    private var slots: [Int64: Int] = [:]
    private var slab: [Unmanaged<ManagedObject>?] = []
    private var freeSlots: [Int] = []
    private var liveCount = 0

    func object(_ rowID: Int64) -> ManagedObject? {
        guard let slot = slots[rowID], let entry = slab[slot] else { return nil }
        let object = entry.takeUnretainedValue()
        return object.rowID == rowID ? object : nil
    }

    mutating func insert(_ object: ManagedObject) {
        if let slot = slots[object.rowID], let entry = slab[slot],
           entry.takeUnretainedValue().rowID == object.rowID {
            entry.takeUnretainedValue().identitySlot = -1
            slab[slot] = nil
            freeSlots.append(slot)
            liveCount -= 1
        }
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

    mutating func remove(_ object: ManagedObject) {
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
