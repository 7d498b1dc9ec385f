import Foundation
import Testing

@testable import Strata

/// CoreStore's `Where<T>("name", isEqualTo: value)` and
/// `Where<T>("name", isMemberOf: list)`, checked against the key-path
/// `Where` that says the same, on random values over the probe model.
@MainActor
@Suite("Where by field name: isEqualTo and isMemberOf")
struct WhereKeyNameTests {
    nonisolated static let seeds: [UInt64] = [0x4E_0001, SplitMix64.random().seed]

    /// A condition by name beside its key-path twin.
    struct Case {
        var text: String
        var named: Where<ProbeItem>
        var keyPath: Where<ProbeItem>
    }

    /// One random `isEqualTo` or `isMemberOf` test of a random field, its
    /// values mostly drawn from the stored ones so that it matches something.
    static func randomCase(
        _ random: inout ProbeRandom, items: [ProbeItem], groups: [ProbeGroup]
    ) -> Case {
        let item = random.pick(items)
        let member = random.chance(0.5)
        let count = random.below(4)
        func values<V>(_ draw: (inout ProbeRandom) -> V) -> [V] {
            (0..<count).map { _ in draw(&random) }
        }
        func make<V: FieldStorable>(
            _ name: String, _ keyPath: KeyPath<ProbeItem, Field.Stored<V>>, _ value: V,
            _ list: [V]
        ) -> Case {
            member
                ? Case(
                    text: "\(name) isMemberOf \(list)", named: Where(name, isMemberOf: list),
                    keyPath: Where(keyPath, in: list))
                : Case(
                    text: "\(name) isEqualTo \(value)", named: Where(name, isEqualTo: value),
                    keyPath: Where(keyPath == value))
        }
        switch random.below(8) {
        case 0:
            return make("number", \.$number, item.number, [item.number] + values { $0.integer() })
        case 1:
            return make("maybe", \.$maybe, item.maybe, [item.maybe] + values { $0.chance(0.3) ? nil : $0.integer() })
        case 2:
            return make("real", \.$real, item.real, [item.real] + values { Double($0.below(14) - 3) })
        case 3:
            return make("text", \.$text, item.text, [item.text] + values { $0.string() })
        case 4:
            return make("note", \.$note, item.note, [item.note] + values { $0.chance(0.3) ? nil : $0.string() })
        case 5:
            return make("flag", \.$flag, item.flag, [item.flag] + values { $0.chance(0.3) ? nil : $0.chance(0.5) })
        case 6:
            let group = random.chance(0.2) ? nil : random.pick(groups)
            let list = [item.group].compactMap { $0 } + values { $0.pick(groups) }
            return member
                ? Case(
                    text: "group isMemberOf \(list.map(\.rowID))", named: Where("group", isMemberOf: list),
                    keyPath: Where(\.$group, in: list))
                : Case(
                    text: "group isEqualTo \(group?.rowID as Any)",
                    named: Where("group", isEqualTo: group?.objectID),
                    keyPath: Where(\.$group == group))
        default:
            let name = random.chance(0.8) ? item.group?.name : random.string()
            return Case(
                text: "group.name isEqualTo \(name as Any)", named: Where("group.name", isEqualTo: name),
                keyPath: Where(\.$group ~ \.$name == name))
        }
    }

    /// Each test by name fetches what its key-path twin fetches, counts the
    /// same, and evaluates in memory as the fetch selected.
    @Test(arguments: seeds)
    func aTestByNameSelectsWhatItsKeyPathTwinSelects(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 150)
        let items = try stack.fetchAll(From<ProbeItem>().orderBy(.ascending(\.$number)))
        let groups = try stack.fetchAll(From<ProbeGroup>())
        var random = ProbeRandom(seed: seed ^ 0x4E4E)
        var matched = 0
        var failures = 0
        for index in 0..<300 where failures < 5 {
            let test = Self.randomCase(&random, items: items, groups: groups)
            let expected = try stack.fetchAll(From<ProbeItem>().where(test.keyPath)).map(\.rowID)
            let fetched = try stack.fetchAll(From<ProbeItem>().where(test.named)).map(\.rowID)
            let counted = try stack.fetchCount(From<ProbeItem>().where(test.named))
            let evaluated = items.filter { test.named.evaluate($0) == true }.map(\.rowID).sorted()
            matched += expected.isEmpty ? 0 : 1
            if fetched != expected || counted != expected.count || evaluated != expected.sorted() {
                failures += 1
                Issue.record(
                    "seed \(seed), #\(index): \(test.text): key path \(expected), by name \(fetched) (count \(counted)), in memory \(evaluated)"
                )
            }
        }
        #expect(matched > 150, "seed \(seed): most tests should match an object")
    }

    /// An empty list matches nothing; an unknown field and a value the field
    /// cannot hold throw `invalidValue` from the fetch, naming the problem.
    @Test
    func edgeCasesByName() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: 7, items: 20)
        #expect(try stack.fetchCount(From<ProbeItem>().where(Where("number", isMemberOf: [Int]()))) == 0)
        #expect(
            try stack.fetchCount(From<ProbeItem>().where(Where("note", isEqualTo: nil)))
                == stack.fetchCount(From<ProbeItem>().where(\.$note == nil)))
        let bad: [(Where<ProbeItem>, String)] = [
            (Where("nope", isEqualTo: 1), #"Where("nope", isEqualTo:): ProbeItem has no field 'nope'"#),
            (Where("number", isEqualTo: "one"), #"Where("number", isEqualTo:): "one" cannot be compared"#),
            (Where("number", isMemberOf: [Data([1])]), #"Where("number", isMemberOf:): 1 bytes cannot be compared"#),
        ]
        for (clause, reason) in bad {
            #expect {
                try stack.fetchAll(From<ProbeItem>().where(clause))
            } throws: { error in
                // The reason names what the caller wrote, not the format it stands for.
                guard case StrataError.invalidValue(_, "format", let text) = error else { return false }
                return text.hasPrefix(reason)
            }
        }
    }
}
