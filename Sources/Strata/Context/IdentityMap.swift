/// One object per ID within a context, in a table per entity keyed by row ID.
///
/// A transaction's map holds its objects strongly. The main context's map is
/// unretained, so that it does not keep objects alive: a weak reference would
/// give every object a side table and put each later retain on a slow path, so
/// instead `ManagedObject.deinit` removes its own entry and every entry left
/// in the map is alive.
struct IdentityMap {
    enum Ownership { case strong, unretained }

    let ownership: Ownership
    private var strong: [[Int64: ManagedObject]]
    private var unretained: [[Int64: Unmanaged<ManagedObject>]]

    init(entityCount: Int, ownership: Ownership) {
        self.ownership = ownership
        strong = Array(repeating: [:], count: ownership == .strong ? entityCount : 0)
        unretained = Array(repeating: [:], count: ownership == .unretained ? entityCount : 0)
    }

    func object(_ entity: EntityDescription, _ rowID: Int64) -> ManagedObject? {
        switch ownership {
        case .strong: return strong[entity.index][rowID]
        case .unretained: return unretained[entity.index][rowID]?.takeUnretainedValue()
        }
    }

    mutating func insert(_ object: ManagedObject, _ entity: EntityDescription) {
        switch ownership {
        case .strong: strong[entity.index][object.rowID] = object
        case .unretained: unretained[entity.index][object.rowID] = Unmanaged.passUnretained(object)
        }
    }

    /// Removes the entry for the object's ID if it is this very object.
    mutating func remove(_ object: ManagedObject, _ entity: EntityDescription) {
        switch ownership {
        case .strong:
            if strong[entity.index][object.rowID] === object { strong[entity.index][object.rowID] = nil }
        case .unretained:
            let mine = Unmanaged.passUnretained(object).toOpaque()
            if unretained[entity.index][object.rowID]?.toOpaque() == mine {
                unretained[entity.index][object.rowID] = nil
            }
        }
    }

    func forEach(_ body: (ManagedObject) throws -> Void) rethrows {
        for table in strong { for object in table.values { try body(object) } }
        for table in unretained { for entry in table.values { try body(entry.takeUnretainedValue()) } }
    }

    mutating func removeAll() {
        for index in strong.indices { strong[index].removeAll() }
        for index in unretained.indices { unretained[index].removeAll() }
    }
}
