import Foundation
import Testing

@testable import Strata

/// CoreStore's `SelectTerm.objectID()`: the law is that a query selecting
/// the object's ID returns exactly the IDs ``FetchableSource/fetchObjectIDs(_:)``
/// returns for the same clauses, in the same order (`queryValue` the first
/// of them), on the stack and in a transaction with pending changes.
@MainActor
@Suite("Select .objectID(): the IDs fetchObjectIDs returns")
struct SelectObjectIDTests {
    /// Fixed seeds on every store kind, and a fresh one each run (printed in every failure).
    nonisolated static let cases: [(StoreKind, UInt64)] =
        StoreKind.allCases.map { ($0, 0x0B1D_5E01) } + [(.inMemory, SplitMix64.random().seed)]

    /// The IDs of `rows`, read back from the text under `key`.
    static func ids(_ rows: [[String: StoredValue]], key: String = "objectID") throws -> [ObjectID<ProbeItem>] {
        try rows.map { row in
            guard case .text(let text)? = row[key] else { throw StrataError.invalidValue(entity: "?", field: key, reason: "\(row)") }
            return try ObjectID<ProbeItem>(parsing: text, in: probeSchema)
        }
    }

    /// Random data, then random lists of `Where`, `OrderBy` and `Tweak`
    /// clauses: `queryValue` of `.objectID()` is `fetchObjectID`'s answer,
    /// and the `objectID` column of `queryAttributes` is `fetchObjectIDs`'
    /// answer, beside the field asked with it, which reads as it does
    /// alone; on the stack, then in a
    /// transaction that created, changed and deleted objects.
    @Test(arguments: cases)
    func objectIDTermsReturnWhatFetchObjectIDsReturns(kind: StoreKind, seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try ProbeData.populate(stack, seed: seed, items: 140)
        var generator = ProbeGenerator(
            random: ProbeRandom(seed: seed ^ 0x1D),
            groups: try stack.fetchAll(From<ProbeGroup>()), tags: try stack.fetchAll(From<ProbeTag>()))
        generator.mixesStorageClasses = kind != .postgreSQL
        let lists = (0..<60).map { _ in generator.clauseList() }

        /// The disagreements of `source` over `lists`, each naming its case.
        func disagreements(_ source: some QueryableSource, _ lists: ArraySlice<ProbeClauseList>) -> [String] {
            let from = From<ProbeItem>()
            return lists.enumerated().flatMap { index, list in
                let ids = { try source.fetchObjectIDs(from, list.fetchClauses) }
                return [
                    mismatch("queryValue", {
                        try source.queryValue(from, Select<ProbeItem, ObjectID<ProbeItem>>(.objectID()), list.queryClauses)
                    }, { try source.fetchObjectID(from, list.fetchClauses) }),
                    mismatch("queryValue, chained", {
                        try source.queryValue(list.chained(from.select(ObjectID<ProbeItem>.self, .objectID())))
                    }, { try source.fetchObjectID(from, list.fetchClauses) }),
                    mismatch("queryAttributes", {
                        try Self.ids(source.queryAttributes(from, Select("number", .objectID()), list.queryClauses))
                    }, ids),
                    // (Not against fetchAll: with pending changes left out it
                    // matches the committed rows but gives their current values.)
                    mismatch("queryAttributes' other column", {
                        try source.queryAttributes(from, Select("number", .objectID(as: "id")), list.queryClauses)
                            .map { $0["number"] }
                    }, { try source.queryAttributes(from, Select("number"), list.queryClauses).map { $0["number"] } }),
                ].compactMap { $0.map { "seed \(seed), #\(index), \(list): \($0)" } }
            }
        }

        var failures = disagreements(stack, lists[0..<40])
        failures += try stack.perform(synchronous: { tx in
            for number in 0..<6 { tx.create(Into<ProbeItem>()).number = number }
            for item in try tx.fetchAll(From<ProbeItem>().tweak { $0.fetchLimit = 12 }) {
                item.number &+= 1  // the probe values include Int.max
            }
            try tx.deleteAll(From<ProbeItem>().where(\.$number == 5))
            return disagreements(tx, lists[40...])
        })
        for failure in failures.prefix(5) { Issue.record("\(failure)") }
        #expect(failures.count == 0)
    }

    /// In an inheritance tree each ID names its object's own entity, as
    /// `fetchObjectIDs` does, whichever entity of the tree is queried; in a
    /// transaction too, for an object it has not saved.
    @Test(arguments: StoreKind.allCases)
    func anIDNamesTheObjectsConcreteEntity(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(zooSchema(), kind, in: directory)
        try stack.perform(synchronous: { tx in
            tx.create(Into<ZooAnimal>()).name = "0"
            tx.create(Into<ZooDog>()).name = "1"
            tx.create(Into<ZooCat>()).name = "2"
            tx.create(Into<ZooLion>()).name = "3"
        })
        let leo = try stack.queryValue(
            From<ZooAnimal>(), Select<ZooAnimal, ObjectID<ZooAnimal>>(), Where<ZooAnimal>(\.$name == "3"))
        #expect(leo?.entityName == "ZooLion")
        #expect(try leo.flatMap { try stack.fetchExisting($0) } is ZooLion)
        for query in [From<ZooAnimal>(), From<ZooAnimal>().orderBy(.descending(\.$name))] {
            let rows = try stack.queryAttributes(query.select(.objectID(), .attribute(\.$name)))
            #expect(rows.map { $0["objectID"] } == (try stack.fetchObjectIDs(query)).map { .text($0.description) })
            #expect(rows.count == 4)
        }
        let cats = try stack.queryAttributes(From<ZooCat>(), Select(.objectID()))
        #expect(cats.compactMap { $0["objectID"] }.sorted { "\($0)" < "\($1)" } == [
            .text("ZooCat/3"), .text("ZooLion/4"),
        ])
        let pending = try stack.perform(synchronous: { tx in
            let cub = tx.create(Into<ZooLion>())
            cub.name = "Cub"
            try tx.fetchOne(From<ZooCat>().where(\.$name == "2")).map { tx.delete($0) }
            return try (
                cub.objectID.erased,
                tx.queryValue(From<ZooCat>().where(\.$name == "Cub").select(ObjectID<ZooCat>.self, .objectID()))?.erased,
                tx.queryAttributes(From<ZooCat>(), Select(.objectID())).compactMap { $0["objectID"] })
        })
        #expect(pending.1 == pending.0)
        #expect(pending.2 == [.text("ZooLion/4"), .text(pending.0.description)])
    }

    /// On a stack of several stores an ID names the store's configuration,
    /// as the object's own ID does; a query over two stores that hold the
    /// entity throws, as every `Select` query does.
    @Test
    func anIDNamesItsStoresConfiguration() throws {
        let directory = TemporaryDirectory()
        let stack = try makeConfigurationStack([nil, "Config1"], .inMemory, in: directory)
        let (plain, cached) = try stack.perform(synchronous: { tx in
            let plain = tx.create(Into<CfgItem>(nil))
            let cached = tx.create(Into<CfgItem>("Config1"))
            (plain.key, cached.key) = (1, 2)
            return (plain.objectID, cached.objectID)
        })
        #expect(cached.configuration == "Config1")
        #expect(try stack.queryValue(From<CfgItem>("Config1"), Select<CfgItem, ObjectID<CfgItem>>()) == cached)
        #expect(try stack.queryValue(From<CfgItem>(nil), Select<CfgItem, ObjectID<CfgItem>>()) == plain)
        #expect(try stack.queryAttributes(From<CfgItem>("Config1"), Select(.objectID())) == [
            ["objectID": .text(cached.description)]
        ])
        #expect(throws: StrataError.self) {
            try stack.queryValue(From<CfgItem>(), Select<CfgItem, ObjectID<CfgItem>>())
        }
    }

    /// CoreStore's answers at the edges: no match is `nil`; `.objectID()`
    /// asked as another type, or another term asked as an `ObjectID`, is
    /// `nil`; a query that groups or aggregates beside it throws, on every store.
    @Test(arguments: StoreKind.allCases)
    func edgesAnswerNilAndMeaninglessCombinationsThrow(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(probeSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for number in [3, 1, 2] { tx.create(Into<ProbeItem>()).number = number }
        })
        let from = From<ProbeItem>().orderBy(.ascending(\.$number))
        #expect(try stack.queryValue(from, Select<ProbeItem, ObjectID<ProbeItem>>())?.rowID == 2)
        #expect(try stack.queryValue(from.where(\.$number > 9).select(Select<ProbeItem, ObjectID<ProbeItem>>())) == nil)
        #expect(try stack.queryValue(from, Select<ProbeItem, Int>(.objectID())) == nil)
        #expect(try stack.queryValue(from, Select<ProbeItem, String>(.objectID())) == nil)
        #expect(try stack.queryValue(from, Select<ProbeItem, ObjectID<ProbeItem>>(.attribute(\.$number))) == nil)
        // The second term does not count: the first is the value.
        #expect(try stack.queryValue(from, Select<ProbeItem, Int>(.attribute(\.$number), .objectID())) == 1)

        let grouped: [(String, () throws -> Any)] = [
            ("GroupBy", { try stack.queryAttributes(From<ProbeItem>(), Select("number", .objectID()), GroupBy<ProbeItem>("number")) }),
            ("count", { try stack.queryAttributes(From<ProbeItem>().select(.objectID(), .count())) }),
            ("queryValue, sum", { try stack.queryValue(From<ProbeItem>().select(ObjectID<ProbeItem>.self, .objectID(), .sum(\.$number))) as Any }),
        ]
        for (name, query) in grouped {
            do {
                _ = try query()
                Issue.record("\(name): no error")
            } catch StrataError.invalidValue(_, "objectID", let reason) {
                #expect(reason.contains("one per object"), "\(name)")
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
        // The stack answers the next query after the refusal.
        #expect(try stack.queryAttributes(From<ProbeItem>().select(.count())) == [["count": .integer(3)]])
    }

    /// The term's name, CoreStore's default key `objectID` or the alias,
    /// its equality, and the SQL it compiles to: the row ID, and the
    /// discriminator after the terms when the entity shares a tree's table.
    @Test
    func theTermIsNamedComparedAndCompiled() throws {
        #expect(SelectTerm<ProbeItem>.objectID().name == "objectID")
        #expect(SelectTerm<ProbeItem>.objectID(as: "id").name == "id")
        #expect(SelectTerm<ProbeItem>.objectID() == .objectID())
        #expect(SelectTerm<ProbeItem>.objectID() != .objectID(as: "id"))
        #expect(SelectTerm<ProbeItem>.objectID(as: "number") != .attribute("number"))
        #expect(Select<ProbeItem, ObjectID<ProbeItem>>() == Select(.objectID()))

        let schema = zooSchema()
        let animal = try #require(schema.entity(named: "ZooAnimal"))
        let plain = try From<ProbeItem>().select(.attribute(\.$number), .objectID())
            .compile(in: probeSchema.entity(of: ProbeItem.self), schema: probeSchema, dialect: .sqlite)
        #expect(plain.sql == #"SELECT t0."number" AS "number", t0._pk AS "objectID" FROM "Item" AS t0 ORDER BY t0._pk ASC"#)
        #expect(!plain.readsEntity)
        let first = try From<ProbeItem>().where(\.$number == 1).select(Select<ProbeItem, ObjectID<ProbeItem>>())
            .compile(in: probeSchema.entity(of: ProbeItem.self), schema: probeSchema, dialect: .sqlite, limit: 1)
        #expect(first.sql == #"SELECT t0._pk AS "objectID" FROM "Item" AS t0 WHERE t0."number" = ? ORDER BY t0._pk ASC LIMIT ? OFFSET ?"#)
        let tree = try From<ZooAnimal>().select(.objectID(as: "id"))
            .compile(in: animal, schema: schema, dialect: .sqlite)
        #expect(tree.sql == #"SELECT t0._pk AS "id", t0."_entity" FROM "ZooAnimal" AS t0 ORDER BY t0._pk ASC"#)
        #expect(tree.readsEntity && tree.names == ["id"])
    }
}
