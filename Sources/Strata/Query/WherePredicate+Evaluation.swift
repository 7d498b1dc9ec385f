import Foundation

/// Evaluates predicates and sort keys on objects in memory, with exactly the
/// semantics of the SQL the same tree compiles to (see `WherePredicate+SQL`).
struct MemoryEvaluator {
    let context: ObjectContext

    /// The value at `path` on `object`: NULL when a relationship on the way is nil.
    func value(_ path: ValuePath, of object: ManagedObject) -> StoredValue {
        var current = object
        for name in path.relationships {
            guard let next = related(current, name) else { return .null }
            current = next
        }
        guard let field = path.field else { return .integer(current.rowID) }
        guard let slot = current.entity?.slot(of: field) else { return .null }
        return current.value(at: slot)
    }

    private func related(_ object: ManagedObject, _ name: String) -> ManagedObject? {
        guard let entity = object.entity, let slot = entity.slot(of: name),
              case .integer(let rowID) = object.value(at: slot),
              let relationship = entity.relationships[name],
              let target = context.schema.entity(named: relationship.target)
        else { return nil }
        return try? context.existingObject(target, rowID: rowID)
    }

    /// Whether `object` satisfies the predicate; `nil` when it holds raw SQL.
    func evaluate(_ predicate: WherePredicate, on object: ManagedObject) -> Bool? {
        switch predicate {
        case .constant(let value):
            return value
        case let .compare(path, op, operand):
            return Self.compare(value(path, of: object), op, operand)
        case let .isIn(path, values):
            return values.contains(value(path, of: object))
        case let .between(path, lower, upper):
            let lhs = value(path, of: object)
            guard let low = StoredValue.sqliteCompare(lhs, lower),
                  let high = StoredValue.sqliteCompare(lhs, upper)
            else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case let .text(path, operation, pattern, options):
            guard let text = Self.text(value(path, of: object)) else { return false }
            return TextMatching.matches(text, operation, pattern, options)
        case .and(let terms):
            var result: Bool? = true
            for term in terms.terms {
                guard let value = evaluate(term, on: object) else { result = nil; continue }
                if !value { return false }
            }
            return result
        case .or(let terms):
            var result: Bool? = false
            for term in terms.terms {
                guard let value = evaluate(term, on: object) else { result = nil; continue }
                if value { return true }
            }
            return result
        case .not(let inner):
            return evaluate(inner, on: object).map { !$0 }
        case let .members(owner, name, quantifier, inner):
            // A broken path to the owner reads as no members, as the SQL's subquery does.
            let members = members(of: object, owner, name) ?? []
            var results: [Bool] = []
            for member in members {
                guard let value = evaluate(inner, on: member) else { return nil }
                results.append(value)
            }
            switch quantifier {
            case .any: return results.contains(true)
            case .none: return !results.contains(true)
            case .all: return results.allSatisfy { $0 }
            }
        case let .count(owner, name, op, number):
            let count = members(of: object, owner, name)?.count ?? 0
            return Self.compare(.integer(Int64(count)), op, .integer(Int64(number)))
        case .sql:
            return nil
        case .invalid:
            return false
        }
    }

    /// The members of the to-many relationship `name` of the object at `owner`.
    private func members(of object: ManagedObject, _ owner: ValuePath, _ name: String) -> [ManagedObject]? {
        var current = object
        for link in owner.relationships + [owner.field].compactMap({ $0 }) {
            guard let next = related(current, link) else { return nil }
            current = next
        }
        guard let relationship = current.entity?.relationships[name] else { return nil }
        return context.related(of: current, relationship: relationship)
    }

    /// An SQL comparison: false when a NULL is involved, except for the
    /// NULL-aware `IS` / `IS NOT` forms that `==` and `!=` compile to.
    static func compare(_ lhs: StoredValue, _ op: WherePredicate.Comparison, _ rhs: StoredValue) -> Bool {
        switch op {
        case .equal:
            if lhs.isNull || rhs.isNull { return lhs.isNull && rhs.isNull }
            return StoredValue.sqliteOrder(lhs, rhs) == .orderedSame
        case .notEqual:
            if lhs.isNull || rhs.isNull { return lhs.isNull != rhs.isNull }
            return StoredValue.sqliteOrder(lhs, rhs) != .orderedSame
        case .less: return StoredValue.sqliteCompare(lhs, rhs) == .orderedAscending
        case .lessOrEqual: return StoredValue.sqliteCompare(lhs, rhs).map { $0 != .orderedDescending } ?? false
        case .greater: return StoredValue.sqliteCompare(lhs, rhs) == .orderedDescending
        case .greaterOrEqual: return StoredValue.sqliteCompare(lhs, rhs).map { $0 != .orderedAscending } ?? false
        }
    }

    /// A value as SQLite's text functions see it; `nil` for NULL.
    static func text(_ value: StoredValue) -> String? {
        switch value {
        case .null: return nil
        case .text(let text): return text
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        }
    }

    // MARK: Ordering

    /// The order of two objects under `keys`, then by row ID, as SQL sorts them.
    func order(_ keys: [(path: ValuePath, ascending: Bool, options: TextOptions, nullsFirst: Bool)],
               _ a: ManagedObject, _ b: ManagedObject) -> ComparisonResult {
        for key in keys {
            var left = value(key.path, of: a)
            var right = value(key.path, of: b)
            if !key.options.isEmpty {
                if case .text(let text) = left { left = .text(TextMatching.fold(text, key.options)) }
                if case .text(let text) = right { right = .text(TextMatching.fold(text, key.options)) }
            }
            if left.isNull != right.isNull {
                return left.isNull == key.nullsFirst ? .orderedAscending : .orderedDescending
            }
            let result = StoredValue.sqliteOrder(left, right)
            if result != .orderedSame {
                return key.ascending ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending)
            }
        }
        return a.rowID < b.rowID ? .orderedAscending : (a.rowID > b.rowID ? .orderedDescending : .orderedSame)
    }
}

extension Where {
    /// Whether `object` satisfies the predicate, evaluated in memory with the
    /// same semantics as the SQL it compiles to; `nil` when the predicate holds
    /// raw SQL, which only the store can evaluate.
    ///
    /// ```swift
    /// let adult = Where<Person>(\.$age >= 18)
    /// adult.evaluate(person)   // true or false
    /// ```
    public func evaluate(_ object: Object) -> Bool? {
        guard let context = object.context else {
            misuse("Strata: evaluate a Where on objects of a context, not ones made with \(Object.self)().")
        }
        return MemoryEvaluator(context: context).evaluate(predicate, on: object)
    }
}

extension OrderBy {
    /// Whether `a` comes before `b` in this order (then by row ID), exactly as
    /// a fetch sorts them.
    public func areInIncreasingOrder(_ a: Object, _ b: Object) -> Bool {
        guard let context = a.context else {
            misuse("Strata: order objects of a context, not ones made with \(Object.self)().")
        }
        let specs = keys.map { ($0.path, $0.isAscending, $0.options, $0.nullsFirst) }
        return MemoryEvaluator(context: context).order(specs, a, b) == .orderedAscending
    }
}
