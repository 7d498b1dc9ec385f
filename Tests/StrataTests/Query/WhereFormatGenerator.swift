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
