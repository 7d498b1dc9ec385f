/// The context answers the in-memory evaluator's questions (Query's
/// `ObjectGraphReading`): values come from the objects it holds, pending
/// changes included; related objects are its own, loaded when it must.
extension ObjectContext: ObjectGraphReading {
    func value(of field: String, on object: ManagedObject) -> StoredValue {
        guard let slot = object.entity?.slot(of: field) else { return .null }
        return object.value(at: slot)
    }

    func relatedObject(of object: ManagedObject, through name: String) -> ManagedObject? {
        guard let entity = object.entity, let slot = entity.slot(of: name),
            case .integer(let rowID) = object.value(at: slot),
            let relationship = entity.relationships[name],
            let target = schema.entity(named: relationship.target)
        else { return nil }
        return try? existingObject(target, rowID: rowID)
    }

    func relatedObjects(of object: ManagedObject, through name: String) -> [ManagedObject]? {
        guard let relationship = object.entity?.relationships[name] else { return nil }
        return related(of: object, relationship: relationship)
    }
}

/// A transaction's objects as they were when it began: what its reads of
/// the store as committed sort by. A field it changed reads its baseline,
/// the value before its first change; related objects are its own, those
/// it deleted included.
struct CommittedValues: ObjectGraphReading {
    let context: ObjectContext

    func value(of field: String, on object: ManagedObject) -> StoredValue {
        guard let slot = object.entity?.slot(of: field) else { return .null }
        return object.baseline?[slot] ?? object.value(at: slot)
    }

    func relatedObject(of object: ManagedObject, through name: String) -> ManagedObject? {
        guard let entity = object.entity, let relationship = entity.relationships[name],
            case .integer(let rowID) = value(of: name, on: object),
            let target = context.schema.entity(named: relationship.target)
        else { return nil }
        return context.registered(target, rowID) ?? (try? context.existingObject(target, rowID: rowID))
    }

    func relatedObjects(of object: ManagedObject, through name: String) -> [ManagedObject]? {
        context.relatedObjects(of: object, through: name)
    }
}

extension Where {
    /// Whether `object` satisfies the predicate, evaluated in memory with the
    /// same semantics as the SQL it compiles to; `nil` when the predicate holds
    /// raw SQL, which only the store can evaluate. Values are read in the
    /// object's context (a transaction's pending changes included), and
    /// relationships are followed through it.
    ///
    /// ```swift
    /// let adult = Where<Person>(\.$age >= 18)
    /// adult.evaluate(person)   // true or false
    /// ```
    ///
    /// Traps for an object made with `Person()` rather than in a context.
    public func evaluate(_ object: Object) -> Bool? {
        guard let context = object.context else {
            misuse("Strata: evaluate a Where on objects of a context, not ones made with \(Object.self)().")
        }
        return MemoryEvaluator(graph: context).evaluate(predicate, on: object)
    }
}

extension OrderBy {
    /// Whether `a` comes before `b` in this order (then by row ID), exactly as
    /// a fetch sorts them.
    ///
    /// ```swift
    /// let sorted = people.sorted(by: OrderBy(.ascending(\.$name)).areInIncreasingOrder)
    /// ```
    ///
    /// Traps for an object made with `Person()` rather than in a context.
    public func areInIncreasingOrder(_ a: Object, _ b: Object) -> Bool {
        guard let context = a.context else {
            misuse("Strata: order objects of a context, not ones made with \(Object.self)().")
        }
        return MemoryEvaluator(graph: context).order(sortKeySpecs, a, b) == .orderedAscending
    }
}
