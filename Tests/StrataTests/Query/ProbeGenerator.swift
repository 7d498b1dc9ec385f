import Foundation

@testable import Strata

// MARK: Generator

/// Random predicates and orders over the probe model, using every operator.
struct ProbeGenerator {
    var random: ProbeRandom
    let groups: [ProbeGroup]
    let tags: [ProbeTag]
    /// Whether to build, through the internal tree, comparisons of a field
    /// with values of another storage class, which the typed API never
    /// makes. SQLite compares them (never equal, but integers beside reals);
    /// PostgreSQL refuses a value its column's type cannot hold.
    var mixesStorageClasses = true

    mutating func op() -> ProbeComparison { random.pick(ProbeComparison.allCases) }

    /// A random text pattern and its description.
    mutating func pattern() -> (TextPattern, String) {
        let options = random.options()
        var text = random.string()
        if random.chance(0.4), !text.isEmpty {
            // A piece of a stored value, so that matches are common.
            let characters = Array(text)
            let start = random.below(characters.count)
            let end = start + random.below(characters.count - start + 1)
            text = String(characters[start..<end])
        }
        let described = "\(probeDescription(text)), \(describeOptions(options))"
        switch random.below(4) {
        case 0: return (.hasPrefix(text, options), ".hasPrefix(\(described))")
        case 1: return (.hasSuffix(text, options), ".hasSuffix(\(described))")
        case 2: return (.contains(text, options), ".contains(\(described))")
        default:
            var characters = Array(text)
            for index in characters.indices where random.chance(0.3) {
                characters[index] = random.chance(0.5) ? "*" : "?"
            }
            if random.chance(0.3) { characters.insert("*", at: random.below(characters.count + 1)) }
            let like = String(characters)
            return (
                .like(like, options),
                ".like(\(probeDescription(like)), \(describeOptions(options)))"
            )
        }
    }

    mutating func someGroup() -> ProbeGroup { random.pick(groups) }

    // MARK: Items

    mutating func item(depth: Int) -> DescribedWhere<ProbeItem> {
        if depth <= 0 || random.chance(0.4) { return itemLeaf(depth: depth) }
        switch random.below(8) {
        case 0:
            let (a, b) = (item(depth: depth - 1), item(depth: depth - 1))
            return DescribedWhere(a.clause && b.clause, "(\(a.text) && \(b.text))")
        case 1:
            let (a, b) = (item(depth: depth - 1), item(depth: depth - 1))
            return DescribedWhere(a.clause || b.clause, "(\(a.text) || \(b.text))")
        case 2:
            let a = item(depth: depth - 1)
            return DescribedWhere(!a.clause, "!(\(a.text))")
        case 3:
            let terms = (0..<random.below(5)).map { _ in item(depth: depth - 1) }
            return DescribedWhere(
                .all(terms.map(\.clause)),
                "Where.all([\(terms.map(\.text).joined(separator: ", "))])")
        case 4:
            let terms = (0..<random.below(5)).map { _ in item(depth: depth - 1) }
            return DescribedWhere(
                .any(terms.map(\.clause)),
                "Where.any([\(terms.map(\.text).joined(separator: ", "))])")
        case 5, 6:
            let a: DescribedWhere<ProbeItem>? = random.chance(0.3) ? nil : item(depth: depth - 1)
            let b: DescribedWhere<ProbeItem>? = random.chance(0.3) ? nil : item(depth: depth - 1)
            let conjunction = random.below(2) == 0
            let combined = conjunction ? a?.clause &&? b?.clause : a?.clause ||? b?.clause
            let text = "(\(a?.text ?? "nil") \(conjunction ? "&&?" : "||?") \(b?.text ?? "nil"))"
            return combined.map { DescribedWhere($0, text) }
                ?? DescribedWhere(Where(true), "\(text) ?? Where(true)")
        default:
            let a = item(depth: depth - 1)
            return DescribedWhere(Where(a.clause), "Where(\(a.text))")
        }
    }

    private mutating func itemLeaf(depth: Int) -> DescribedWhere<ProbeItem> {
        switch random.below(23) {
        case 0: return probeCompare(\ProbeItem.$number, "number", op(), random.integer())
        case 1: return probeCompare(\ProbeItem.$other, "other", op(), random.integer())
        case 2:
            return probeCompare(
                \ProbeItem.$maybe, "maybe", op(), random.chance(0.3) ? nil : random.integer())
        case 3: return probeCompare(\ProbeItem.$real, "real", op(), random.real())
        case 4: return probeCompare(\ProbeItem.$text, "text", op(), random.string())
        case 5:
            return probeCompare(
                \ProbeItem.$note, "note", op(), random.chance(0.3) ? nil : random.string())
        case 6: return itemMembership()
        case 7: return itemRange()
        case 8:
            let (pattern, text) = pattern()
            return random.chance(0.5)
                ? probeText(\ProbeItem.$text, "text", pattern, text)
                : probeText(\ProbeItem.$note, "note", pattern, text)
        case 9 where mixesStorageClasses: return integerBesideReal()
        case 9: return itemMembership()
        case 10, 11: return itemPath()
        case 12: return itemRelationship()
        case 13 where depth > 0 && random.chance(0.4):
            return groupMembers(depth: depth)
        case 13, 14:
            let inner = tag(depth: depth - 1)
            switch random.below(3) {
            case 0:
                return DescribedWhere(
                    .any(\.$tags, inner.clause), "Where.any(\\.$tags, \(inner.text))")
            case 1:
                return DescribedWhere(
                    .all(\.$tags, inner.clause), "Where.all(\\.$tags, \(inner.text))")
            default:
                return DescribedWhere(
                    .none(\.$tags, inner.clause), "Where.none(\\.$tags, \(inner.text))")
            }
        case 15:
            switch random.below(3) {
            case 0: return countOf(Where<ProbeItem>.count(\.$group ~ \.$items), "count(\\.$group ~ \\.$items)")
            case 1:
                return countOf(
                    Where<ProbeItem>.count(\.$group ~ \.$parent ~ \.$items), "count(\\.$group ~ \\.$parent ~ \\.$items)")
            default: return countOf(Where<ProbeItem>.count(\.$tags), "count(\\.$tags)")
            }
        case 16:
            let value = random.below(2) == 0
            return random.chance(0.5)
                ? DescribedWhere(Where(value), "Where(\(value))")
                : (value
                    ? DescribedWhere(.all([]), "Where.all([])")
                    : DescribedWhere(.any([]), "Where.any([])"))
        case 17:
            // An OR of equalities on one field (the compiler merges it into IN).
            let values = (0..<(2 + random.below(4))).map { _ in
                random.chance(0.2) ? nil : random.integer()
            }
            return DescribedWhere(
                .any(values.map { \ProbeItem.$maybe == $0 }),
                "Where.any(\(values.map { "\\.$maybe == \($0.map(probeDescription) ?? "nil")" }))")
        case 18, 19, 20: return optionalItemLeaf()
        default:
            return probeCompare(\ProbeItem.$number, "number", op(), random.integer())
        }
    }

    /// A member test of the items of the item's group, or of its group's
    /// parent: a to-many relationship at the end of a to-one path.
    private mutating func groupMembers(depth: Int) -> DescribedWhere<ProbeItem> {
        let inner = item(depth: depth - 1)
        let (members, path) = random.chance(0.5)
            ? (\ProbeItem.$group ~ \.$items, "\\.$group ~ \\.$items")
            : (\ProbeItem.$group ~ \.$parent ~ \.$items, "\\.$group ~ \\.$parent ~ \\.$items")
        switch random.below(3) {
        case 0: return DescribedWhere(.any(members, inner.clause), "Where.any(\(path), \(inner.text))")
        case 1: return DescribedWhere(.all(members, inner.clause), "Where.all(\(path), \(inner.text))")
        default: return DescribedWhere(.none(members, inner.clause), "Where.none(\(path), \(inner.text))")
        }
    }

    private mutating func countOf(_ count: Where<ProbeItem>.RelationshipCount, _ name: String)
        -> DescribedWhere<ProbeItem>
    {
        let number = random.below(4)
        let op = op()
        let clause: Where<ProbeItem>
        switch op {
        case .equal: clause = count == number
        case .notEqual: clause = count != number
        case .less: clause = count < number
        case .lessOrEqual: clause = count <= number
        case .greater: clause = count > number
        case .greaterOrEqual: clause = count >= number
        }
        return DescribedWhere(clause, "\(name) \(op.symbol) \(number)")
    }

    /// Memberships of every storage class, inline (a few values) and bound as
    /// one list (more than `SQLCompiler.largestInlineList`).
    private mutating func itemMembership() -> DescribedWhere<ProbeItem> {
        let large = random.chance(0.5)
        let count = large ? SQLCompiler.largestInlineList + 1 + random.below(64) : random.below(6)
        switch random.below(mixesStorageClasses ? 10 : 9) {
        case 0:
            let values = (0..<count).map { _ in random.integer() }
            return DescribedWhere(Where(\.$number, in: values), "Where(\\.$number, in: \(values))")
        case 1:
            let values = (0..<count).map { _ in random.chance(0.25) ? nil : random.integer() }
            return DescribedWhere(Where(\.$maybe, in: values), "Where(\\.$maybe, in: \(values))")
        case 2:
            let values = (0..<count).map { _ in random.real() }
            return DescribedWhere(Where(\.$real, in: values), "Where(\\.$real, in: \(values))")
        case 3:
            let values = (0..<count).map { _ in random.string() }
            return DescribedWhere(
                values ~= \ProbeItem.$text, "\(values.map(probeDescription)) ~= \\.$text")
        case 4:
            let values = (0..<count).map { _ in random.chance(0.25) ? nil : random.string() }
            return DescribedWhere(Where(\.$note, in: values), "Where(\\.$note, in: \(values))")
        case 5:
            let values = (0..<count).map { _ in random.chance(0.25) ? nil : random.string() }
            return DescribedWhere(
                Where(\.$group ~ \.$name, in: values), "Where(\\.$group ~ \\.$name, in: \(values))")
        case 6:
            // Whole numbers among fractions, so reals meet the integers 2^53 and 2^53 + 1.
            let values = (0..<count).map { _ in random.chance(0.3) ? Double(random.integer()) : random.real() }
            return DescribedWhere(Where(\.$real, in: values), "Where(\\.$real, in: \(values))")
        case 7:
            let values = (0..<count).map { _ in random.blob() }
            return DescribedWhere(
                Where(\.$data, in: values), "Where(\\.$data, in: \(values.map { Array($0) }))")
        case 8:
            let values = (0..<count).map { _ in random.integer() }
            return DescribedWhere(
                Where(\.$group ~ \.$rank, in: values), "Where(\\.$group ~ \\.$rank, in: \(values))")
        default:
            // Every storage class at once, against any field, through the internal tree:
            // only equal values of one class (or integer beside real) may match.
            let field = random.pick(["number", "maybe", "real", "text", "note", "data"])
            let values = (0..<count).map { _ in random.storedValue() }
            return DescribedWhere(
                Where(.isIn(ValuePath(field: field), StoredValueSet(values))), "\(field) IN \(values)")
        }
    }

    private mutating func itemRange() -> DescribedWhere<ProbeItem> {
        switch random.below(5) {
        case 0:
            let (a, b) = (random.integer(), random.integer())
            let range = min(a, b)...max(a, b)
            return DescribedWhere(
                Where(\.$number, between: range), "Where(\\.$number, between: \(range))")
        case 1:
            let (a, b) = (random.real(), random.real())
            let range = min(a, b)...max(a, b)
            return DescribedWhere(
                Where(\.$real, between: range), "Where(\\.$real, between: \(range))")
        case 2:
            let (a, b) = (random.string(), random.string())
            let range = min(a, b)...max(a, b)
            return DescribedWhere(
                Where(\.$text, between: range),
                "Where(\\.$text, between: \(probeDescription(range)))")
        case 3:
            let (a, b) = (random.integer(), random.integer())
            let range = min(a, b)...max(a, b)
            return DescribedWhere(
                Where(\.$group ~ \.$rank, between: range),
                "Where(\\.$group ~ \\.$rank, between: \(range))")
        default:
            let (a, b) = (random.integer(), random.integer())
            let range = min(a, b)...max(a, b)
            return DescribedWhere(
                Where(\.$group ~ \.$parent ~ \.$rank, between: range),
                "Where(\\.$group ~ \\.$parent ~ \\.$rank, between: \(range))")
        }
    }

    /// Integer fields compared with reals and real fields with integers, as
    /// built by the internal tree (the typed API always matches the field's type).
    private mutating func integerBesideReal() -> DescribedWhere<ProbeItem> {
        let op = op()
        let integer = random.integer()
        let real = random.chance(0.5) ? Double(integer) : random.real()
        switch random.below(4) {
        case 0:
            return DescribedWhere(
                Where(.compare(ValuePath(field: "number"), op.raw, .real(real))),
                "number \(op.symbol) .real(\(real))")
        case 1:
            return DescribedWhere(
                Where(.compare(ValuePath(field: "real"), op.raw, .integer(Int64(integer)))),
                "real \(op.symbol) .integer(\(integer))")
        case 2:
            let values: [StoredValue] = [
                .real(real), .integer(Int64(integer)), .real(random.real()),
            ]
            return DescribedWhere(
                Where(.isIn(ValuePath(field: "number"), StoredValueSet(values))), "number IN \(values)")
        default:
            return DescribedWhere(
                Where(.isIn(ValuePath(field: "real"), StoredValueSet([.integer(Int64(integer))]))),
                "real IN [\(integer)]")
        }
    }

    private mutating func itemPath() -> DescribedWhere<ProbeItem> {
        let op = op()
        let isNil = (op == .equal || op == .notEqual) && random.chance(0.25)
        switch random.below(8) {
        case 0:
            return probeCompare(
                \ProbeItem.$group ~ \.$name, "\\.$group ~ \\.$name", op,
                isNil ? nil : random.string())
        case 1:
            return probeCompare(
                \ProbeItem.$group ~ \.$rank, "\\.$group ~ \\.$rank", op,
                isNil ? nil : random.integer())
        case 2:
            return probeCompare(
                \ProbeItem.$group ~ \.$weight, "\\.$group ~ \\.$weight", op,
                isNil ? nil : random.real())
        case 3:
            return probeCompare(
                \ProbeItem.$group ~ \.$parent ~ \.$name, "\\.$group ~ \\.$parent ~ \\.$name", op,
                isNil ? nil : random.string())
        case 4:
            return probeCompare(
                \ProbeItem.$group ~ \.$parent ~ \.$weight, "\\.$group ~ \\.$parent ~ \\.$weight",
                op,
                isNil ? nil : random.real())
        case 5:
            let (pattern, text) = pattern()
            return DescribedWhere(
                Where(\ProbeItem.$group ~ \.$name, pattern), "Where(\\.$group ~ \\.$name, \(text))")
        case 6:
            let (pattern, text) = pattern()
            return DescribedWhere(
                Where(\ProbeItem.$group ~ \.$parent ~ \.$name, pattern),
                "Where(\\.$group ~ \\.$parent ~ \\.$name, \(text))")
        default:
            let values = (0..<random.below(5)).map { _ in random.integer() }
            return DescribedWhere(
                Where(\ProbeItem.$group ~ \.$parent ~ \.$rank, in: values),
                "Where(\\.$group ~ \\.$parent ~ \\.$rank, in: \(values))")
        }
    }

    private mutating func itemRelationship() -> DescribedWhere<ProbeItem> {
        let group: ProbeGroup? = random.chance(0.2) ? nil : someGroup()
        let name = group.map { "group#\($0.rowID)" } ?? "nil"
        switch random.below(8) {
        case 0: return DescribedWhere(\.$group == group, "\\.$group == \(name)")
        case 1: return DescribedWhere(\.$group != group, "\\.$group != \(name)")
        case 2:
            let id = someGroup().objectID
            return DescribedWhere(\.$group == id, "\\.$group == \(id)")
        case 3:
            let id = someGroup().objectID
            return DescribedWhere(\.$group != id, "\\.$group != \(id)")
        case 4:
            return DescribedWhere(
                \.$group ~ \.$parent == group, "\\.$group ~ \\.$parent == \(name)")
        case 5:
            return DescribedWhere(
                \.$group ~ \.$parent != group, "\\.$group ~ \\.$parent != \(name)")
        case 6:
            let id = someGroup().objectID
            return DescribedWhere(\.$group ~ \.$parent == id, "\\.$group ~ \\.$parent == \(id)")
        default:
            let id = someGroup().objectID
            return DescribedWhere(
                \.$group ~ \.$parent ~ \.$parent != id,
                "\\.$group ~ \\.$parent ~ \\.$parent != \(id)")
        }
    }
}
