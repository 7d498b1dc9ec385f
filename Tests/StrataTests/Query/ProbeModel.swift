import Foundation

@testable import Strata

// MARK: Model

/// The query tests' model: every storage class (integer, real, text, blob),
/// NULLs (optional integers, reals, text and booleans), a to-one chain (item → group → parent group), a to-many by foreign
/// key (group.items) and one through a link table (item.tags). "Group" and "group" are SQL keywords,
/// so every identifier must be quoted.
final class ProbeItem: ManagedObject {
    @Field.Stored("number") var number: Int = 0
    @Field.Stored("other") var other: Int = 0
    @Field.Stored("maybe") var maybe: Int? = nil
    @Field.Stored("real") var real: Double = 0
    @Field.Stored("text") var text: String = ""
    @Field.Stored("note") var note: String? = nil
    @Field.Stored("data") var data: Data = Data()
    @Field.Stored("ratio") var ratio: Double? = nil
    @Field.Stored("flag") var flag: Bool? = nil
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
    /// Empty and zero bytes, prefixes of each other, and the UTF-8 of some
    /// strings above, which as blobs must never equal those strings.
    static let blobs: [Data] = [
        Data(), Data([0]), Data([0, 0]), Data([1, 2]), Data([1, 2, 3]), Data([0xFF]),
        Data("a".utf8), Data("Émile".utf8), Data("e\u{301}mile".utf8), Data("🙂".utf8),
    ]
}

/// Fills a stack with random items, groups and tags drawn from ``ProbeValues``.
enum ProbeData {
    /// Moves about a third of `items` to a random group of `groups` or to
    /// none, in one transaction, and records each item's new group index in
    /// `owners` (the model the queries are checked against).
    @MainActor
    static func moveSome(
        _ items: [ObjectID<ProbeItem>], among groups: [ObjectID<ProbeGroup>], owners: inout [Int?],
        in stack: DataStack, using random: inout SplitMix64
    ) throws {
        let moves = items.indices.compactMap { index -> (Int, Int?)? in
            guard Int.random(in: 0..<3, using: &random) == 0 else { return nil }
            let next = Int.random(in: -1..<groups.count, using: &random)
            return (index, next < 0 ? nil : next)
        }
        try stack.perform(synchronous: { tx in
            for (index, group) in moves {
                tx.edit(items[index])?.group = try group.map { try tx.fetchExisting(groups[$0]) } ?? nil
            }
        })
        for (index, group) in moves { owners[index] = group }
    }

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
            // The fields added later draw from a stream of their own, so that
            // a seed still gives the other fields the values it always gave.
            var later = ProbeRandom(seed: seed ^ 0x0F7_10AA1)
            for _ in 0..<itemCount {
                let item = tx.create(Into<ProbeItem>())
                item.ratio = later.chance(0.3) ? nil : later.real()
                item.flag = later.chance(0.3) ? nil : later.chance(0.5)
                item.number = random.integer()
                item.other = random.integer()
                item.maybe = random.chance(0.3) ? nil : random.integer()
                // Often a whole number, so integers and reals meet.
                item.real = random.chance(0.5) ? Double(random.integer() % 1_000) : random.real()
                item.text = random.pick(ProbeValues.strings)
                item.note = random.chance(0.3) ? nil : random.pick(ProbeValues.strings)
                item.data = random.pick(ProbeValues.blobs)
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
    mutating func blob() -> Data { pick(ProbeValues.blobs) }
    /// A value of any storage class, NULL included.
    mutating func storedValue() -> StoredValue {
        switch below(5) {
        case 0: return .integer(Int64(integer()))
        case 1: return .real(real())
        case 2: return .text(string())
        case 3: return .blob(blob())
        default: return chance(0.5) ? .null : .integer(Int64(below(14) - 3))
        }
    }
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

