import Foundation
import Testing

@testable import Strata

// MARK: Generator

/// A condition written twice: as a format string with its arguments, and as
/// the key-path `Where` that states the same condition.
struct FormatCase {
    var format: String
    var arguments: [Any?]
    var clause: Where<ProbeItem>

    var formatted: Where<ProbeItem> {
        Where<ProbeItem>(format, argumentArray: arguments.map { $0 as Any })
    }
    var text: String {
        "\(String(reflecting: format)) with \(arguments.map { String(describing: $0) })"
    }
}

/// Random format conditions over the probe model, each beside its key-path twin.
struct FormatGenerator {
    var random: ProbeRandom
    let groups: [ProbeGroup]
    let probe: ProbeGenerator

    init(seed: UInt64, groups: [ProbeGroup], tags: [ProbeTag]) {
        random = ProbeRandom(seed: seed)
        self.groups = groups
        probe = ProbeGenerator(random: ProbeRandom(seed: seed ^ 0xF0F0), groups: groups, tags: tags)
    }

    /// `word` in upper, lower or mixed case, as NSPredicate's keywords may be written.
    mutating func keyword(_ word: String) -> String {
        switch random.below(3) {
        case 0: return word.uppercased()
        case 1: return word.lowercased()
        default: return word.prefix(1).uppercased() + word.dropFirst().lowercased()
        }
    }

    mutating func item(depth: Int) -> FormatCase {
        if depth <= 0 || random.chance(0.35) { return leaf() }
        let a = item(depth: depth - 1)
        switch random.below(3) {
        case 0, 1:
            let b = item(depth: depth - 1)
            let and = random.below(2) == 0
            let word = random.chance(0.5) ? keyword(and ? "and" : "or") : (and ? "&&" : "||")
            return FormatCase(
                format: "(\(a.format)) \(word) (\(b.format))", arguments: a.arguments + b.arguments,
                clause: and ? a.clause && b.clause : a.clause || b.clause)
        default:
            let word = random.chance(0.5) ? keyword("not") : "!"
            return FormatCase(
                format: "\(word) (\(a.format))", arguments: a.arguments, clause: !a.clause)
        }
    }

    // MARK: Spellings

    private mutating func key(_ name: String) -> (String, [Any?]) {
        random.chance(0.3) ? ("%K", [name]) : (name, [])
    }

    private mutating func integer(_ value: Int) -> (String, [Any?]) {
        switch random.below(5) {
        case 0: return ("%d", [value])
        case 1: return ("%lld", [Int64(value)])
        case 2: return ("%ld", [value])
        case 3: return ("%@", [value])
        default: return ("\(value)", [])
        }
    }

    private mutating func real(_ value: Double) -> (String, [Any?]) {
        switch random.below(3) {
        case 0: return ("%f", [value])
        case 1 where value.isFinite: return ("\(value)", [])
        default: return ("%@", [value])
        }
    }

    private mutating func string(_ value: String) -> (String, [Any?]) {
        guard random.chance(0.5) else { return ("%@", [value]) }
        let quote: Character = random.chance(0.5) ? "'" : "\""
        var escaped = ""
        for character in value {
            if character == "\\" || character == quote { escaped.append("\\") }
            escaped.append(character)
        }
        return ("\(quote)\(escaped)\(quote)", [])
    }

    private mutating func null() -> (String, [Any?]) {
        switch random.below(3) {
        case 0: return ("nil", [])
        case 1: return ("NULL", [])
        default: return ("%@", [nil])
        }
    }

    private mutating func symbol(_ op: ProbeComparison) -> String {
        switch op {
        case .equal: return random.chance(0.5) ? "==" : "="
        case .notEqual: return random.chance(0.5) ? "!=" : "<>"
        case .lessOrEqual: return random.chance(0.5) ? "<=" : "=<"
        case .greaterOrEqual: return random.chance(0.5) ? ">=" : "=>"
        case .less: return "<"
        case .greater: return ">"
        }
    }

    /// `key op value`, or now and then `value op' key` with the sides swapped.
    private mutating func comparison(
        _ key: (String, [Any?]), _ op: ProbeComparison, _ value: (String, [Any?]),
        _ clause: DescribedWhere<ProbeItem>
    ) -> FormatCase {
        if random.chance(0.2) {
            let mirrored = ProbeComparison.allCases.first { $0.raw == op.raw.mirrored }!
            return FormatCase(
                format: "\(value.0) \(symbol(mirrored)) \(key.0)", arguments: value.1 + key.1,
                clause: clause.clause)
        }
        return FormatCase(
            format: "\(key.0) \(symbol(op)) \(value.0)", arguments: key.1 + value.1,
            clause: clause.clause)
    }

    private mutating func modifiers(_ options: TextOptions) -> String {
        switch (options.contains(.caseInsensitive), options.contains(.diacriticInsensitive)) {
        case (true, true): return random.chance(0.5) ? "[cd]" : "[dc]"
        case (true, false): return "[c]"
        case (false, true): return "[d]"
        case (false, false): return ""
        }
    }

    private mutating func textTest(_ path: String) -> (String, [Any?], TextPattern) {
        let (pattern, _) = probe.randomPattern(&random)
        let name: String
        switch pattern.operation {
        case .hasPrefix: name = "beginswith"
        case .hasSuffix: name = "endswith"
        case .contains: name = "contains"
        case .like: name = "like"
        }
        let value = string(pattern.pattern)
        return (
            "\(path) \(keyword(name))\(modifiers(pattern.options)) \(value.0)", value.1, pattern
        )
    }

    // MARK: Leaves

    private mutating func leaf() -> FormatCase {
        let op = random.pick(ProbeComparison.allCases)
        switch random.below(17) {
        case 0:
            let value = random.integer()
            return comparison(
                key("number"), op, integer(value), probeCompare(\ProbeItem.$number, "", op, value))
        case 1:
            let value: Int? = random.chance(0.3) ? nil : random.integer()
            return comparison(
                key("maybe"), op, value.map { integer($0) } ?? null(),
                probeCompare(\ProbeItem.$maybe, "", op, value))
        case 2:
            let value = random.real()
            return comparison(
                key("real"), op, real(value), probeCompare(\ProbeItem.$real, "", op, value))
        case 3:
            let value = random.string()
            return comparison(
                key("text"), op, string(value), probeCompare(\ProbeItem.$text, "", op, value))
        case 4:
            let value: String? = random.chance(0.3) ? nil : random.string()
            return comparison(
                key("note"), op, value.map { string($0) } ?? null(),
                probeCompare(\ProbeItem.$note, "", op, value))
        case 5:
            let value: Bool? = random.chance(0.3) ? nil : random.chance(0.5)
            let spelled = value.map {
                (
                    keyword(random.chance(0.5) ? ($0 ? "yes" : "no") : ($0 ? "true" : "false")),
                    [Any?]()
                )
            }
            return comparison(
                key("flag"), op, spelled ?? null(), probeCompare(\ProbeItem.$flag, "", op, value))
        case 6:
            let value: Double? = random.chance(0.3) ? nil : random.real()
            return comparison(
                key("ratio"), op, value.map { real($0) } ?? null(),
                probeCompare(\ProbeItem.$ratio, "", op, value))
        case 7:
            let value = random.blob()
            return comparison(
                key("data"), op, ("%@", [value]), probeCompare(\ProbeItem.$data, "", op, value))
        case 8: return membership()
        case 9: return range()
        case 10:
            let field = random.chance(0.5) ? "text" : "note"
            let (format, arguments, pattern) = textTest(field)
            return FormatCase(
                format: format, arguments: arguments,
                clause: field == "text" ? Where(\.$text, pattern) : Where(\.$note, pattern))
        case 11:
            // `==[c]` is a wildcard-free LIKE.
            let value = random.string().filter { $0 != "*" && $0 != "?" }
            let options = TextOptions(rawValue: 1 + random.below(3))
            let equal = random.chance(0.5)
            let like = Where<ProbeItem>(\.$text, .like(value, options))
            let spelled = string(value)
            return FormatCase(
                format: "text \(equal ? "==" : "!=")\(modifiers(options)) \(spelled.0)",
                arguments: spelled.1,
                clause: equal ? like : !like)
        case 12: return groupPath(op)
        case 13: return groupRelationship()
        case 14: return tagsTest()
        case 15: return count(op)
        default:
            let value = random.integer()
            let quantifier = random.pick(["ANY", "ALL", "NONE", "SOME"])
            let members = \ProbeItem.$group ~ \.$items
            let inner = probeCompare(\ProbeItem.$number, "", op, value).clause
            let clause: Where<ProbeItem> =
                switch quantifier {
                case "ALL": .all(members, inner)
                case "NONE": .none(members, inner)
                default: .any(members, inner)
                }
            let spelled = integer(value)
            return FormatCase(
                format: "\(keyword(quantifier)) group.items.number \(symbol(op)) \(spelled.0)",
                arguments: spelled.1, clause: clause)
        }
    }

    private mutating func membership() -> FormatCase {
        let count = random.below(6)
        switch random.below(3) {
        case 0:
            let values = (0..<count).map { _ in random.integer() }
            return FormatCase(
                format: "number IN %@", arguments: [values], clause: Where(\.$number, in: values))
        case 1:
            let values = (0..<count).map { _ in random.chance(0.25) ? nil : random.integer() }
            return FormatCase(
                format: "maybe in %@", arguments: [Set(values)], clause: Where(\.$maybe, in: values)
            )
        default:
            let values = (0..<count).map { _ in random.string() }
            let spelled = values.map { string($0) }
            return FormatCase(
                format: "%K IN {\(spelled.map(\.0).joined(separator: ", "))}",
                arguments: ["text"] + spelled.flatMap(\.1), clause: Where(\.$text, in: values))
        }
    }

    private mutating func range() -> FormatCase {
        if random.chance(0.5) {
            let (a, b) = (random.integer(), random.integer())
            let (low, high) = (min(a, b), max(a, b))
            let (l, h) = (integer(low), integer(high))
            return random.chance(0.5)
                ? FormatCase(
                    format: "number BETWEEN {\(l.0), \(h.0)}", arguments: l.1 + h.1,
                    clause: Where(\.$number, between: low...high))
                : FormatCase(
                    format: "number between %@", arguments: [[low, high]],
                    clause: Where(\.$number, between: low...high))
        }
        let (a, b) = (random.real(), random.real())
        let (low, high) = (min(a, b), max(a, b))
        return FormatCase(
            format: "ratio BETWEEN %@", arguments: [[low, high]],
            clause: Where(\.$ratio, between: low...high))
    }

    private mutating func groupPath(_ op: ProbeComparison) -> FormatCase {
        switch random.below(4) {
        case 0:
            let value: String? = random.chance(0.2) ? nil : random.string()
            return comparison(
                ("group.name", []), op, value.map { string($0) } ?? null(),
                probeCompare(\ProbeItem.$group ~ \.$name, "", op, value))
        case 1:
            let value = random.integer()
            return comparison(
                ("group.rank", []), op, integer(value),
                probeCompare(\ProbeItem.$group ~ \.$rank, "", op, value))
        case 2:
            let value = random.integer()
            return comparison(
                ("%K", ["group.parent.rank"]), op, integer(value),
                probeCompare(\ProbeItem.$group ~ \.$parent ~ \.$rank, "", op, value))
        default:
            let (format, arguments, pattern) = textTest("group.name")
            return FormatCase(
                format: format, arguments: arguments,
                clause: Where(\ProbeItem.$group ~ \.$name, pattern))
        }
    }

    private mutating func groupRelationship() -> FormatCase {
        let group: ProbeGroup? = random.chance(0.2) ? nil : random.pick(groups)
        let equal = random.chance(0.5)
        let symbol = equal ? "==" : "!="
        switch random.below(4) {
        case 0:
            return FormatCase(
                format: "group \(symbol) %@", arguments: [group],
                clause: equal ? \.$group == group : \.$group != group)
        case 1 where group != nil:
            let id = group!.objectID
            return FormatCase(
                format: "group \(symbol) %@", arguments: [id],
                clause: equal ? \.$group == id : \.$group != id)
        case 2:
            let parent = \ProbeItem.$group ~ \.$parent
            return FormatCase(
                format: "group.parent \(symbol) %@", arguments: [group],
                clause: equal ? parent == group : parent != group)
        default:
            let some = (0..<random.below(4)).map { _ in random.pick(groups) }
            return FormatCase(
                format: "group IN %@", arguments: [some], clause: Where(\.$group, in: some))
        }
    }

    private mutating func tagsTest() -> FormatCase {
        let quantifier = random.pick(["ANY", "ALL", "NONE"])
        let format: String
        let arguments: [Any?]
        let inner: Where<ProbeTag>
        if random.chance(0.5) {
            let (text, values, pattern) = textTest("tags.label")
            (format, arguments, inner) = (text, values, Where(\.$label, pattern))
        } else {
            let op = random.pick(ProbeComparison.allCases)
            let value = random.integer()
            let spelled = integer(value)
            format = "tags.score \(symbol(op)) \(spelled.0)"
            arguments = spelled.1
            inner = probeCompare(\ProbeTag.$score, "", op, value as Int?).clause
        }
        let clause: Where<ProbeItem> =
            switch quantifier {
            case "ALL": .all(\.$tags, inner)
            case "NONE": .none(\.$tags, inner)
            default: .any(\.$tags, inner)
            }
        return FormatCase(
            format: "\(keyword(quantifier)) \(format)", arguments: arguments, clause: clause)
    }

    private mutating func count(_ op: ProbeComparison) -> FormatCase {
        let number = random.below(4)
        let (path, size) =
            random.chance(0.5)
            ? ("tags.@count", Where<ProbeItem>.count(\.$tags))
            : ("group.items.@count", Where<ProbeItem>.count(\.$group ~ \.$items))
        let clause: Where<ProbeItem> =
            switch op {
            case .equal: size == number
            case .notEqual: size != number
            case .less: size < number
            case .lessOrEqual: size <= number
            case .greater: size > number
            case .greaterOrEqual: size >= number
            }
        return comparison((path, []), op, integer(number), DescribedWhere(clause, ""))
    }
}

extension ProbeGenerator {
    /// ``pattern()`` drawing from `random` (so that a format case's seed alone decides it).
    func randomPattern(_ random: inout ProbeRandom) -> (TextPattern, String) {
        var copy = self
        copy.random = random
        defer { random = copy.random }
        return copy.pattern()
    }
}

// MARK: Property tests

@MainActor
@Suite("Where format strings: the same answers as the key-path Where")
struct WhereFormatPropertyTests {
    nonisolated static let seeds: [UInt64] = [0xF0_0001, 0xF0_0002, SplitMix64.random().seed]
    nonisolated static let cases =
        seeds.map { (StoreKind.inMemory, $0) } + [(StoreKind.file, seeds[0])]

    /// Random conditions, each as a format and as key paths: the fetches of
    /// the two select the same objects, and evaluating either in memory
    /// selects what the fetch did.
    @Test(arguments: cases)
    func aFormatFetchesAndEvaluatesAsItsKeyPathTwin(kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 200)
        let items = try stack.fetchAll(From<ProbeItem>())
        var generator = FormatGenerator(
            seed: seed ^ 0xF00D, groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        var failures = 0
        var matched = 0
        for index in 0..<300 where failures < 5 {
            let condition = generator.item(depth: 3)
            let formatted = condition.formatted
            let expected = try stack.fetchAll(From<ProbeItem>().where(condition.clause)).map(
                \.rowID)
            let fetched: [Int64]
            do {
                fetched = try stack.fetchAll(From<ProbeItem>().where(formatted)).map(\.rowID)
            } catch {
                failures += 1
                Issue.record("seed \(seed), #\(index): \(condition.text) threw \(error)")
                continue
            }
            let evaluated = items.filter { formatted.evaluate($0) == true }.map(\.rowID).sorted()
            matched += expected.isEmpty ? 0 : 1
            if fetched != expected || evaluated != expected.sorted() {
                failures += 1
                Issue.record(
                    """
                    \(kind), seed \(seed), #\(index): \(condition.text)
                    key paths: \(expected)
                    format:    \(fetched)
                    in memory: \(evaluated)
                    """)
            }
        }
        // The conditions are not all empty: they test something.
        #expect(matched > 50, "seed \(seed)")
        withExtendedLifetime(items) {}
    }

    /// Monitors over random format conditions list exactly what a fresh
    /// fetch of their query lists, after each of several random commits.
    @Test(arguments: seeds)
    func aFormatMonitorStaysEqualToAFreshFetch(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 120)
        var generator = FormatGenerator(
            seed: seed ^ 0x4D0, groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        let queries = (0..<12).map { _ in
            From<ProbeItem>().where(generator.item(depth: 2).formatted).orderBy(
                .ascending(\.$number))
        }
        let monitors = try queries.map { try stack.monitorList($0) }
        var random = ProbeRandom(seed: seed ^ 0xC0)
        for round in 0..<6 {
            try stack.perform(synchronous: { tx in
                let items = try tx.fetchAll(From<ProbeItem>())
                let groups = try tx.fetchAll(From<ProbeGroup>())
                let tags = try tx.fetchAll(From<ProbeTag>())
                for item in items where random.chance(0.2) {
                    item.number = random.integer()
                    item.maybe = random.chance(0.3) ? nil : random.integer()
                    item.text = random.string()
                    item.note = random.chance(0.3) ? nil : random.string()
                    item.flag = random.chance(0.3) ? nil : random.chance(0.5)
                    item.group = random.chance(0.2) ? nil : random.pick(groups)
                    item.tags = Set((0..<random.below(4)).map { _ in random.pick(tags) })
                }
                for tag in tags where random.chance(0.2) { tag.label = random.string() }
                for group in groups where random.chance(0.1) { group.rank = random.integer() }
                for item in items where random.chance(0.03) { tx.delete(item) }
                for _ in 0..<3 { tx.create(Into<ProbeItem>()).number = random.integer() }
            })
            for (query, monitor) in zip(queries, monitors) {
                let fresh = try stack.fetchAll(query).map(\.rowID)
                #expect(
                    monitor.objectsInAllSections().map(\.rowID) == fresh,
                    "seed \(seed), round \(round)")
            }
        }
    }
}

// MARK: Examples

enum FmtMood: String, FieldStorable { case calm, cross }

/// A value of each Foundation type a field stores in a form of its own,
/// beside a coded and a virtual field, which formats cannot compare.
final class FmtThing: ManagedObject {
    @Field.Stored("when") var when: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("uuid") var uuid: UUID = UUID(
        uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Field.Stored("price") var price: Decimal = 0
    @Field.Stored("mood") var mood: FmtMood = .calm
    @Field.Stored("blob") var blob: Data = Data()
    @Field.Stored("done") var done: Bool = false
    @Field.Stored("link") var link: URL? = nil
    @Field.Stored("small") var small: UInt8 = 0
    @Field.Coded("labels") var labels: [String] = []
    @Field.Virtual("selected") var selected: Bool = false
}

let fmtSchema = Schema("Fmt1", entities: [Entity<FmtThing>("FmtThing")])

@MainActor
@Suite("Where format strings: what each form means")
struct WhereFormatExampleTests {
    /// Each format builds exactly the tree of the key-path `Where` beside it.
    @Test
    func eachFormBuildsTheKeyPathWhereOfTheSameCondition() {
        let pairs: [(Where<ProbeItem>, Where<ProbeItem>, String)] = [
            (Where("number > %d", 3), \.$number > 3, "%d"),
            (Where("%K > %ld", "number", 3), \.$number > 3, "%K"),
            (Where("3 < number"), \.$number > 3, "sides swapped"),
            (Where("number => -3"), \.$number >= -3, "=> and a negative literal"),
            (Where("number <> 0x1F"), \.$number != 31, "<> and hexadecimal"),
            (Where("real == 3"), \.$real == 3.0, "an integer literal for a real field"),
            (Where("real < %@", 2.5), \.$real < 2.5, "%@ with a Double"),
            (Where("real == 1e3"), \.$real == 1_000.0, "an exponent"),
            (Where("real == 2.5E-1"), \.$real == 0.25, "a negative exponent"),
            (Where("real > -1.5 AND real < .5"), \.$real > -1.5 && \.$real < 0.5, "fractions"),
            (Where("number == 1e3"), \.$number == 1_000, "a whole real for an integer field"),
            (
                Where("number == %@", 7.0), \.$number == 7,
                "a whole Double argument for an integer field"
            ),
            (
                Where("real <= %d", Int64(-9)), \.$real <= -9.0,
                "an integer argument for a real field"
            ),
            (
                Where("text BEGINSWITH[cd] %@", "an"),
                Where(\.$text, .hasPrefix("an", [.caseInsensitive, .diacriticInsensitive])), "[cd]"
            ),
            (Where("text like[c] 'a*?'"), Where(\.$text, .like("a*?", .caseInsensitive)), "like"),
            (
                Where("note ENDSWITH \"\\\"q\\u00e9\""), Where(\.$note, .hasSuffix("\"qé")),
                "escapes"
            ),
            (Where("text ==[d] 'e'"), Where(\.$text, .like("e", .diacriticInsensitive)), "==[d]"),
            (Where("number BETWEEN {1, 5}"), Where(\.$number, between: 1...5), "BETWEEN { }"),
            (Where("number BETWEEN %@", [1, 5]), Where(\.$number, between: 1...5), "BETWEEN %@"),
            (Where("number IN %@", [1, 2]), Where(\.$number, in: [1, 2]), "IN %@"),
            (
                Where("text IN {'a', %@}", "b"), Where(\.$text, in: ["a", "b"]),
                "IN { } with an argument"
            ),
            (Where("note == nil"), \.$note == nil, "nil"),
            (Where("note = NULL"), \.$note == nil, "NULL"),
            (Where("maybe != %@", nil), \.$maybe != nil, "a nil argument"),
            (Where("flag == YES"), \.$flag == true, "YES"),
            (Where("flag == false"), \.$flag == false, "false"),
            (Where("group.name == 'x'"), (\.$group ~ \.$name) == "x", "a to-one path"),
            (Where("SELF.group.name == 'x'"), (\.$group ~ \.$name) == "x", "SELF.path"),
            (
                Where("group.parent == nil"), (\.$group ~ \.$parent) == nil,
                "a to-one relationship and nil"
            ),
            (Where("ANY tags.label == %@", "x"), .any(\.$tags, \.$label == "x"), "ANY"),
            (Where("some tags.label == %@", "x"), .any(\.$tags, \.$label == "x"), "SOME"),
            (Where("ALL tags.score > 1"), .all(\.$tags, \.$score > 1), "ALL"),
            (
                Where("NONE group.items.text CONTAINS 'a'"),
                .none(\.$group ~ \.$items, Where(\.$text, .contains("a"))),
                "NONE through a to-one path"
            ),
            (Where("tags.@count > 2"), Where<ProbeItem>.count(\.$tags) > 2, "@count"),
            (
                Where("2 >= group.items.@count"), Where<ProbeItem>.count(\.$group ~ \.$items) <= 2,
                "@count swapped"
            ),
            (
                Where("number > 1 AND text == 'a' OR NOT flag == YES"),
                (\.$number > 1 && \.$text == "a") || !(\.$flag == true), "AND before OR"
            ),
            (
                Where("number > 1 && (text == 'a' || !(maybe < 3))"),
                \.$number > 1 && (\.$text == "a" || !(\.$maybe < 3)), "symbols and parentheses"
            ),
            (Where("TRUEPREDICATE"), Where(true), "TRUEPREDICATE"),
            (Where("falsepredicate"), Where(false), "FALSEPREDICATE"),
            (
                Where("%2$K > %1$d AND %2$K < %3$@", 3, "number", 9),
                \.$number > 3 && \.$number < 9, "positional"
            ),
            (
                Where("number > %d AND number < %d", argumentArray: [3, 9]),
                \.$number > 3 && \.$number < 9, "array"
            ),
            (
                Where(format: "number == %i", argumentArray: [Int32(7)]), \.$number == 7,
                "format:argumentArray:"
            ),
            (
                Where("number IN %@", NSArray(array: [NSNumber(value: 1), NSNumber(value: 2)])),
                Where(\.$number, in: [1, 2]), "an NSArray of NSNumbers"
            ),
            (Where("text == %@", NSString(string: "a")), \.$text == "a", "an NSString"),
            (Where("real > %@", NSNumber(value: 2.5)), \.$real > 2.5, "a real NSNumber"),
            (Where("flag == %@", NSNumber(value: true)), \.$flag == true, "a Boolean NSNumber"),
            (Where("note == %@", NSNull()), \.$note == nil, "NSNull"),
            (Where("note == %@", String?.none), \.$note == nil, "an optional nil"),
            (Where("text IN %@", ["a"] as Set<String>), Where(\.$text, in: ["a"]), "a set"),
            (Where("number IN %@", 1...3), Where(\.$number, in: [1, 2, 3]), "a range"),
        ]
        for (formatted, expected, name) in pairs {
            #expect(
                formatted == expected,
                "\(name): \(formatted.predicate) is not \(expected.predicate)")
        }
    }

    /// Arguments are stored as the field stores their type.
    @Test
    func argumentsAreStoredAsTheirFieldStoresThem() throws {
        let date = Date(timeIntervalSince1970: 1_234.5)
        let uuid = UUID()
        let price = Decimal(string: "0.1")!
        let url = URL(string: "https://example.com/a")!
        let pairs: [(Where<FmtThing>, Where<FmtThing>, String)] = [
            (Where("when == %@", date), \.$when == date, "Date"),
            (Where("when < %@", Optional(date)), \.$when < date, "Date?"),
            (Where("uuid == %@", uuid), \.$uuid == uuid, "UUID"),
            (Where("price == %@", price), \.$price == price, "Decimal"),
            (Where("price < 10"), \.$price < Decimal(10), "an integer for a Decimal"),
            (Where("price >= %@", 0.1), \.$price >= price, "a Double for a Decimal, by its text"),
            (
                Where("price BETWEEN {%@, 1}", price), Where(\.$price, between: price...1),
                "Decimal range"
            ),
            (Where("price IN %@", [price]), Where(\.$price, in: [price]), "Decimal membership"),
            (Where("mood == %@", FmtMood.cross), \.$mood == .cross, "an enum"),
            (Where("mood == 'cross'"), \.$mood == .cross, "an enum's raw value"),
            (Where("blob == %@", Data([1, 2])), \.$blob == Data([1, 2]), "Data"),
            (Where("done == %@", true), \.$done == true, "Bool"),
            (Where("done == %d", true), \.$done == true, "Bool as %d"),
            (Where("link == %@", url), \.$link == url, "URL"),
            (
                Where("small IN %@", [UInt8(1), 200]), Where(\.$small, in: [UInt8(1), 200]), "UInt8"
            ),
        ]
        for (formatted, expected, name) in pairs {
            #expect(
                formatted == expected,
                "\(name): \(formatted.predicate) is not \(expected.predicate)")
        }
        let directory = TemporaryDirectory()
        let stack = try makeStack(fmtSchema, .file, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 0..<3 {
                let thing = tx.create(Into<FmtThing>())
                thing.when = date.addingTimeInterval(Double(index))
                thing.uuid = index == 1 ? uuid : UUID()
                thing.price = [Decimal(9), Decimal(10), price][index]
                thing.mood = index == 0 ? .cross : .calm
            }
        })
        let fetch = { (format: String, arguments: [Any]) in
            try stack.fetchAll(From<FmtThing>().where(Where(format, argumentArray: arguments)))
                .count
        }
        #expect(try fetch("when > %@", [date]) == 2)
        #expect(try fetch("uuid == %@", [uuid]) == 1)
        #expect(try fetch("price == %@", [price]) == 1)
        // By number, as the key-path `Where` compares decimals: "10" > "9".
        #expect(try fetch("price > %d", [9]) == 1)
        #expect(try fetch("price > 9.5 OR price < 0.5", []) == 2)
        #expect(try fetch("price BETWEEN {1, 9.5}", []) == 1)
        #expect(try fetch("mood == %@ OR price == %@", [FmtMood.cross, price]) == 2)
    }

    /// `SELF` and relationships compare with objects and IDs by identity.
    @Test(arguments: StoreKind.sqlite)
    func selfAndRelationshipsCompareByIdentity(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try ProbeData.populate(stack, seed: 7, items: 60)
        let items = try stack.fetchAll(From<ProbeItem>())
        let tags = try stack.fetchAll(From<ProbeTag>())
        let ids = { (clause: Where<ProbeItem>) in
            try Set(stack.fetchAll(From<ProbeItem>().where(clause)).map(\.rowID))
        }
        #expect(try ids(Where("SELF == %@", items[3])) == [items[3].rowID])
        #expect(
            try ids(Where("self IN %@", [items[1].objectID, items[2].objectID]))
                == [items[1].rowID, items[2].rowID])
        #expect(try ids(Where("SELF != %@", items[0])).count == items.count - 1)
        for tag in tags.prefix(4) {
            let holding = Set(items.filter { $0.tags.contains(tag) }.map(\.rowID))
            #expect(try ids(Where("ANY tags == %@", tag)) == holding)
            #expect(
                try ids(Where("NONE tags == %@", tag.objectID))
                    == Set(items.map(\.rowID)).subtracting(holding))
            #expect(Where<ProbeItem>("%@ IN tags", tag) == Where<ProbeItem>("ANY tags == %@", tag))
            #expect(
                Where<ProbeItem>("tags CONTAINS %@", tag.objectID)
                    == Where<ProbeItem>("ANY tags == %@", tag))
            #expect(try ids(Where("%@ IN tags", tag)) == holding)
        }
        let group = try #require(items.compactMap(\.group).first)
        #expect(
            try ids(Where("group == %@", group))
                == Set(items.filter { $0.group === group }.map(\.rowID)))
        #expect(
            try ids(Where("group IN %@", [group.objectID]))
                == Set(items.filter { $0.group === group }.map(\.rowID)))
        withExtendedLifetime((items, tags)) {}
    }
}

// MARK: Bad input

@MainActor
@Suite("Where format strings: bad input is a typed error, never a trap")
struct WhereFormatErrorTests {
    /// The reason an invalid format's fetch throws, or an issue when it does not throw one.
    private static func reason<Object>(
        _ clause: Where<Object>, on stack: DataStack,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        let error = #expect(throws: StrataError.self, sourceLocation: sourceLocation) {
            try stack.fetchAll(From<Object>().where(clause))
        }
        guard case let .invalidValue(entity, field, reason)? = error else {
            Issue.record(
                "expected invalidValue, got \(String(describing: error))",
                sourceLocation: sourceLocation)
            return nil
        }
        #expect(entity == String(describing: Object.self), sourceLocation: sourceLocation)
        #expect(field == "format", sourceLocation: sourceLocation)
        return reason
    }

    /// Every kind of bad input, each with what its error must say.
    @Test
    func eachProblemIsReportedWithItsPlace() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: 3, items: 10)
        let tag = try #require(try stack.fetchOne(From<ProbeTag>()))
        let nested =
            String(repeating: "(", count: 500) + "number > 1" + String(repeating: ")", count: 500)
        let cases: [(String, [Any], [String])] = [
            // Unknown fields and impossible paths.
            ("agee > 3", [], ["ProbeItem has no field 'agee'", "column 1 of"]),
            (
                "number > 1 AND group.nmae == 'x'", [],
                ["ProbeGroup has no field 'nmae'", "column 16"]
            ),
            ("group.name.first == 'a'", [], ["'name' is a stored field of ProbeGroup"]),
            ("ANY tags.items.tags.label == 'a'", [], ["two to-many relationships"]),
            ("tags.label == 'x'", [], ["to-many relationship 'tags'", "ANY, ALL or NONE"]),
            ("ANY number > 3", [], ["need a to-many relationship"]),
            ("group.@count > 1", [], ["@count ends a key path"]),
            ("ANY tags.@count > 1", [], ["do not apply to @count"]),
            ("tags.@sum.score > 3", [], ["aggregate @sum is not supported"]),
            ("number == other", [], ["comparing two key paths"]),
            ("%K > 3", [5], ["%K needs a key path string"]),
            // Syntax.
            ("number > ", [], ["expected a key path or a value", "column 10"]),
            ("number > 3 AND", [], ["found the end of the format"]),
            ("(number > 3", [], ["expected ')'"]),
            ("number > 3 number", [], ["expected AND, OR or the end"]),
            ("number 3", [], ["expected an operator"]),
            ("text == 'abc", [], ["never closed", "column 9"]),
            ("number > 99999999999999999999", [], ["does not fit in 64 bits"]),
            (nested, [], ["nests more than 64 levels"]),
            // Arguments missing, left over, or of the wrong type.
            ("number > %d", [], ["needs argument #1, but 0 argument(s) were given"]),
            ("number > %d AND number < %d", [1], ["needs argument #2", "column 26"]),
            ("number > 3", [5], ["1 argument(s) given, but the format uses 0", "#1, 5"]),
            ("number > %3$d", [1, 2], ["needs argument #3"]),
            ("number > %@", ["ten"], ["cannot be compared with 'number', which holds integers"]),
            ("number > %@", [2.5], ["2.5 cannot be compared with 'number'"]),
            ("text == %@", [3], ["cannot be compared with 'text', which holds text"]),
            ("number > %d", ["ten"], ["%d needs an integer"]),
            ("number > %d", [UInt64.max], ["%d needs an integer that fits in 64 bits"]),
            ("number > %@", [UInt64.max], ["cannot be stored"]),
            ("real > %f", [Double.nan], ["not NaN"]),
            ("real == %@", [Double.nan], ["NaN"]),
            ("number == %@", [tag], ["is not a relationship"]),
            ("group == %@", [5], ["expected a ProbeGroup object"]),
            ("group == %@", [tag], ["leads to ProbeGroup, not to ProbeTag"]),
            ("group == %@", [tag.objectID], ["leads to ProbeGroup, not to ProbeTag"]),
            ("group == %@", [ProbeGroup()], ["made outside a context"]),
            ("text BEGINSWITH %@", [3], ["BEGINSWITH needs a string"]),
            ("number BETWEEN {1, 2, 3}", [], ["BETWEEN needs two values"]),
            ("number IN 3", [], ["IN needs a collection"]),
            ("number IN %@", ["abc"], ["IN needs a collection"]),
            ("tags.@count > 'x'", [], ["@count compares with an integer"]),
            // Operators Strata does not have.
            ("text MATCHES '.*'", [], ["MATCHES (regular expressions) is not supported"]),
            ("text ==[n] 'a'", [], ["modifier [n] is not supported"]),
            ("number <[c] 3", [], ["[c] and [d] apply to"]),
            ("number BEGINSWITH 'a'", [], ["needs a text field"]),
            ("text ==[c] 'a*'", [], ["cannot be expressed; use LIKE"]),
            ("text LIKE 'a\\\\*'", [], ["LIKE patterns cannot escape"]),
            ("'a' IN text", [], ["IN takes the key path on its left", "column 1"]),
            ("%@ IN tags", ["a"], ["'tags' is compared with \"a\"", "column 1"]),
            ("tags CONTAINS[c] %@", [tag], ["say ANY, ALL or NONE"]),
            ("group.items CONTAINS %@", [tag], ["leads to ProbeItem, not to ProbeTag"]),
            ("group < %@", [tag], ["is a relationship: compare it with ==, != or IN"]),
            ("number + 1 > 3", [], ["arithmetic"]),
            ("SUBQUERY(tags, $t, $t.label == 'a').@count > 0", [], ["SUBQUERY is not supported"]),
            ("number == $limit", [], ["substitution variables"]),
            ("number == %s", ["x"], ["%s is not supported"]),
            ("number == %%", [], ["'%%' is a literal %"]),
            ("number ~ 3", [], ["unexpected character '~'", "column 8"]),
        ]
        for (format, arguments, fragments) in cases {
            let clause = Where<ProbeItem>(format, argumentArray: arguments)
            guard let reason = Self.reason(clause, on: stack) else { continue }
            for fragment in fragments {
                #expect(reason.contains(fragment), "\(format): \(reason)")
            }
        }
    }

    /// Coded and virtual fields are not columns a format can compare.
    @Test
    func codedAndVirtualFieldsAreRefused() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(fmtSchema, .inMemory, in: directory)
        let coded = Self.reason(Where<FmtThing>("labels == %@", ["a"]), on: stack)
        #expect(coded?.contains("'labels' is a coded field") == true, "\(coded ?? "")")
        let virtual = Self.reason(Where<FmtThing>("selected == YES"), on: stack)
        #expect(virtual?.contains("'selected' is a virtual field") == true, "\(virtual ?? "")")
    }

    /// An invalid format fails counts and monitors too, matches nothing in
    /// memory, and makes any predicate combined with it invalid.
    @Test
    func anInvalidFormatFailsEveryReadThatUsesIt() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: 5, items: 10)
        let invalid = Where<ProbeItem>("nmber > 3")
        let combined = Where<ProbeItem>(\.$number > 1) || invalid
        #expect(throws: StrataError.self) { try stack.fetchCount(From<ProbeItem>().where(invalid)) }
        #expect(throws: StrataError.self) {
            try stack.monitorList(From<ProbeItem>().where(invalid))
        }
        #expect(throws: StrataError.self) { try stack.fetchAll(From<ProbeItem>().where(combined)) }
        let item = try #require(try stack.fetchOne(From<ProbeItem>()))
        #expect(invalid.evaluate(item) == false)
        let error = #expect(throws: StrataError.self) {
            try stack.fetchAll(From<ProbeItem>().where(invalid))
        }
        #expect(error?.localizedDescription.contains("ProbeItem has no field 'nmber'") == true)
    }

    /// Seeded: formats spliced from random tokens, with random arguments,
    /// never trap; each one either fetches or throws a `StrataError`.
    @Test(arguments: [0xBAD_0001, SplitMix64.random().seed] as [UInt64])
    func randomGarbageNeverTraps(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 10)
        let group = try #require(try stack.fetchOne(From<ProbeGroup>()))
        let pieces = [
            "number", "maybe", "text", "note", "group", "group.name", "group.parent", "tags",
            "tags.label",
            "tags.@count", "group.items.@count", "SELF", "nope", "@count", ".", "==", "!=", "<",
            ">=", "=<",
            "<>", "IN", "BETWEEN", "BEGINSWITH[cd]", "LIKE", "CONTAINS[c]", "MATCHES", "ANY", "ALL",
            "NONE",
            "AND", "OR", "NOT", "&&", "||", "!", "(", ")", "{", "}", ",", "%@", "%K", "%d", "%f",
            "%2$@",
            "%%", "%s", "nil", "YES", "3", "-7", "2.5", "0x", "1e999", "'a'", "\"b\\\"", "'", "[",
            "]",
            "$x", "TRUEPREDICATE", "FALSEPREDICATE", "+", "-", "#", "\u{301}", "é",
        ]
        let values: [Any] = [
            3, -1, Int.max, UInt64.max, 2.5, Double.nan, "number", "text", "group.name", [1, 2],
            Set(["a"]),
            group, group.objectID, Data([1]), true, NSNull(), [group], Optional<Int>.none as Any,
        ]
        var random = ProbeRandom(seed: seed)
        var generator = FormatGenerator(
            seed: seed ^ 0x6A4, groups: try stack.fetchAll(From<ProbeGroup>()),
            tags: try stack.fetchAll(From<ProbeTag>()))
        var fetched = 0
        for _ in 0..<1_500 {
            let format: String
            var arguments: [Any]
            if random.chance(0.5) {
                format = (0..<(1 + random.below(8))).map { _ in random.pick(pieces) }
                    .joined(separator: random.chance(0.8) ? " " : "")
                arguments = (0..<random.below(4)).map { _ in random.pick(values) }
            } else {
                // A valid condition, then up to three random edits of its text and arguments.
                let valid = generator.item(depth: 2)
                var scalars = Array(valid.format.unicodeScalars)
                arguments = valid.arguments.map { $0 as Any }
                for _ in 0..<random.below(4) {
                    let at = random.below(scalars.count + 1)
                    switch random.below(4) {
                    case 0 where at < scalars.count: scalars.remove(at: at)
                    case 1: scalars.insert(contentsOf: random.pick(pieces).unicodeScalars, at: at)
                    case 2 where !arguments.isEmpty:
                        arguments[random.below(arguments.count)] = random.pick(values)
                    default: arguments.append(random.pick(values))
                    }
                }
                format = String(String.UnicodeScalarView(scalars))
            }
            let clause = Where<ProbeItem>(format, argumentArray: arguments)
            do {
                _ = try stack.fetchAll(From<ProbeItem>().where(clause))
                fetched += 1
            } catch {
                // The format's own error, never one from compiling a tree it should not have built.
                guard case .invalidValue(_, "format", _) = error else {
                    Issue.record("seed \(seed): \(format) with \(arguments) threw \(error)")
                    continue
                }
            }
        }
        // Unedited conditions fetch; most garbage does not.
        #expect(fetched > 100 && fetched < 1_200, "seed \(seed): \(fetched)")
    }
}
