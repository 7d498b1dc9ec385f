import Foundation
import Testing

@testable import Strata

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
