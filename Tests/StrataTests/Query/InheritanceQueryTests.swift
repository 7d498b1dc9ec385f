import Foundation
@testable import Strata
import Testing

@MainActor
@Suite("Inheritance: fetching a base entity fetches every subentity, as its own class")
struct InheritanceQueryTests {
    @Test(arguments: StoreKind.allCases)
    func aBaseFetchMaterializesEachRowAsItsConcreteClass(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        try stack.perform(synchronous: { tx in
            let animal = tx.create(Into<ZooAnimal>())
            animal.name = "Generic"
            let dog = tx.create(Into<ZooDog>())
            dog.name = "Rex"
            dog.breed = "pug"
            let cat = tx.create(Into<ZooCat>())
            cat.name = "Tom"
            cat.lives = 7
            let lion = tx.create(Into<ZooLion>())
            lion.name = "Leo"
            lion.lives = 3
            lion.mane = 2.5
        })
        let all = try stack.fetchAll(From<ZooAnimal>().orderBy(.ascending(\.$name)))
        #expect(all.map(\.name) == ["Generic", "Leo", "Rex", "Tom"])
        #expect(all.map { String(describing: type(of: $0)) } == ["ZooAnimal", "ZooLion", "ZooDog", "ZooCat"])
        #expect((all[1] as? ZooLion).map { ($0.lives, $0.mane) } ?? (0, 0) == (3, 2.5))
        #expect((all[2] as? ZooDog)?.breed == "pug")
        #expect(all.map(\.objectID.entityName) == ["ZooAnimal", "ZooLion", "ZooDog", "ZooCat"])
        let cats = try stack.fetchAll(From<ZooCat>().orderBy(.descending(\.$lives)))
        #expect(cats.map(\.name) == ["Tom", "Leo"] && cats[1] is ZooLion)
        #expect(try stack.fetchAll(From<ZooLion>()).map(\.name) == ["Leo"])
        #expect(try stack.fetchAll(From<ZooDog>()).map(\.name) == ["Rex"])
        #expect(try stack.fetchCount(From<ZooAnimal>()) == 4)
        #expect(try stack.fetchCount(From<ZooCat>().where(\.$lives < 5)) == 1)
        #expect(try stack.fetchObjectIDs(From<ZooCat>()).map(\.entityName).sorted() == ["ZooCat", "ZooLion"])
        #expect(try stack.fetchExists(From<ZooLion>().where(\.$mane > 2)))
        // Aggregates over a base see every subentity; over a subentity, its family.
        #expect(try stack.queryValue(From<ZooAnimal>().select(Int.self, .count())) == 4)
        #expect(try stack.queryValue(From<ZooCat>().select(Int.self, .sum(\.$lives))) == 10)
        let byLegs = try stack.queryAttributes(From<ZooCat>().select(.attribute(\.$legs), .count(as: "n")).groupBy(\.$legs))
        #expect(byLegs == [["legs": .integer(4), "n": .integer(2)]])
        // In a transaction too, with its own unsaved objects.
        let counted = try stack.perform(synchronous: { tx in
            tx.create(Into<ZooLion>()).name = "Cub"
            return try (tx.fetchCount(From<ZooCat>()), tx.fetchAll(From<ZooAnimal>()).count { $0 is ZooLion })
        })
        #expect(counted == (3, 2))
    }

    @Test
    func onlyAnEntityBelowTheRootFiltersByTheDiscriminator() throws {
        let schema = zooSchema()
        let root = try #require(schema.entity(named: "ZooAnimal"))
        let cat = try #require(schema.entity(named: "ZooCat"))
        let lion = try #require(schema.entity(named: "ZooLion"))
        let plain = try From<ZooAnimal>().where(\.$legs > 2).compile(in: root, schema: schema, dialect: .sqlite)
        #expect(plain.clauses == #" WHERE t0."legs" > ? ORDER BY t0._pk ASC"#)
        let cats = try From<ZooCat>().where(\.$legs > 2).compile(in: cat, schema: schema, dialect: .sqlite)
        #expect(cats.clauses == #" WHERE t0."_entity" IN (?, ?) AND (t0."legs" > ?) ORDER BY t0._pk ASC"#)
        #expect(cats.arguments == [.text("ZooCat"), .text("ZooLion"), .integer(2)])
        let lions = try From<ZooLion>().compile(in: lion, schema: schema, dialect: .sqlite)
        #expect(lions.clauses == #" WHERE t0."_entity" = ? ORDER BY t0._pk ASC"#)
        let target = try From<ZooCat>().compileTarget(in: cat, schema: schema, dialect: .sqlite)
        #expect(target.table == #""ZooAnimal" AS t0"# && target.condition == #"t0."_entity" IN (?, ?)"#)
    }

    nonisolated static let seeds: [UInt64] = [1, 2, 3, 0xC0FFEE]

    /// Random animals of every kind, then random predicates and orders over
    /// the base's fields, asked of every entity of the tree: each SQL fetch
    /// equals filtering the family's objects in memory and sorting them, and
    /// counts and sums agree.
    @Test(arguments: seeds)
    func sqlAndMemoryAgreeOverEveryEntityOfTheTree(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), .inMemory, in: directory)
        try ZooWorkload.seed(stack, count: 120, random: &random)
        let all = try stack.fetchAll(From<ZooAnimal>())  // held, so the main context keeps them
        #expect(all.count == 120)
        for index in 0..<60 {
            let context = "seed \(seed), predicate #\(index)"
            try check(ZooAnimal.self, .animal, all, &random, stack, context)
            try check(ZooDog.self, .dog, all, &random, stack, context)
            try check(ZooCat.self, .cat, all, &random, stack, context)
            try check(ZooLion.self, .lion, all, &random, stack, context)
        }
    }

    private func check<Animal: ZooAnimal>(
        _ type: Animal.Type, _ kind: ZooKind, _ all: [ZooAnimal], _ random: inout SplitMix64,
        _ stack: DataStack, _ context: String
    ) throws {
        let (predicate, text) = Self.randomPredicate(Animal.self, &random)
        let order: OrderBy<Animal> = random.next() % 2 == 0
            ? OrderBy(.ascending(\.$name, .caseInsensitive), .descending(\.$legs))
            : OrderBy(.descending(\.$tag), .ascending(\.$keeper ~ \.$name))
        // Half the time without subentities (`Tweak.includesSubentities`):
        // then only the entity's own objects match.
        let subentities = random.next() % 2 == 0
        let query = From<Animal>().where(predicate).tweak { $0.includesSubentities = subentities }
        let kinds = subentities ? kind.family : [kind]
        let context = "\(context), \(Animal.self) where \(text), subentities \(subentities)"
        let fetched = try stack.fetchAll(query.orderBy(order))
        let family = all.filter { kinds.contains(ZooKind.of($0)) }.map { $0 as! Animal }
        let selected = family.filter { predicate.evaluate($0) == true }.sorted(by: order.areInIncreasingOrder)
        #expect(fetched.map(\.rowID) == selected.map(\.rowID), "\(context)")
        #expect(fetched.allSatisfy { kinds.contains(ZooKind.of($0)) }, "\(context)")
        #expect(try stack.fetchCount(query) == selected.count, "\(context)")
        #expect(try stack.fetchExists(query) == !selected.isEmpty, "\(context)")
        #expect(try Set(stack.fetchObjectIDs(query).map(\.rowID)) == Set(selected.map(\.rowID)), "\(context)")
        let sum = try stack.queryValue(query.select(Int.self, .sum(\.$legs)))
        #expect((sum ?? 0) == selected.reduce(0) { $0 + $1.legs }, "\(context)")
    }

    /// Without subentities, a bulk write of an entity of the tree changes
    /// only that entity's own rows, on every store; a root's too, though
    /// its fetch reads the whole table.
    @Test(arguments: StoreKind.allCases)
    func bulkWritesWithoutSubentitiesTouchOnlyTheEntitysOwnRows(_ kind: StoreKind) throws {
        var random = SplitMix64(seed: 7)
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        try ZooWorkload.seed(stack, count: 80, random: &random)
        func kinds() throws -> [ZooKind: Int] {
            Dictionary(grouping: try stack.fetchAll(From<ZooAnimal>()), by: ZooKind.of).mapValues(\.count)
        }
        let before = try kinds()
        let renamed = try stack.perform(synchronous: { tx in
            try tx.updateAll(From<ZooCat>().tweak { $0.includesSubentities = false }, [.set(\.$name, to: "cat")])
        })
        #expect(renamed == before[.cat])
        #expect(try stack.fetchAll(From<ZooAnimal>().where(\.$name == "cat")).allSatisfy { ZooKind.of($0) == .cat })
        let deleted = try stack.perform(synchronous: { tx in
            try tx.deleteAll(From<ZooAnimal>().tweak { $0.includesSubentities = false })
        })
        #expect(deleted == before[.animal])
        var after = before
        after[.animal] = nil
        #expect(try kinds() == after)
        #expect(try stack.fetchCount(From<ZooAnimal>().tweak { $0.includesSubentities = false }) == 0)
    }

    private static func randomPredicate<Animal: ZooAnimal>(
        _ type: Animal.Type, _ random: inout SplitMix64
    ) -> (Where<Animal>, String) {
        let name = ZooWorkload.names[Int(random.next() % UInt64(ZooWorkload.names.count))]
        let legs = Int(random.next() % 5)
        let terms: [(Where<Animal>, String)] = [
            (Where(\.$legs >= legs), "legs >= \(legs)"),
            (Where(\.$name == name), "name == \(name)"),
            (Where(\.$name, .hasPrefix(String(name.prefix(1)), .caseInsensitive)), "name hasPrefix"),
            (Where(\.$keeper == nil), "keeper == nil"),
            (\.$keeper ~ \.$name == "k1", "keeper.name == k1"),
            (Where(\.$tag != nil), "tag != nil"),
        ]
        let first = terms[Int(random.next() % UInt64(terms.count))]
        let second = terms[Int(random.next() % UInt64(terms.count))]
        switch random.next() % 3 {
        case 0: return first
        case 1: return (first.0 && second.0, "\(first.1) && \(second.1)")
        default: return (first.0 || !second.0, "\(first.1) || !(\(second.1))")
        }
    }
}
