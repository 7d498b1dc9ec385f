import Foundation
@testable import Strata
import Testing

// LV1 → LV2 over names whose link tables, work tables (`_strata_migrating_…`)
// and position column pass PostgreSQL's 63 bytes and are alike in their
// first 63: the owner's first to-many is renamed, its second removed, a third
// added; the items keep their order.

private let ownerEntity = "StrataNamesPastPostgreSQLsLimitOf63BytesAreShortenedOwner"
private let tagEntity = "StrataNamesPastPostgreSQLsLimitOf63BytesAreShortenedTag"
private let itemEntity = "StrataNamesPastPostgreSQLsLimitOf63BytesAreShortenedItem"
private let firstTags = "tagsOfTheFirstKindWithARelationshipNameThatIsLong"
private let secondTags = "tagsOfTheSecondKindWithARelationshipNameThatIsLong"
private let renamedTags = "tagsOfTheFirstKindRenamedWithALongRelationshipName"
private let thirdTags = "tagsOfTheThirdKindWithARelationshipNameThatIsLong"

final class LongOwnerV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("tagsOfTheFirstKindWithARelationshipNameThatIsLong")
    var first: Set<LongTagV1>
    @Field.Relationship("tagsOfTheSecondKindWithARelationshipNameThatIsLong")
    var second: Set<LongTagV1>
    @Field.Relationship("items", inverse: \LongItemV1.$owner) var items: [LongItemV1]
}

final class LongTagV1: ManagedObject {
    @Field.Stored("label") var label: String = ""
}

final class LongItemV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("ownerWhoKeepsThisItemInAnOrderedListUnderAVeryLongNameIndeed")
    var owner: LongOwnerV1?
}

final class LongOwnerV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship(
        "tagsOfTheFirstKindRenamedWithALongRelationshipName",
        renamingIdentifier: "tagsOfTheFirstKindWithARelationshipNameThatIsLong")
    var renamed: Set<LongTagV2>
    @Field.Relationship("tagsOfTheThirdKindWithARelationshipNameThatIsLong")
    var third: Set<LongTagV2>
    @Field.Relationship("items", inverse: \LongItemV2.$owner) var items: [LongItemV2]
}

final class LongTagV2: ManagedObject {
    @Field.Stored("label") var label: String = ""
}

final class LongItemV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("ownerWhoKeepsThisItemInAnOrderedListUnderAVeryLongNameIndeed")
    var owner: LongOwnerV2?
}

private let longV1 = Schema("LV1", entities: [
    Entity<LongOwnerV1>(ownerEntity), Entity<LongTagV1>(tagEntity), Entity<LongItemV1>(itemEntity),
])
private let longV2 = Schema("LV2", entities: [
    Entity<LongOwnerV2>(ownerEntity), Entity<LongTagV2>(tagEntity), Entity<LongItemV2>(itemEntity),
])

/// Writes the LV1 store: Ann with tags t1 and t2 of the first kind, t3 of
/// the second, items i0, i1, i2 in that order; Bob with t3 of the first kind.
@MainActor
private func makeLongV1Store(_ kind: StoreKind, in directory: TemporaryDirectory) async throws {
    do {
        let stack = try makeStack(longV1, kind, in: directory)
        try stack.perform(synchronous: { tx in
            let tags = ["t1", "t2", "t3"].map { label in
                let tag = tx.create(Into<LongTagV1>())
                tag.label = label
                return tag
            }
            let ann = tx.create(Into<LongOwnerV1>())
            ann.name = "Ann"
            ann.first = Set(tags[0...1])
            ann.second = [tags[2]]
            ann.items = ["i0", "i1", "i2"].map { name in
                let item = tx.create(Into<LongItemV1>())
                item.name = name
                return item
            }
            let bob = tx.create(Into<LongOwnerV1>())
            bob.name = "Bob"
            bob.first = [tags[2]]
        })
    }
    try await settleStore(kind, in: directory)
}

/// The store's tables: no work table is left, the link tables are those of
/// LV2, and SQLite has them under their names (PostgreSQL under their stored names).
private func expectLV2Tables(_ kind: StoreKind, in directory: TemporaryDirectory) throws {
    let connection = try makeStorage(kind, in: directory).settings.openConnection(.inspector)
    defer { connection.close() }
    let tables = try connection.tableNames()
    let stored = connection.dialect.storedName
    #expect(!tables.contains { $0.hasPrefix(InferredMigration.temporaryPrefix) }, "\(tables)")
    let present = [renamedTags: true, thirdTags: true, firstTags: false, secondTags: false]
    for (relationship, isPresent) in present {
        let link = "_strata_link_\(ownerEntity)_\(relationship)"
        let name = kind == .file ? link : stored(link)
        #expect(tables.contains(name) == isPresent, "\(link): \(tables)")
    }
}

extension InferredMigrationTests {
    /// A step that renames, removes and adds relationships whose link tables
    /// have long names carries every link and position, leaves no work table,
    /// and the store opens again and takes writes and deletes.
    @Test(arguments: migratingKinds)
    func relationshipsWithLongNamesAreRenamedRemovedAndAdded(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        try await makeLongV1Store(kind, in: directory)
        let history = SchemaHistory([longV1, longV2], chain: ["LV1", "LV2"])
        let owners = From<LongOwnerV2>().orderBy(.ascending(\.$name))
        do {
            let stack = DataStack(schemaHistory: history)
            try stack.addStorageAndWait(makeStorage(kind, in: directory))
            let people = try stack.fetchAll(owners)
            #expect(people.map(\.name) == ["Ann", "Bob"])
            #expect(people.map { $0.renamed.map(\.label).sorted() } == [["t1", "t2"], ["t3"]])
            #expect(people.allSatisfy { $0.third.isEmpty })
            #expect(people[0].items.map(\.name) == ["i0", "i1", "i2"])
            try stack.perform(synchronous: { tx in
                let people = try tx.fetchAll(owners)
                people[0].third = Set(try tx.fetchAll(From<LongTagV2>().where(\.$label == "t3")))
                tx.delete(people[1])
            })
        }
        try expectLV2Tables(kind, in: directory)
        let stack = DataStack(schemaHistory: history)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let ann = try #require(try stack.fetchOne(owners))
        #expect(try stack.fetchCount(owners) == 1)
        #expect(ann.renamed.map(\.label).sorted() == ["t1", "t2"])
        #expect(ann.third.map(\.label) == ["t3"])
        #expect(ann.items.map(\.name) == ["i0", "i1", "i2"])
    }
}

extension CustomMappingTests {
    /// A transformed entity is built in its work table, `_strata_migrating_`
    /// and its long name, beside the work tables of its link tables, and a
    /// hook writes a link table by its long name.
    @Test(arguments: migratingKinds)
    func aTransformOfEntitiesWithLongNamesBuildsTheirWorkTables(kind: StoreKind) async throws {
        let directory = TemporaryDirectory()
        try await makeLongV1Store(kind, in: directory)
        // Bob is dropped, Ann's name written in capitals.
        let transform = CustomEntityMapping.transformEntity(
            source: ownerEntity, destination: ownerEntity
        ) { source, createDestination in
            let name = try source.value("name", as: String.self)
            guard name != "Bob" else { return }
            createDestination()["name"] = .text(name.uppercased())
        }
        let link = SQL.quote("_strata_link_\(ownerEntity)_\(thirdTags)")
        let stage = MigrationStage(from: "LV1", to: "LV2", didMigrate: { context in
            try context.execute(
                "INSERT INTO \(link) (\"source\", \"target\") SELECT o._pk, t._pk "
                    + "FROM \(SQL.quote(ownerEntity)) AS o, \(SQL.quote(tagEntity)) AS t "
                    + "WHERE t.\"label\" = ?",
                [.text("t1")])
        })
        let stack = DataStack(schemaHistory: SchemaHistory(
            [longV1, longV2], chain: ["LV1", "LV2"],
            mappingProviders: [
                CustomSchemaMappingProvider(from: "LV1", to: "LV2", entityMappings: [transform]),
            ],
            stages: [stage]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let people = try stack.fetchAll(From<LongOwnerV2>())
        #expect(people.map(\.name) == ["ANN"])
        #expect(people.first?.renamed.map(\.label).sorted() == ["t1", "t2"])
        #expect(people.first?.third.map(\.label) == ["t1"], "the hook's link")
        #expect(people.first?.items.map(\.name) == ["i0", "i1", "i2"])
        #expect(try stack.fetchCount(From<LongTagV2>()) == 3)
        try expectLV2Tables(kind, in: directory)
    }
}
