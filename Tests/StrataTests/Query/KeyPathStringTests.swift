import Foundation
import Testing

@testable import Strata

/// CoreStore's string key paths in `OrderBy`, `Select` and `GroupBy`
/// (`.ascending("name")`, `Select("name", .count("tags"))`, `GroupBy("flag")`),
/// checked against the key-path clauses that say the same, on random
/// clauses over the probe model.
@MainActor
@Suite("OrderBy, Select and GroupBy by field name")
struct KeyPathStringTests {
    nonisolated static let seeds: [UInt64] = [0x4B_0001, SplitMix64.random().seed]

    /// A sort key by name beside its key-path twin.
    struct SortCase {
        var text: String
        var named: OrderBy<ProbeItem>.SortKey
        var keyPath: OrderBy<ProbeItem>.SortKey
    }

    static func randomSortKey(_ random: inout ProbeRandom) -> SortCase {
        let ascending = random.chance(0.5)
        let nulls = random.pick([OrderBy<ProbeItem>.NullPlacement.automatic, .first, .last])
        let options = random.chance(0.3) ? random.options() : []
        func make<V: FieldStorable>(_ name: String, _ keyPath: KeyPath<ProbeItem, Field.Stored<V>>) -> SortCase {
            ascending
                ? SortCase(
                    text: "ascending(\(name), \(describeOptions(options)), \(nulls))",
                    named: .ascending(name, options, nulls: nulls), keyPath: .ascending(keyPath, options, nulls: nulls))
                : SortCase(
                    text: "descending(\(name), \(describeOptions(options)), \(nulls))",
                    named: .descending(name, options, nulls: nulls), keyPath: .descending(keyPath, options, nulls: nulls))
        }
        func make<V>(_ name: String, _ expression: Where<ProbeItem>.Expression<V>) -> SortCase {
            ascending
                ? SortCase(
                    text: "ascending(\(name), \(nulls))", named: .ascending(name, options, nulls: nulls),
                    keyPath: .ascending(expression, options, nulls: nulls))
                : SortCase(
                    text: "descending(\(name), \(nulls))", named: .descending(name, options, nulls: nulls),
                    keyPath: .descending(expression, options, nulls: nulls))
        }
        switch random.below(10) {
        case 0: return make("number", \.$number)
        case 1: return make("other", \.$other)
        case 2: return make("maybe", \.$maybe)
        case 3: return make("real", \.$real)
        case 4: return make("text", \.$text)
        case 5: return make("note", \.$note)
        case 6: return make("flag", \.$flag)
        case 7: return make("data", \.$data)
        case 8: return make("group.name", \.$group ~ \.$name)
        default: return make("group.rank", \.$group ~ \.$rank)
        }
    }

    /// Random orders of one to three keys by name sort as their key-path
    /// twins do: the same objects in the same order, on a page too, and
    /// the clauses are equal.
    @Test(arguments: seeds)
    func anOrderByNameSortsAsItsKeyPathTwin(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 120)
        var random = ProbeRandom(seed: seed ^ 0x4B4B)
        var failures = 0
        for index in 0..<200 where failures < 5 {
            let cases = (0...random.below(3)).map { _ in Self.randomSortKey(&random) }
            let named = OrderBy(cases.map(\.named))
            let keyPath = OrderBy(cases.map(\.keyPath))
            var query = From<ProbeItem>()
            if random.chance(0.3) {
                let (limit, offset) = (random.below(30) + 1, random.below(40))
                query = query.tweak { $0.fetchLimit = limit; $0.fetchOffset = offset }
            }
            let expected = try stack.fetchAll(query.orderBy(keyPath)).map(\.rowID)
            let fetched = try stack.fetchAll(query.orderBy(named)).map(\.rowID)
            if fetched != expected || named != keyPath {
                failures += 1
                Issue.record(
                    "seed \(seed), #\(index): \(cases.map(\.text)): key path \(expected), by name \(fetched), equal \(named == keyPath)")
            }
        }
    }

    /// A term by name beside its key-path twin.
    struct TermCase {
        var text: String
        var named: SelectTerm<ProbeItem>
        var keyPath: SelectTerm<ProbeItem>
    }

    /// A random aggregate of a random field, with or without an alias.
    static func randomAggregate(_ random: inout ProbeRandom, index: Int) -> TermCase {
        let alias: String? = random.chance(0.3) ? "a\(index)" : nil
        func make<V>(_ name: String, _ keyPath: KeyPath<ProbeItem, Field.Stored<V>>) -> TermCase {
            switch random.below(5) {
            case 0: return TermCase(text: "count(\(name))", named: .count(name, as: alias), keyPath: .count(keyPath, as: alias))
            case 1: return TermCase(text: "sum(\(name))", named: .sum(name, as: alias), keyPath: .sum(keyPath, as: alias))
            case 2: return TermCase(text: "average(\(name))", named: .average(name, as: alias), keyPath: .average(keyPath, as: alias))
            case 3: return TermCase(text: "minimum(\(name))", named: .minimum(name, as: alias), keyPath: .minimum(keyPath, as: alias))
            default: return TermCase(text: "maximum(\(name))", named: .maximum(name, as: alias), keyPath: .maximum(keyPath, as: alias))
            }
        }
        switch random.below(6) {
        case 0: return make("number", \.$number)
        case 1: return make("maybe", \.$maybe)
        case 2: return make("real", \.$real)
        case 3: return make("ratio", \.$ratio)
        case 4: return make("text", \.$text)
        default: return make("flag", \.$flag)
        }
    }

    /// Random grouped queries by name (group keys selected by name,
    /// aggregates of named fields) return what their key-path twins return,
    /// and the clauses are equal.
    @Test(arguments: seeds)
    func aGroupedQueryByNameAnswersAsItsKeyPathTwin(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .inMemory, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 120)
        var random = ProbeRandom(seed: seed ^ 0x4747)
        let keys: [(String, SelectTerm<ProbeItem>, GroupBy<ProbeItem>)] = [
            ("flag", .attribute(\.$flag), GroupBy(\.$flag)),
            ("other", .attribute(\.$other), GroupBy(\.$other)),
            ("note", .attribute(\.$note), GroupBy(\.$note)),
            ("group.name", .attribute(\.$group ~ \.$name), GroupBy(\.$group ~ \.$name)),
        ]
        var failures = 0
        for index in 0..<120 where failures < 5 {
            let key = random.chance(0.8) ? random.pick(keys) : nil
            let aggregates = (0...random.below(3)).map { Self.randomAggregate(&random, index: $0) }
            // Two aggregates of one field and function would share a name.
            guard Set(aggregates.map { $0.named.name }).count == aggregates.count else { continue }
            let namedSelect = Select<ProbeItem, [String: StoredValue]>(
                [SelectTerm<ProbeItem>](key.map { [.attribute($0.0)] } ?? []) + aggregates.map(\.named))
            let keyPathSelect = Select<ProbeItem, [String: StoredValue]>(
                [SelectTerm<ProbeItem>](key.map { [$0.1] } ?? []) + aggregates.map(\.keyPath))
            var named = From<ProbeItem>().select(namedSelect)
            var keyPath = From<ProbeItem>().select(keyPathSelect)
            var clausesEqual = namedSelect == keyPathSelect
            if let key {
                named = named.groupBy(GroupBy(key.0))
                keyPath = keyPath.groupBy(key.2)
                clausesEqual = clausesEqual && GroupBy<ProbeItem>(key.0) == key.2
            }
            // A sum of the largest integers overflows: then both throw the same error.
            let expected = Result { () throws(StrataError) in try stack.queryAttributes(keyPath) }
            let answered = Result { () throws(StrataError) in try stack.queryAttributes(named) }
            let text = "seed \(seed), #\(index): \(key?.0 ?? "-") \(aggregates.map(\.text))"
            if answered != expected || !clausesEqual {
                failures += 1
                Issue.record("\(text): key path \(expected), by name \(answered), equal \(clausesEqual)")
            }
        }
    }

    /// CoreStore's README spellings: `Select<T, Int>("age")`,
    /// `Select("name", "age")` and `.count("friends", as:)` in the list
    /// form, `GroupBy("age")`, `.maximum("age")`, and a to-one relationship
    /// counted by name.
    @Test(arguments: StoreKind.sqlite)
    func coreStoreReadmeSpellings(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try ProbeData.populate(stack, seed: 11, items: 40)
        let first = try #require(try stack.fetchOne(From<ProbeItem>().orderBy(.ascending(\.$number))))
        #expect(
            try stack.queryValue(
                From<ProbeItem>(), Select<ProbeItem, Int>("number"), OrderBy<ProbeItem>(.ascending("number")))
                == first.number)
        #expect(
            try stack.queryValue(From<ProbeItem>(), Select<ProbeItem, Int>(.maximum("number")))
                == stack.queryValue(From<ProbeItem>().select(Int.self, .maximum(\.$number))))
        let rows = try stack.queryAttributes(From<ProbeItem>(), Select("text", "number"), OrderBy(.ascending("number")))
        #expect(rows == (try stack.queryAttributes(
            From<ProbeItem>().select(.attribute(\.$text), .attribute(\.$number)).orderBy(.ascending(\.$number)))))
        #expect(rows.count == 40)
        let tagCounts = try stack.queryAttributes(From<ProbeItem>(), Select("number", .count("tags", as: "tagCount")))
        #expect(tagCounts == (try stack.queryAttributes(
            From<ProbeItem>().select(.attribute(\.$number), .count(\.$tags, as: "tagCount")))))
        #expect(tagCounts.contains { ($0["tagCount"] ?? .null) != .integer(0) })
        let grouped = try stack.queryAttributes(
            From<ProbeItem>(), Select("flag", .count("flag", as: "count")), GroupBy("flag"))
        #expect(grouped == (try stack.queryAttributes(
            From<ProbeItem>().select(.attribute(\.$flag), .count(\.$flag, as: "count")).groupBy(\.$flag))))
        let linked = try stack.queryValue(From<ProbeItem>().select(Int.self, .count("group")))
        #expect(linked == (try stack.fetchCount(From<ProbeItem>().where(\.$group != nil))))
        #expect(try stack.fetchAll(From<ProbeItem>().orderBy(.descending("group.name"), .ascending("number")))
            == stack.fetchAll(From<ProbeItem>().orderBy(.descending(\.$group ~ \.$name), .ascending(\.$number))))
    }

    /// Lists sectioned by name (`SectionBy<T>("flag")`, `.sectionBy("group.name")`)
    /// hold the sections their key-path twins hold, named alike, before and
    /// after random commits move objects between sections.
    @Test(arguments: seeds)
    func aListSectionedByNameMatchesItsKeyPathTwin(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .file, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 60)
        let pairs: [(String, ListMonitor<ProbeItem>, ListMonitor<ProbeItem>)] = [
            ("flag",
             try stack.monitorSectionedList(From<ProbeItem>(), SectionBy<ProbeItem>("flag"), OrderBy(.ascending("number"))),
             try stack.monitorSectionedList(From<ProbeItem>(), SectionBy(\.$flag), OrderBy<ProbeItem>(.ascending(\.$number)))),
            ("group.name",
             try stack.monitorList(From<ProbeItem>().orderBy(.descending("real")).sectionBy("group.name")),
             try stack.monitorList(From<ProbeItem>().orderBy(.descending(\.$real)).sectionBy(SectionBy(\.$group ~ \.$name)))),
            ("maybe",
             try stack.monitorList(From<ProbeItem>().sectionBy("maybe")),
             try stack.monitorList(From<ProbeItem>().sectionBy(\.$maybe))),
        ]
        func sections(_ monitor: ListMonitor<ProbeItem>) -> [String] {
            monitor.sections().map { "\($0.name): \($0.objects.map(\.rowID))" }
        }
        var random = ProbeRandom(seed: seed ^ 0x5EC7)
        for round in 0..<6 {
            for (name, named, keyPath) in pairs {
                #expect(sections(named) == sections(keyPath), "seed \(seed), round \(round), by \(name)")
                #expect(named.numberOfSections() > 1, "seed \(seed), by \(name): several sections")
            }
            // A random commit: values changed (sections left and entered), objects made and deleted.
            let ids = try stack.fetchObjectIDs(From<ProbeItem>())
            let groups = try stack.fetchObjectIDs(From<ProbeGroup>())
            let edits = (0..<12).map { _ in (random.pick(ids), random.below(5), random.integer(), random.pick(groups)) }
            try stack.perform(synchronous: { tx in
                for (id, kind, number, group) in edits {
                    guard let item = tx.edit(id) else { continue }
                    switch kind {
                    case 0: item.flag = number % 3 == 0 ? nil : number > 2
                    case 1: item.maybe = number % 4 == 0 ? nil : number
                    case 2: item.group = try tx.fetchExisting(group)
                    case 3: item.real = Double(number)
                    default: tx.delete(item)
                    }
                }
                tx.create(Into<ProbeItem>()).maybe = edits.count
            })
        }
        #expect {
            try stack.monitorSectionedList(From<ProbeItem>(), SectionBy<ProbeItem>("group"))
        } throws: { error in
            guard case let StrataError.invalidValue(_, "group", reason) = error else { return false }
            return reason.hasPrefix(#"SectionBy("group"): 'group' is a relationship"#)
        }
        #expect(throws: StrataError.self) { try stack.publishList(From<ProbeItem>().sectionBy("nope")) }
    }

    /// A list clause by name is resolved against the class the fetch is of:
    /// a `OrderBy<ZooCat>` naming a lion's field sorts `From<ZooLion>`, and
    /// the same key on a fetch of cats throws, naming the field.
    @Test
    func aListClauseByNameResolvesOnTheFetchedSubclass() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for index in 0..<6 {
                let lion = tx.create(Into<ZooLion>())
                lion.mane = Double((index * 7) % 5)
                lion.lives = index % 3
            }
        })
        let byMane = try stack.fetchAll(From<ZooLion>(), OrderBy<ZooCat>(.descending("mane"), .ascending("lives")))
        #expect(byMane.map(\.rowID) == (try stack.fetchAll(
            From<ZooLion>().orderBy(.descending(\.$mane), .ascending(\.$lives)))).map(\.rowID))
        let grouped = try stack.queryAttributes(
            From<ZooLion>(), Select<ZooLion, [String: StoredValue]>("mane", .count()), GroupBy<ZooCat>("mane"))
        #expect(grouped.count == 5)
        #expect {
            try stack.fetchAll(From<ZooCat>(), OrderBy<ZooCat>(.descending("mane")))
        } throws: { error in
            guard case let StrataError.invalidValue("ZooCat", "mane", reason) = error else { return false }
            return reason.contains("ZooCat has no field 'mane'")
        }
    }

    /// A selection whose terms share a name (a `queryAttributes` row's key),
    /// or that has none, throws `invalidValue` from the read, as a bad name
    /// does: names may come from strings, and making the `Select` never traps.
    @Test
    func aSelectOfRepeatedNamesOrNoTermsThrowsFromTheRead() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .file, in: directory)
        try ProbeData.populate(stack, seed: 6, items: 5)
        let selections: [(Select<ProbeItem, [String: StoredValue]>, String)] = [
            (Select("text", "text"), "text"),
            (Select(.attribute(\.$text), .count("number", as: "text")), "text"),
            (Select("number", .sum(\.$other, as: "number"), "real"), "number"),
            (Select([]), ""),
        ]
        for (select, field) in selections {
            let reads: [() throws -> Void] = [
                { _ = try stack.queryAttributes(From<ProbeItem>(), select) },
                { _ = try stack.queryValue(From<ProbeItem>(), Select<ProbeItem, String>(select.selectTerms)) },
                { try stack.perform(synchronous: { tx in _ = try tx.queryAttributes(From<ProbeItem>(), select) }) },
            ]
            for read in reads {
                #expect {
                    try read()
                } throws: { error in
                    guard case let StrataError.invalidValue("ProbeItem", named, reason) = error else {
                        return false
                    }
                    return named == field && reason.contains(field.isEmpty ? "at least one term" : "as:")
                }
            }
        }
        // Distinct names still read.
        let rows = try stack.queryAttributes(
            From<ProbeItem>(), Select<ProbeItem, [String: StoredValue]>("text", .count("number", as: "n")),
            GroupBy<ProbeItem>(\.$text))
        #expect(!rows.isEmpty && rows.allSatisfy { $0.keys.sorted() == ["n", "text"] })
    }

    /// A name that is not a field the clause can use throws `invalidValue`
    /// from every read that uses the clause, naming the field and the
    /// clause as written; inside a transaction too, pending changes or not.
    @Test
    func aBadNameThrowsFromEveryRead() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, .file, in: directory)
        try ProbeData.populate(stack, seed: 5, items: 10)
        func expectInvalid(
            _ field: String, _ prefix: String, sourceLocation: SourceLocation = #_sourceLocation,
            _ read: () throws -> Void
        ) {
            #expect(sourceLocation: sourceLocation) {
                try read()
            } throws: { error in
                guard case let StrataError.invalidValue("ProbeItem", named, reason) = error else { return false }
                return named == field && reason.hasPrefix(prefix)
            }
        }
        let orders: [(OrderBy<ProbeItem>, String, String)] = [
            (OrderBy(.ascending("nope")), "nope", #"OrderBy.ascending("nope"): ProbeItem has no field 'nope'"#),
            (OrderBy(.ascending(\.$number), .descending("group")), "group", #"OrderBy.descending("group"): 'group' is a relationship"#),
            (OrderBy(.ascending("tags.label")), "tags.label", #"OrderBy.ascending("tags.label"): 'tags.label' passes through"#),
            (OrderBy(.ascending("number.x")), "number.x", #"OrderBy.ascending("number.x"): 'number' is a stored field"#),
            (OrderBy(.ascending("")), "", #"OrderBy.ascending(""): the key path '' has an empty part"#),
            (OrderBy(.ascending("group.")), "group.", "OrderBy.ascending"),
        ]
        for (order, field, prefix) in orders {
            expectInvalid(field, prefix) { _ = try stack.fetchAll(From<ProbeItem>().orderBy(order)) }
            expectInvalid(field, prefix) { _ = try stack.fetchCount(From<ProbeItem>(), order) }
            expectInvalid(field, prefix) { _ = try stack.fetchObjectIDs(From<ProbeItem>().orderBy(order)) }
            expectInvalid(field, prefix) { _ = try stack.monitorList(From<ProbeItem>().orderBy(order)) }
            expectInvalid(field, prefix) {
                _ = try stack.queryAttributes(From<ProbeItem>().orderBy(order).select(.attribute(\.$number)))
            }
            expectInvalid(field, prefix) {
                try stack.perform(synchronous: { tx in
                    tx.create(Into<ProbeItem>()).number = 99
                    _ = try tx.fetchAll(From<ProbeItem>().orderBy(order))
                })
            }
            expectInvalid(field, prefix) {
                try stack.perform(synchronous: { tx in
                    _ = try tx.deleteAll(From<ProbeItem>().orderBy(order))
                })
            }
        }
        expectInvalid("flag.x", #"GroupBy("flag.x"): 'flag' is a stored field"#) {
            _ = try stack.queryAttributes(From<ProbeItem>(), Select("flag"), GroupBy("flag.x"))
        }
        expectInvalid("tags", #"GroupBy("tags"): 'tags' is a relationship"#) {
            _ = try stack.queryAttributes(From<ProbeItem>().select(.count()).groupBy("number", "tags"))
        }
        expectInvalid("nope", #"SelectTerm.attribute("nope"): ProbeItem has no field 'nope'"#) {
            _ = try stack.queryAttributes(From<ProbeItem>(), Select("number", "nope"))
        }
        expectInvalid("group", #"SelectTerm.sum("group"): 'group' is a relationship"#) {
            _ = try stack.queryValue(From<ProbeItem>().select(Int.self, .sum("group")))
        }
        expectInvalid("tags.@count", #"SelectTerm.maximum("tags.@count"): 'tags.@count' is an aggregate"#) {
            _ = try stack.queryValue(From<ProbeItem>().select(Int.self, .maximum("tags.@count")))
        }
        expectInvalid("group.items", #"SelectTerm.count("group.items"): 'group.items' passes through"#) {
            _ = try stack.queryAttributes(From<ProbeItem>().select(.count("group.items")))
        }
        // A format Where without its class, in a clause list, is one of
        // `ManagedObject` to Swift: the list parses it for the fetched class.
        let groups = try stack.fetchAll(From<ProbeGroup>().orderBy(.ascending(\.$rank)))
        let pairs: [(Where<ManagedObject>, Where<ProbeItem>)] = [
            (Where("number > %d", 1), Where("number > %d", 1)),
            (Where("group == %@", groups[0]), Where(\.$group == groups[0])),
            (Where("group IN %@", Array(groups.prefix(3))), Where(\.$group, in: Array(groups.prefix(3)))),
            (Where("group IN %@", [groups[1].objectID, nil]), Where(\.$group, in: [groups[1].objectID]) || \.$group == nil),
            (Where("number", isMemberOf: 0...4), Where(\.$number, in: [0, 1, 2, 3, 4])),
        ]
        for (untyped, typed) in pairs {
            #expect(try stack.fetchAll(From<ProbeItem>(), untyped) == stack.fetchAll(From<ProbeItem>().where(typed)))
        }
        #expect(try stack.fetchCount(From<ProbeItem>(), Where("number > %d", 1)) > 0)
        expectInvalid("format", #"column 1 of "nope > 1": ProbeItem has no field 'nope'"#) {
            _ = try stack.fetchCount(From<ProbeItem>(), Where("nope > 1"))
        }
        // Nothing was deleted by the refused bulk deletes, nor saved by the failed transactions.
        #expect(try stack.fetchCount(From<ProbeItem>()) == 10)
    }
}

