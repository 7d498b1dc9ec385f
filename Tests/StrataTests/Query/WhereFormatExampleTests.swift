import Foundation
import Testing

@testable import Strata

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
