import Foundation
@testable import Strata
import Testing

// The V1 store of CustomStepLinkTests.swift, migrated by a custom step to a
// V2 that renames every relationship (with `renamingIdentifier:`), on both
// sides of each pair: a one-to-many's key column, an ordered one's position
// column, link tables and their position columns all take new names.

final class LinkOwnerR: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("goods", inverse: \LinkItemR.$holder, renamingIdentifier: "items")
    var goods: Set<LinkItemR>
    @Field.Relationship("line", inverse: \LinkJobR.$line, renamingIdentifier: "queue")
    var line: [LinkJobR]
    @Field.Relationship("labels", inverse: \LinkTagR.$holders, renamingIdentifier: "tags")
    var labels: Set<LinkTagR>
    @Field.Relationship("mix", inverse: \LinkSongR.$mixes, renamingIdentifier: "playlist")
    var mix: [LinkSongR]
    @Field.Relationship("memos", renamingIdentifier: "notes") var memos: Set<LinkNoteR>
    @Field.Relationship("starred", renamingIdentifier: "pinned") var starred: [LinkNoteR]
    @Field.Relationship("mentor", inverse: \LinkOwnerR.$mentees, renamingIdentifier: "parent")
    var mentor: LinkOwnerR?
    @Field.Relationship("mentees", renamingIdentifier: "children") var mentees: Set<LinkOwnerR>
}

final class LinkItemR: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("holder", renamingIdentifier: "owner") var holder: LinkOwnerR?
}

final class LinkJobR: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("line", renamingIdentifier: "queue") var line: LinkOwnerR?
}

final class LinkTagR: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("holders", renamingIdentifier: "owners") var holders: Set<LinkOwnerR>
}

final class LinkSongR: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("mixes", renamingIdentifier: "lists") var mixes: [LinkOwnerR]
}

final class LinkNoteR: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
}

private let linkV2RenamedRelationships = Schema("V2", entities: [
    Entity<LinkOwnerR>("Owner"), Entity<LinkItemR>("Item"), Entity<LinkJobR>("Job"),
    Entity<LinkTagR>("Tag"), Entity<LinkSongR>("Song"), Entity<LinkNoteR>("Note"),
])

/// Each V2 relationship of Owner by the V1 name it continues.
private let ownerRenames = [
    "goods": "items", "line": "queue", "labels": "tags", "mix": "playlist", "memos": "notes",
    "starred": "pinned", "mentor": "parent", "mentees": "children",
]

extension CustomStepLinkTests {
    /// Relationships renamed in V2 keep every link between kept objects, in
    /// order, whether a custom step transforms (and drops objects of) the
    /// owner only, every entity, or copies them all.
    @Test(arguments: migratingKinds, ["owner", "every", "copy"])
    func renamedRelationshipsKeepTheirLinks(kind: StoreKind, mapped: String) throws {
        for _ in 0..<3 {
            let random = SplitMix64.random()
            try checkRenames(kind: kind, mapped: mapped, seed: random.seed)
        }
    }

    private func checkRenames(kind: StoreKind, mapped: String, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let plan = LinkPlan(random: &random)
        let (before, unkept) = try writeV1Store(kind, in: directory, plan: plan)
        let entities = ["Owner"] + linkTargets
        let mappings: [CustomEntityMapping]
        let dropping: [String]
        switch mapped {
        case "owner":
            (mappings, dropping) = ([stamping("Owner", "Owner", dropping: true)], ["Owner"])
        case "every":
            (mappings, dropping) = (entities.map { stamping($0, $0, dropping: true) }, entities)
        default:
            (mappings, dropping) = (entities.map { .copyEntity(source: $0, destination: $0) }, [])
        }
        var kept = before.objects.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        for entity in dropping { kept.subtract(unkept[entity]!) }
        let expected = before.keeping(kept)

        let stack = DataStack(schemaHistory: SchemaHistory(
            [linkV1, linkV2RenamedRelationships], chain: ["V1", "V2"], mappingProviders: [
                CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: mappings),
            ]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        var after = LinkContents()
        let owners = try stack.fetchAll(From<LinkOwnerR>())
        after.objects["Owner"] = Set(owners.map(\.name))
        for owner in owners {
            after.items[owner.name] = Set(owner.goods.map(\.name))
            after.queue[owner.name] = owner.line.map(\.name)
            after.tags[owner.name] = Set(owner.labels.map(\.name))
            after.playlist[owner.name] = owner.mix.map(\.name)
            after.notes[owner.name] = Set(owner.memos.map(\.name))
            after.pinned[owner.name] = owner.starred.map(\.name)
            after.children[owner.name] = Set(owner.mentees.map(\.name))
            after.parent[owner.name] = owner.mentor?.name
        }
        let items = try stack.fetchAll(From<LinkItemR>())
        after.objects["Item"] = Set(items.map(\.name))
        for item in items { after.ownerOfItem[item.name] = item.holder?.name }
        let jobs = try stack.fetchAll(From<LinkJobR>())
        after.objects["Job"] = Set(jobs.map(\.name))
        for job in jobs { after.queueOfJob[job.name] = job.line?.name }
        let tags = try stack.fetchAll(From<LinkTagR>())
        after.objects["Tag"] = Set(tags.map(\.name))
        for tag in tags { after.ownersOfTag[tag.name] = Set(tag.holders.map(\.name)) }
        let songs = try stack.fetchAll(From<LinkSongR>())
        after.objects["Song"] = Set(songs.map(\.name))
        for song in songs { after.listsOfSong[song.name] = song.mixes.map(\.name) }
        after.objects["Note"] = Set(try stack.fetchAll(From<LinkNoteR>()).map(\.name))

        let context = "\(mapped), \(kind), seed \(seed)"
        let differences = after.differences(from: expected)
        #expect(differences.isEmpty, "\(context): \(differences.joined(separator: "; "))")
        let stored = try storedLinkCounts(
            kind, in: directory, schema: linkV2RenamedRelationships, owner: LinkOwnerR.self)
        let storedByOldName = Dictionary(
            uniqueKeysWithValues: stored.map { (ownerRenames[$0.key] ?? $0.key, $0.value) })
        #expect(storedByOldName == expected.linkCounts,
                "no link is left to an object that is gone: \(context)")
    }
}
