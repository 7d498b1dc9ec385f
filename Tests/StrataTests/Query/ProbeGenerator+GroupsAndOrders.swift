import Foundation

@testable import Strata

extension ProbeGenerator {
    // MARK: Tags and groups

    mutating func tag(depth: Int) -> DescribedWhere<ProbeTag> {
        switch random.below(depth > 0 ? 7 : 5) {
        case 0: return probeCompare(\ProbeTag.$label, "label", op(), random.string())
        case 1:
            return probeCompare(
                \ProbeTag.$score, "score", op(), random.chance(0.3) ? nil : random.integer())
        case 2:
            let (pattern, text) = pattern()
            return probeText(\ProbeTag.$label, "label", pattern, text)
        case 3:
            let (a, b) = (tag(depth: 0), tag(depth: 0))
            return random.chance(0.5)
                ? DescribedWhere(a.clause && b.clause, "(\(a.text) && \(b.text))")
                : DescribedWhere(!(a.clause || b.clause), "!(\(a.text) || \(b.text))")
        case 4:
            let value = random.chance(0.5)
            return DescribedWhere(Where(value), "Where(\(value))")
        case 5:
            let inner = item(depth: depth - 1)
            return DescribedWhere(
                .any(\.$items, inner.clause), "Where.any(\\.$items, \(inner.text))")
        default:
            let inner = item(depth: depth - 1)
            return DescribedWhere(
                .all(\.$items, inner.clause), "Where.all(\\.$items, \(inner.text))")
        }
    }

    mutating func group(depth: Int) -> DescribedWhere<ProbeGroup> {
        if depth > 0, random.chance(0.4) {
            let (a, b) = (group(depth: depth - 1), group(depth: depth - 1))
            switch random.below(3) {
            case 0: return DescribedWhere(a.clause && b.clause, "(\(a.text) && \(b.text))")
            case 1: return DescribedWhere(a.clause || b.clause, "(\(a.text) || \(b.text))")
            default: return DescribedWhere(!a.clause, "!(\(a.text))")
            }
        }
        let op = op()
        switch random.below(11) {
        case 0:
            return probeCompare(
                \ProbeGroup.$name, "name", op, random.chance(0.3) ? nil : random.string())
        case 1: return probeCompare(\ProbeGroup.$rank, "rank", op, random.integer())
        case 2:
            return probeCompare(
                \ProbeGroup.$weight, "weight", op, random.chance(0.3) ? nil : random.real())
        case 3:
            return probeCompare(
                \ProbeGroup.$parent ~ \.$parent ~ \.$name, "\\.$parent ~ \\.$parent ~ \\.$name", op,
                random.chance(0.2) && (op == .equal || op == .notEqual) ? nil : random.string())
        case 4:
            let parent: ProbeGroup? = random.chance(0.3) ? nil : someGroup()
            return DescribedWhere(
                \.$parent == parent, "\\.$parent == \(parent.map { "group#\($0.rowID)" } ?? "nil")")
        case 5:
            let inner = item(depth: depth - 1)
            return DescribedWhere(
                .any(\.$items, inner.clause), "Where.any(\\.$items, \(inner.text))")
        case 6:
            let inner = item(depth: depth - 1)
            return DescribedWhere(
                .all(\.$items, inner.clause), "Where.all(\\.$items, \(inner.text))")
        case 7:
            let inner = item(depth: depth - 1)
            return DescribedWhere(
                .none(\.$items, inner.clause), "Where.none(\\.$items, \(inner.text))")
        case 8:
            let number = random.below(5)
            let count = Where<ProbeGroup>.count(\.$items)
            let clause: Where<ProbeGroup>
            switch op {
            case .equal: clause = count == number
            case .notEqual: clause = count != number
            case .less: clause = count < number
            case .lessOrEqual: clause = count <= number
            case .greater: clause = count > number
            case .greaterOrEqual: clause = count >= number
            }
            return DescribedWhere(clause, "count(\\.$items) \(op.symbol) \(number)")
        case 9: return optionalGroupLeaf()
        default:
            let (pattern, text) = pattern()
            return DescribedWhere(
                Where(\ProbeGroup.$parent ~ \.$name, pattern),
                "Where(\\.$parent ~ \\.$name, \(text))")
        }
    }

    // MARK: Orders

    private mutating func direction() -> (
        ascending: Bool, options: TextOptions, nulls: OrderBy<ProbeItem>.NullPlacement, text: String
    ) {
        let ascending = random.chance(0.5)
        let options = random.chance(0.5) ? [] : random.options()
        let nulls = random.pick([OrderBy<ProbeItem>.NullPlacement.automatic, .first, .last])
        return (
            ascending, options, nulls,
            "\(ascending ? "asc" : "desc") \(describeOptions(options)) nulls: \(nulls)"
        )
    }

    private mutating func key<Value: FieldStorable>(
        _ keyPath: KeyPath<ProbeItem, Field.Stored<Value>>, _ name: String
    ) -> (OrderBy<ProbeItem>.SortKey, String) {
        let d = direction()
        let key: OrderBy<ProbeItem>.SortKey =
            d.ascending
            ? .ascending(keyPath, d.options, nulls: d.nulls)
            : .descending(keyPath, d.options, nulls: d.nulls)
        return (key, "\(name) \(d.text)")
    }

    private mutating func key<Value>(
        _ expression: Where<ProbeItem>.Expression<Value>, _ name: String
    ) -> (OrderBy<ProbeItem>.SortKey, String) {
        let d = direction()
        let key: OrderBy<ProbeItem>.SortKey =
            d.ascending
            ? .ascending(expression, d.options, nulls: d.nulls)
            : .descending(expression, d.options, nulls: d.nulls)
        return (key, "\(name) \(d.text)")
    }

    mutating func itemOrder() -> (OrderBy<ProbeItem>, String) {
        var keys: [(OrderBy<ProbeItem>.SortKey, String)] = []
        for _ in 0..<random.below(4) {
            switch random.below(10) {
            case 0: keys.append(key(\.$number, "number"))
            case 1: keys.append(key(\.$maybe, "maybe"))
            case 2: keys.append(key(\.$real, "real"))
            case 3, 4: keys.append(key(\.$text, "text"))
            case 5: keys.append(random.chance(0.5) ? key(\.$note, "note") : key(\.$ratio, "ratio"))
            case 6: keys.append(key(\ProbeItem.$group ~ \.$name, "group.name"))
            case 7: keys.append(key(\ProbeItem.$group ~ \.$weight, "group.weight"))
            case 8: keys.append(key(\ProbeItem.$group ~ \.$parent ~ \.$name, "group.parent.name"))
            default: keys.append(random.chance(0.7) ? key(\.$other, "other") : key(\.$flag, "flag"))
            }
        }
        return (OrderBy(keys.map(\.0)), "[\(keys.map(\.1).joined(separator: ", "))]")
    }
}
