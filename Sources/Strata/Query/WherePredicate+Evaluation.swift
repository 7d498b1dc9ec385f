import Foundation

/// What the in-memory evaluator asks of the objects it reads: a field's
/// value and the objects a relationship leads to. The context layer answers
/// (`ObjectContext`, in `Context/ObjectContext+Evaluating.swift`), reading
/// pending changes and loading related objects as it must; Query itself
/// knows no context.
protocol ObjectGraphReading {
    /// The value of the stored field (or to-one relationship's foreign key)
    /// named `field` of `object`; NULL when its entity has no such field.
    func value(of field: String, on object: ManagedObject) -> StoredValue
    /// The object the to-one relationship `name` of `object` points to;
    /// `nil` when it points nowhere or there is no such relationship.
    func relatedObject(of object: ManagedObject, through name: String) -> ManagedObject?
    /// The objects the to-many relationship `name` of `object` holds; `nil`
    /// when its entity has no such relationship.
    func relatedObjects(of object: ManagedObject, through name: String) -> [ManagedObject]?
}

/// Evaluates predicates and sort keys on objects in memory, with exactly the
/// semantics of the SQL the same tree compiles to (see `WherePredicate+SQL`).
struct MemoryEvaluator<Graph: ObjectGraphReading> {
    let graph: Graph

    /// The value at `path` on `object`: NULL when a relationship on the way is nil.
    func value(_ path: ValuePath, of object: ManagedObject) -> StoredValue {
        var current = object
        for name in path.relationships {
            guard let next = graph.relatedObject(of: current, through: name) else { return .null }
            current = next
        }
        guard let field = path.field else { return .integer(current.rowID) }
        return graph.value(of: field, on: current)
    }

    /// Whether `object` satisfies the predicate; `nil` when it holds raw SQL.
    func evaluate(_ predicate: WherePredicate, on object: ManagedObject) -> Bool? {
        switch predicate {
        case .constant(let value):
            return value
        case let .compare(path, op, operand):
            if path.isDecimal, op != .equal, op != .notEqual {
                return Self.compare(
                    DecimalOrdering.sortValue(value(path, of: object)), op, DecimalOrdering.sortValue(operand))
            }
            return Self.compare(value(path, of: object), op, operand)
        case let .isIn(path, values):
            return values.contains(value(path, of: object))
        case let .between(path, lower, upper):
            var (lhs, lower, upper) = (value(path, of: object), lower, upper)
            if path.isDecimal {
                // Each value's key once; other values compare as they are.
                (lhs, lower, upper) = (
                    DecimalOrdering.sortValue(lhs), DecimalOrdering.sortValue(lower), DecimalOrdering.sortValue(upper))
            }
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
            guard let next = graph.relatedObject(of: current, through: link) else { return nil }
            current = next
        }
        return graph.relatedObjects(of: current, through: name)
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
    func order(_ keys: [SortKeySpec], _ a: ManagedObject, _ b: ManagedObject) -> ComparisonResult {
        let result = SortKeySpec.order(keys, sortValues(keys, of: a), sortValues(keys, of: b))
        guard result == .orderedSame else { return result }
        return a.rowID < b.rowID ? .orderedAscending : (a.rowID > b.rowID ? .orderedDescending : .orderedSame)
    }

    /// The values `object` sorts by under `keys`, text folded as each key says.
    func sortValues(_ keys: [SortKeySpec], of object: ManagedObject) -> [StoredValue] {
        keys.map { key in
            let value = value(key.path, of: object)
            if key.path.isDecimal { return DecimalOrdering.sortValue(value) }
            if !key.options.isEmpty, case .text(let text) = value {
                return .text(TextMatching.fold(text, key.options))
            }
            return value
        }
    }

}

/// A sort key as the in-memory evaluator takes it.
struct SortKeySpec {
    var path: ValuePath
    var ascending: Bool
    var options: TextOptions
    var nullsFirst: Bool

    /// The order of two objects' sort values (``MemoryEvaluator/sortValues(_:of:)``)
    /// under `keys`, as SQL sorts them; `.orderedSame` when every key ties.
    static func order(_ keys: [SortKeySpec], _ left: [StoredValue], _ right: [StoredValue]) -> ComparisonResult {
        for (key, (left, right)) in zip(keys, zip(left, right)) {
            if left.isNull != right.isNull {
                return left.isNull == key.nullsFirst ? .orderedAscending : .orderedDescending
            }
            let result = StoredValue.sqliteOrder(left, right)
            if result != .orderedSame {
                return key.ascending ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending)
            }
        }
        return .orderedSame
    }
}

extension OrderBy {
    /// The keys as the in-memory evaluator takes them.
    var sortKeySpecs: [SortKeySpec] {
        keys.map { SortKeySpec(path: $0.path, ascending: $0.isAscending, options: $0.options, nullsFirst: $0.nullsFirst) }
    }
}
