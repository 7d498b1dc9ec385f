import Foundation
@testable import Strata
import Testing

/// Items for the membership fetch that SQLite runs as a join with its list:
/// a field named `value`, as the list's own column is, and fields that keep
/// the `IN` form (a real, an unindexed text).
final class ListJoinItem: ManagedObject {
    @Field.Stored("code", .unique) var code: String = ""
    @Field.Stored("rank", .indexed) var rank: Int = 0
    @Field.Stored("value", .indexed) var value: String = ""
    @Field.Stored("amount", .indexed) var amount: Double = 0
    @Field.Stored("note") var note: String = ""
}

let listJoinSchema = Schema("L1", entities: [Entity<ListJoinItem>("ListJoinItem")])

/// A fetch whose whole predicate is membership of many values in an indexed
/// field reads each value's rows through the index with the list as the outer
/// loop (`From.listJoinSelect`), where `IN` would first copy the list into a
/// temporary index. Whatever the SQL, it must return what the predicate
/// selects in memory, each object once: values repeated or equal only by
/// Swift's string equality (`"é"` composed and decomposed) included.
@MainActor
@Suite("Membership of many values: the list joined on SQLite")
struct ListJoinTests {
    /// Texts that differ in bytes, some only in their composition.
    static let texts = ["é", "e\u{301}", "É", "a", "A", "ß", "ss", "ı", "i", "", " ", "0", "00", "1"]

    @Test(arguments: StoreKind.allCases)
    func manyValuesFetchWhatMemorySelectsEachOnce(_ kind: StoreKind) throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let directory = TemporaryDirectory()
        let stack = try makeStack(listJoinSchema, kind, in: directory)
        let texts = Self.texts
        try stack.perform(synchronous: { tx in
            for index in 0..<300 {
                let item = tx.create(Into<ListJoinItem>())
                item.code = index < texts.count ? texts[index] : "code \(random.next() % 100_000)-\(index)"
                item.rank = Int(random.next() % 40) - 20
                item.value = texts[Int(random.next() % UInt64(texts.count))]
                item.amount = Double(random.next() % 30) / 4
                item.note = texts[Int(random.next() % UInt64(texts.count))]
            }
        })
        let items = try stack.fetchAll(From<ListJoinItem>())
        #expect(items.count == 300)
        let entity = try #require(listJoinSchema.entity(named: "ListJoinItem"))

        func pick<T>(_ pool: [T], _ count: Int) -> [T] {
            (0..<count).map { _ in pool[Int(random.next() % UInt64(pool.count))] }
        }
        for round in 0..<24 {
            let count = 33 + Int(random.next() % 150)
            let query: From<ListJoinItem>
            let selects: (ListJoinItem) -> Bool
            let joins: Bool
            switch round % 6 {
            case 0:
                let list = pick(items.map(\.code) + texts + ["absent", "code 1"], count)
                query = From<ListJoinItem>().where(Where(\.$code, in: list))
                selects = { item in list.contains { $0.hasSameUTF8(as: item.code) } }
                joins = true
            case 1:
                let list = pick(Array(-30...30), count)
                query = From<ListJoinItem>().where(Where(\.$rank, in: list))
                selects = { list.contains($0.rank) }
                joins = true
            case 2:
                let list = pick(texts + ["absent"], count)
                query = From<ListJoinItem>().where(Where(\.$value, in: list))
                selects = { item in list.contains { $0.hasSameUTF8(as: item.value) } }
                joins = true
            case 3:
                let list = pick(items.map(\.rowID) + [0, -1, 100_000], count)
                query = From<ListJoinItem>().where(
                    Where(.isIn(ValuePath(field: nil), StoredValueSet(list.map(StoredValue.integer)))))
                selects = { list.contains($0.rowID) }
                joins = true
            case 4:
                let list = pick((0..<40).map { Double($0) / 4 }, count)
                query = From<ListJoinItem>().where(Where(\.$amount, in: list))
                selects = { list.contains($0.amount) }
                joins = false  // a real: 1 and 1.0 would both match one row
            default:
                let list = pick(texts, count)
                query = From<ListJoinItem>().where(Where(\.$note, in: list))
                selects = { item in list.contains { $0.hasSameUTF8(as: item.note) } }
                joins = false  // not indexed: the join would look each value up by a scan
            }
            let fetched = try stack.fetchAll(query)
            let context = "seed \(seed), round \(round), \(kind)"
            // Each once, in row-ID order, as every fetch without an order.
            #expect(fetched.map(\.rowID) == items.filter(selects).map(\.rowID).sorted(), "\(context)")
            #expect(try stack.fetchCount(query) == fetched.count, "\(context)")
            let sql = try query.selectSQL(in: entity, schema: listJoinSchema, dialect: .sqlite).sql
            #expect(sql.contains("CROSS JOIN") == joins, "\(context): \(sql)")
            // In a transaction, with changes not yet written: the fetch writes them first.
            let inTransaction = try stack.perform(synchronous: { tx in
                let added = tx.create(Into<ListJoinItem>())
                added.code = "added"
                added.rank = 0
                added.value = "a"
                return try tx.fetchAll(query).map(\.rowID)
            })
            #expect(inTransaction == inTransaction.sorted() && Set(inTransaction).count == inTransaction.count,
                    "\(context)")
            #expect(Set(inTransaction).isSuperset(of: fetched.map(\.rowID)), "\(context)")
            let deleted = try stack.perform(synchronous: { tx in
                try tx.deleteAll(From<ListJoinItem>().where(\.$code == "added"))
            })
            #expect(deleted == 1, "\(context)")
        }
    }

    /// A subentity's fetch keeps its own rows only, and without its
    /// subentities only the rows of the entity itself.
    @Test(arguments: StoreKind.allCases)
    func aSubentityFetchesItsFamilyOnly(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let schema = zooSchema()
        let stack = try makeStack(schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for legs in 0..<60 {
                let animal: ZooAnimal = switch legs % 3 {
                case 0: tx.create(Into<ZooAnimal>())
                case 1: tx.create(Into<ZooCat>())
                default: tx.create(Into<ZooLion>())
                }
                animal.legs = legs
                animal.tag = "tag \(legs)"
            }
        })
        let legs = Array(0..<50)
        let cats = try stack.fetchAll(From<ZooCat>().where(Where(\.$legs, in: legs)))
        #expect(Set(cats.map(\.legs)) == Set(legs.filter { $0 % 3 != 0 }))
        #expect(cats.count { $0 is ZooLion } == legs.count { $0 % 3 == 2 })
        let tags = (0..<50).map { "tag \($0)" } + ["tag 1", "none"]
        let onlyCats = try stack.fetchAll(
            From<ZooCat>().where(Where(\.$tag, in: tags)).tweak { $0.includesSubentities = false })
        #expect(Set(onlyCats.map(\.legs)) == Set(legs.filter { $0 % 3 == 1 }))
        #expect(onlyCats.allSatisfy { !($0 is ZooLion) })
        let cat = try #require(schema.entity(named: "ZooCat"))
        let sql = try From<ZooCat>().where(Where(\.$legs, in: legs))
            .selectSQL(in: cat, schema: schema, dialect: .sqlite).sql
        #expect(sql.contains("CROSS JOIN") && sql.contains("_entity"), "\(sql)")
    }
}
