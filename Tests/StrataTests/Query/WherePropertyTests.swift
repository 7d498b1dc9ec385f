import Foundation
import Testing

@testable import Strata

// MARK: Model

/// The query tests' model: every kind of stored value, NULLs, a to-one chain
/// (item → group → parent group), a to-many by foreign key (group.items) and
/// one through a link table (item.tags). "Group" and "group" are SQL keywords,
/// so every identifier must be quoted.
final class ProbeItem: ManagedObject {
    @Field.Stored("number") var number: Int = 0
    @Field.Stored("other") var other: Int = 0
    @Field.Stored("maybe") var maybe: Int? = nil
    @Field.Stored("real") var real: Double = 0
    @Field.Stored("text") var text: String = ""
    @Field.Stored("note") var note: String? = nil
    @Field.Relationship("group") var group: ProbeGroup?
    @Field.Relationship("tags", inverse: \ProbeTag.$items) var tags: Set<ProbeTag>
}

final class ProbeGroup: ManagedObject {
    @Field.Stored("name") var name: String? = nil
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("weight") var weight: Double? = nil
    @Field.Relationship("parent") var parent: ProbeGroup?
    @Field.Relationship("items", inverse: \ProbeItem.$group) var items: Set<ProbeItem>
}

final class ProbeTag: ManagedObject {
    @Field.Stored("label") var label: String = ""
    @Field.Stored("score") var score: Int? = nil
    @Field.Relationship("items") var items: Set<ProbeItem>
}

let probeSchema = Schema(
    "Probe1",
    entities: [
        Entity<ProbeItem>("Item"), Entity<ProbeGroup>("Group"), Entity<ProbeTag>("Tag"),
    ])

/// The values random data and random predicates draw from.
enum ProbeValues {
    static let integers: [Int] = [
        -3, -1, 0, 1, 2, 3, 5, 7, 10, 42, 1 << 53, (1 << 53) + 1, .max, .min,
    ]
    /// Whole numbers beside fractions, signed zeros, 2^53 and infinities.
    static let reals: [Double] = [
        -3, -1.5, -0.0, 0, 0.5, 1, 2, 2.5, 3, 7, 10, 42, 9_007_199_254_740_992, 1e300,
        -.infinity, .infinity,
    ]
    /// Mixed case and accents (precomposed and decomposed), ß, ligatures,
    /// emoji, the empty string, and the wildcard characters themselves.
    static let strings: [String] = [
        "Émile", "emile", "ÉMILE", "Emile", "e\u{301}mile", "Zoë", "zoe", "ZOË", "Zoe\u{308}",
        "straße", "STRASSE", "strasse", "", "🙂", "a🙂b", "👩‍👩‍👧", "naïve", "NAÏVE", "Ångström",
        "ångström", "a", "A", "b", "ab", "Ab", "abc", "a*c", "a?c", "%", "_", "'", "İ", "i", "ﬁ",
        "fi",
        "z", "ZZ", "ä", "Ä",
    ]
}

/// Fills a stack with random items, groups and tags drawn from ``ProbeValues``.
enum ProbeData {
    @MainActor
    static func populate(_ stack: DataStack, seed: UInt64, items itemCount: Int) throws {
        try stack.perform(synchronous: { tx in
            var random = ProbeRandom(seed: seed)
            let groups = (0..<24).map { _ in tx.create(Into<ProbeGroup>()) }
            for group in groups {
                group.name = random.chance(0.2) ? nil : random.pick(ProbeValues.strings)
                group.rank = random.integer()
                group.weight = random.chance(0.25) ? nil : random.real()
                group.parent = random.chance(0.3) ? nil : random.pick(groups)
            }
            let tags = (0..<12).map { _ in tx.create(Into<ProbeTag>()) }
            for tag in tags {
                tag.label = random.pick(ProbeValues.strings)
                tag.score = random.chance(0.3) ? nil : random.integer()
            }
            for _ in 0..<itemCount {
                let item = tx.create(Into<ProbeItem>())
                item.number = random.integer()
                item.other = random.integer()
                item.maybe = random.chance(0.3) ? nil : random.integer()
                // Often a whole number, so integers and reals meet.
                item.real = random.chance(0.5) ? Double(random.integer() % 1_000) : random.real()
                item.text = random.pick(ProbeValues.strings)
                item.note = random.chance(0.3) ? nil : random.pick(ProbeValues.strings)
                item.group = random.chance(0.2) ? nil : random.pick(groups)
                item.tags = Set((0..<random.below(4)).map { _ in random.pick(tags) })
            }
        })
    }
}

/// Seeded random choices for the query tests, drawn from ``ProbeValues``.
struct ProbeRandom {
    private var generator: SplitMix64

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    mutating func next() -> UInt64 { generator.next() }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func chance(_ probability: Double) -> Bool {
        Double(next() % 10_000) < probability * 10_000
    }
    mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    /// Mostly small (so equal values are common), sometimes extreme.
    mutating func integer() -> Int { chance(0.75) ? below(14) - 3 : pick(ProbeValues.integers) }
    mutating func real() -> Double {
        chance(0.5) ? Double(below(14) - 3) + (chance(0.5) ? 0.5 : 0) : pick(ProbeValues.reals)
    }
    mutating func string() -> String { pick(ProbeValues.strings) }
    mutating func options() -> TextOptions { TextOptions(rawValue: below(4)) }
}

// MARK: DescribedWhere predicates

/// A predicate together with a readable description, printed on failure.
struct DescribedWhere<Object: ManagedObject> {
    var clause: Where<Object>
    var text: String

    init(_ clause: Where<Object>, _ text: String) {
        self.clause = clause
        self.text = text
    }
}

enum ProbeComparison: CaseIterable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

    var symbol: String {
        switch self {
        case .equal: "=="
        case .notEqual: "!="
        case .less: "<"
        case .lessOrEqual: "<="
        case .greater: ">"
        case .greaterOrEqual: ">="
        }
    }

    var raw: WherePredicate.Comparison {
        switch self {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        }
    }
}

func probeDescription(_ value: Any) -> String { String(reflecting: value) }

func describeOptions(_ options: TextOptions) -> String {
    var names: [String] = []
    if options.contains(.caseInsensitive) { names.append(".caseInsensitive") }
    if options.contains(.diacriticInsensitive) { names.append(".diacriticInsensitive") }
    return "[" + names.joined(separator: ", ") + "]"
}

/// `field op value` on a stored field.
func probeCompare<Object, Value: FieldStorable>(
    _ keyPath: KeyPath<Object, Field.Stored<Value>>, _ name: String, _ op: ProbeComparison,
    _ value: Value
) -> DescribedWhere<Object> {
    let clause: Where<Object>
    switch op {
    case .equal: clause = keyPath == value
    case .notEqual: clause = keyPath != value
    case .less: clause = keyPath < value
    case .lessOrEqual: clause = keyPath <= value
    case .greater: clause = keyPath > value
    case .greaterOrEqual: clause = keyPath >= value
    }
    return DescribedWhere(clause, "\\.$\(name) \(op.symbol) \(probeDescription(value))")
}

/// `path op value` on a value reached through relationships; `value` nil
/// only with `==` and `!=`.
func probeCompare<Object, Value>(
    _ expression: Where<Object>.Expression<Value>, _ name: String, _ op: ProbeComparison,
    _ value: Value?
) -> DescribedWhere<Object> {
    let clause: Where<Object>
    switch (op, value) {
    case (.equal, _): clause = expression == value
    case (.notEqual, _): clause = expression != value
    case (.less, let value?): clause = expression < value
    case (.lessOrEqual, let value?): clause = expression <= value
    case (.greater, let value?): clause = expression > value
    case (.greaterOrEqual, let value?): clause = expression >= value
    default: preconditionFailure("order comparisons take a value")
    }
    return DescribedWhere(clause, "\(name) \(op.symbol) \(value.map(probeDescription) ?? "nil")")
}

func probeText<Object, Value: TextFieldValue>(
    _ keyPath: KeyPath<Object, Field.Stored<Value>>, _ name: String, _ pattern: TextPattern,
    _ text: String
) -> DescribedWhere<Object> {
    DescribedWhere(Where(keyPath, pattern), "Where(\\.$\(name), \(text))")
}

// MARK: Generator

/// Random predicates and orders over the probe model, using every operator.
struct ProbeGenerator {
    var random: ProbeRandom
    let groups: [ProbeGroup]
    let tags: [ProbeTag]

    private mutating func op() -> ProbeComparison { random.pick(ProbeComparison.allCases) }

    /// A random text pattern and its description.
    private mutating func pattern() -> (TextPattern, String) {
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

    private mutating func someGroup() -> ProbeGroup { random.pick(groups) }

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
        switch random.below(20) {
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
        case 9: return integerBesideReal()
        case 10, 11: return itemPath()
        case 12: return itemRelationship()
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
        case 15: return countOf(Where<ProbeItem>.count(\.$tags), "count(\\.$tags)")
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
        default:
            return probeCompare(\ProbeItem.$number, "number", op(), random.integer())
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

    private mutating func itemMembership() -> DescribedWhere<ProbeItem> {
        let count = random.below(6)
        switch random.below(6) {
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
        default:
            let values = (0..<count).map { _ in random.chance(0.25) ? nil : random.string() }
            return DescribedWhere(
                Where(\.$group ~ \.$name, in: values), "Where(\\.$group ~ \\.$name, in: \(values))")
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
                Where(.isIn(ValuePath(field: "number"), values)), "number IN \(values)")
        default:
            return DescribedWhere(
                Where(.isIn(ValuePath(field: "real"), [.integer(Int64(integer))])),
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
        switch random.below(10) {
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
            case 5: keys.append(key(\.$note, "note"))
            case 6: keys.append(key(\ProbeItem.$group ~ \.$name, "group.name"))
            case 7: keys.append(key(\ProbeItem.$group ~ \.$weight, "group.weight"))
            case 8: keys.append(key(\ProbeItem.$group ~ \.$parent ~ \.$name, "group.parent.name"))
            default: keys.append(key(\.$other, "other"))
            }
        }
        return (OrderBy(keys.map(\.0)), "[\(keys.map(\.1).joined(separator: ", "))]")
    }
}

// MARK: Tests

@MainActor
@Suite("Where: SQL fetches and in-memory evaluation agree")
struct WherePropertyTests {
    nonisolated static let fixedSeeds: [UInt64] = [0x5EED_0001, 0xC0FF_EE42, 0x0BAD_F00D]

    @Test(arguments: fixedSeeds)
    func sqlAndMemorySelectTheSameObjectsInTheSameOrder(seed: UInt64) throws {
        try check(seed: seed)
    }

    @Test
    func sqlAndMemoryAgreeForARandomSeed() throws {
        let seed = UInt64.random(in: 0 ... .max)
        print("WherePropertyTests random seed: \(seed)")
        try check(seed: seed)
    }

    /// Random data, then random item and group predicates with random orders;
    /// each SQL fetch must equal filtering and sorting the objects in memory.
    /// Four seeds of 500 predicates each: 2,000 predicates a run.
    private func check(
        seed: UInt64, items: Int = 300, itemPredicates: Int = 450, groupPredicates: Int = 50
    ) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: items)
        // Held strongly so the main context keeps them while predicates run.
        let allItems = try stack.fetchAll(From<ProbeItem>())
        let allGroups = try stack.fetchAll(From<ProbeGroup>())
        let allTags = try stack.fetchAll(From<ProbeTag>())
        #expect(allItems.count == items)
        var generator = ProbeGenerator(
            random: ProbeRandom(seed: seed ^ 0x9E37), groups: allGroups, tags: allTags)
        var failures = 0
        for index in 0..<itemPredicates where failures < 5 {
            let predicate = generator.item(depth: 3)
            let (order, orderText) = generator.itemOrder()
            let fetched = try stack.fetchAll(
                From<ProbeItem>().where(predicate.clause).orderBy(order))
            let selected = allItems.filter { predicate.clause.evaluate($0) == true }
            if !Self.same(fetched, selected, order.areInIncreasingOrder) {
                let evaluated = selected.sorted(by: order.areInIncreasingOrder).map(\.rowID)
                let fetched = fetched.map(\.rowID)
                failures += 1
                Issue.record(
                    """
                    seed \(seed), item predicate #\(index): \(predicate.text)
                    order: \(orderText)
                    SQL:    \(fetched)
                    memory: \(evaluated)
                    """)
            }
        }
        for index in 0..<groupPredicates where failures < 5 {
            let predicate = generator.group(depth: 3)
            let order = OrderBy<ProbeGroup>(
                .ascending(\.$name, .caseInsensitive), .descending(\.$weight))
            let fetched = try stack.fetchAll(
                From<ProbeGroup>().where(predicate.clause).orderBy(order))
            let selected = allGroups.filter { predicate.clause.evaluate($0) == true }
            if !Self.same(fetched, selected, order.areInIncreasingOrder) {
                let evaluated = selected.sorted(by: order.areInIncreasingOrder).map(\.rowID)
                let fetched = fetched.map(\.rowID)
                failures += 1
                Issue.record(
                    """
                    seed \(seed), group predicate #\(index): \(predicate.text)
                    SQL:    \(fetched)
                    memory: \(evaluated)
                    """)
            }
        }
        withExtendedLifetime((allItems, allTags)) {}
    }

    /// Whether `fetched` is exactly `selected` sorted by `areInIncreasingOrder`:
    /// the same objects, each strictly before the next. As the order is a
    /// strict total order (see `OrderByTests`), this is `selected.sorted(by:)`
    /// at a fraction of the cost.
    private static func same<Object: ManagedObject>(
        _ fetched: [Object], _ selected: [Object], _ areInIncreasingOrder: (Object, Object) -> Bool
    ) -> Bool {
        guard fetched.count == selected.count,
            Set(fetched.map(\.rowID)) == Set(selected.map(\.rowID))
        else { return false }
        return zip(fetched, fetched.dropFirst()).allSatisfy { areInIncreasingOrder($0, $1) }
    }
}
