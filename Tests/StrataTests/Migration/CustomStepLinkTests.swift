import Foundation
@testable import Strata
import Testing

/// One custom V1 → V2 step: its mappings, and what they ask for, by V1
/// entity name: the entities whose objects without `keep` are dropped, those
/// that do not continue at all (deleted, or inserted empty), and those a
/// transformer writes.
enum LinkStep: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case transformOwner, transformOwnerDropping
    case transformTargets, transformTargetsDropping
    case transformBoth, transformBothDropping
    case copyEveryEntity
    case renamedOwnerTransformed, renamedTargetsTransformed, renamedByTheMappingAlone
    case insertTag, deleteSong, deleteOwner

    var testDescription: String { rawValue }

    var destination: Schema {
        switch self {
        case .renamedOwnerTransformed, .renamedTargetsTransformed: linkV2Renamed
        case .renamedByTheMappingAlone: linkV2RenamedByMapping
        default: linkV2
        }
    }

    var mappings: [CustomEntityMapping] {
        switch self {
        case .transformOwner: [stamping("Owner", "Owner", dropping: false)]
        case .transformOwnerDropping: [stamping("Owner", "Owner", dropping: true)]
        case .transformTargets: linkTargets.map { stamping($0, $0, dropping: false) }
        case .transformTargetsDropping: linkTargets.map { stamping($0, $0, dropping: true) }
        case .transformBoth: (["Owner"] + linkTargets).map { stamping($0, $0, dropping: false) }
        case .transformBothDropping:
            (["Owner"] + linkTargets).map { stamping($0, $0, dropping: true) }
        case .copyEveryEntity:
            (["Owner"] + linkTargets).map { .copyEntity(source: $0, destination: $0) }
        case .renamedOwnerTransformed:
            [stamping("Owner", "Vault", dropping: true),
             .copyEntity(source: "Tag", destination: "Label")]
        case .renamedTargetsTransformed:
            [.copyEntity(source: "Owner", destination: "Vault"),
             stamping("Tag", "Label", dropping: true), stamping("Song", "Song", dropping: true)]
        case .renamedByTheMappingAlone:
            [stamping("Owner", "Vault", dropping: true), stamping("Tag", "Label", dropping: false)]
        case .insertTag: [.insertEntity("Tag"), stamping("Owner", "Owner", dropping: true)]
        case .deleteSong: [.deleteEntity("Song"), stamping("Job", "Job", dropping: true)]
        case .deleteOwner: [.deleteEntity("Owner"), stamping("Tag", "Tag", dropping: false)]
        }
    }

    var dropping: Set<String> {
        switch self {
        case .transformOwnerDropping, .renamedOwnerTransformed, .renamedByTheMappingAlone,
             .insertTag:
            ["Owner"]
        case .transformTargetsDropping: Set(linkTargets)
        case .transformBothDropping: Set(["Owner"] + linkTargets)
        case .renamedTargetsTransformed: ["Tag", "Song"]
        case .deleteSong: ["Job"]
        default: []
        }
    }

    var emptied: Set<String> {
        switch self {
        case .insertTag: ["Tag"]
        case .deleteSong: ["Song"]
        case .deleteOwner: ["Owner"]
        default: []
        }
    }

    var transformed: Set<String> {
        var names: Set<String> = []
        for mapping in mappings {
            if case .transformEntity(let source, _, _) = mapping { names.insert(source) }
        }
        return names
    }
}

/// A random V1 store's contents, as indices: how many objects of each
/// entity, which keep, and every link, from the owners' side.
struct LinkPlan: Sendable {
    var counts: [String: Int] = [:]
    var keep: [String: [Bool]] = [:]
    var itemOwner: [Int?] = []
    var queues: [[Int]] = []
    var tags: [Set<Int>] = []
    var playlists: [[Int]] = []
    /// A sort key per song and owner: each song's lists, in their order.
    var listOrder: [[UInt64]] = []
    var notes: [Set<Int>] = []
    var pinned: [[Int]] = []
    var parent: [Int?] = []

    init(random: inout SplitMix64) {
        let largest = ["Owner": 6, "Item": 12, "Job": 12, "Tag": 8, "Song": 8, "Note": 8]
        for (entity, most) in largest.sorted(by: { $0.key < $1.key }) {
            let count = Int.random(in: 0...most, using: &random)
            counts[entity] = count
            keep[entity] = (0..<count).map { _ in Bool.random(using: &random) }
        }
        let owners = counts["Owner"]!
        func owner(_ random: inout SplitMix64) -> Int? {
            let pick = Int.random(in: 0...owners, using: &random)  // `owners`: none
            return pick < owners ? pick : nil
        }
        func subset(_ entity: String, _ random: inout SplitMix64) -> [Int] {
            (0..<counts[entity]!).filter { _ in Int.random(in: 0...2, using: &random) == 0 }
                .shuffled(using: &random)
        }
        itemOwner = (0..<counts["Item"]!).map { _ in owner(&random) }
        queues = Array(repeating: [], count: owners)
        for job in (0..<counts["Job"]!).shuffled(using: &random) {
            if let owner = owner(&random) { queues[owner].append(job) }
        }
        tags = (0..<owners).map { _ in Set(subset("Tag", &random)) }
        playlists = (0..<owners).map { _ in subset("Song", &random) }
        listOrder = (0..<counts["Song"]!).map { _ in (0..<owners).map { _ in random.next() } }
        notes = (0..<owners).map { _ in Set(subset("Note", &random)) }
        pinned = (0..<owners).map { _ in subset("Note", &random) }
        parent = (0..<owners).map { _ in owner(&random) }
    }
}

/// Every link of a store, by object name (names are unique across
/// entities), read from both sides through fetched objects, with the names
/// of each entity's objects by V1 entity name.
struct LinkContents: Equatable {
    var objects: [String: Set<String>] = [:]
    var items: [String: Set<String>] = [:]
    var queue: [String: [String]] = [:]
    var tags: [String: Set<String>] = [:]
    var playlist: [String: [String]] = [:]
    var notes: [String: Set<String>] = [:]
    var pinned: [String: [String]] = [:]
    var children: [String: Set<String>] = [:]
    var parent: [String: String] = [:]
    var ownerOfItem: [String: String] = [:]
    var queueOfJob: [String: String] = [:]
    var ownersOfTag: [String: Set<String>] = [:]
    var listsOfSong: [String: [String]] = [:]

    /// What is left when only the objects named in `kept` remain: their
    /// links to each other, in the same order.
    func keeping(_ kept: Set<String>) -> LinkContents {
        func sets(_ map: [String: Set<String>]) -> [String: Set<String>] {
            map.filter { kept.contains($0.key) }.mapValues { $0.filter(kept.contains) }
        }
        func lists(_ map: [String: [String]]) -> [String: [String]] {
            map.filter { kept.contains($0.key) }.mapValues { $0.filter(kept.contains) }
        }
        func ones(_ map: [String: String]) -> [String: String] {
            map.filter { kept.contains($0.key) && kept.contains($0.value) }
        }
        var result = LinkContents()
        result.objects = objects.mapValues { $0.filter(kept.contains) }
        result.items = sets(items)
        result.queue = lists(queue)
        result.tags = sets(tags)
        result.playlist = lists(playlist)
        result.notes = sets(notes)
        result.pinned = lists(pinned)
        result.children = sets(children)
        result.parent = ones(parent)
        result.ownerOfItem = ones(ownerOfItem)
        result.queueOfJob = ones(queueOfJob)
        result.ownersOfTag = sets(ownersOfTag)
        result.listsOfSong = lists(listsOfSong)
        return result
    }

    /// The fields that differ from `other`, the expected contents, named
    /// with both values, for a failure message.
    func differences(from other: LinkContents) -> [String] {
        var found: [String] = []
        func compare<Value: Equatable>(_ label: String, _ field: KeyPath<LinkContents, Value>) {
            guard self[keyPath: field] != other[keyPath: field] else { return }
            found.append("\(label) \(self[keyPath: field]), expected \(other[keyPath: field])")
        }
        compare("objects", \.objects)
        compare("Owner.items", \.items)
        compare("Owner.queue", \.queue)
        compare("Owner.tags", \.tags)
        compare("Owner.playlist", \.playlist)
        compare("Owner.notes", \.notes)
        compare("Owner.pinned", \.pinned)
        compare("Owner.children", \.children)
        compare("Owner.parent", \.parent)
        compare("Item.owner", \.ownerOfItem)
        compare("Job.queue", \.queueOfJob)
        compare("Tag.owners", \.ownersOfTag)
        compare("Song.lists", \.listsOfSong)
        return found
    }

    /// How many links each of Owner's relationships holds, as the store
    /// keeps them: a foreign key set, or a link table's row.
    var linkCounts: [String: Int64] {
        func total<Members: Collection>(_ map: [String: Members]) -> Int64 {
            Int64(map.values.map(\.count).reduce(0, +))
        }
        return [
            "items": total(items), "queue": total(queue), "tags": total(tags),
            "playlist": total(playlist), "notes": total(notes), "pinned": total(pinned),
            "children": total(children), "parent": Int64(parent.count),
        ]
    }
}

@Suite("A custom migration step keeps every link it was not asked to drop")
@MainActor
struct CustomStepLinkTests {
    /// Writes the V1 store `plan` describes; returns what a fresh read of it
    /// holds, and the names of the objects whose `keep` is false.
    func writeV1Store(
        _ kind: StoreKind, in directory: TemporaryDirectory, plan: LinkPlan
    ) throws -> (LinkContents, unkept: [String: Set<String>]) {
        let stack = DataStack(linkV1)
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        try stack.perform(synchronous: { tx in
            func make<Object: ManagedObject>(
                _ type: Object.Type, _ entity: String, _ prefix: String,
                _ configure: (Object, String, Bool) -> Void
            ) -> [Object] {
                (0..<plan.counts[entity]!).map { index in
                    let object = tx.create(Into<Object>())
                    configure(object, "\(prefix)\(index)", plan.keep[entity]![index])
                    return object
                }
            }
            let owners = make(LinkOwnerV1.self, "Owner", "O") { $0.name = $1; $0.keep = $2 }
            let items = make(LinkItemV1.self, "Item", "I") { $0.name = $1; $0.keep = $2 }
            let jobs = make(LinkJobV1.self, "Job", "J") { $0.name = $1; $0.keep = $2 }
            let tags = make(LinkTagV1.self, "Tag", "T") { $0.name = $1; $0.keep = $2 }
            let songs = make(LinkSongV1.self, "Song", "S") { $0.name = $1; $0.keep = $2 }
            let notes = make(LinkNoteV1.self, "Note", "N") { $0.name = $1; $0.keep = $2 }
            for (item, owner) in zip(items, plan.itemOwner) {
                item.owner = owner.map { owners[$0] }
            }
            for (index, owner) in owners.enumerated() {
                owner.queue = plan.queues[index].map { jobs[$0] }
                owner.tags = Set(plan.tags[index].map { tags[$0] })
                owner.playlist = plan.playlists[index].map { songs[$0] }
                owner.notes = Set(plan.notes[index].map { notes[$0] })
                owner.pinned = plan.pinned[index].map { notes[$0] }
                owner.parent = plan.parent[index].map { owners[$0] }
            }
            // Each song's owners in an order of their own, not the order they were added in.
            let ownerIndex = Dictionary(
                uniqueKeysWithValues: owners.enumerated().map { (ObjectIdentifier($1), $0) })
            for (index, song) in songs.enumerated() {
                let keys = plan.listOrder[index]
                func key(_ owner: LinkOwnerV1) -> UInt64 {
                    keys[ownerIndex[ObjectIdentifier(owner)]!]
                }
                song.lists = song.lists.sorted { key($0) < key($1) }
            }
        })
        var unkept: [String: Set<String>] = [:]
        let prefixes = ["Owner": "O", "Item": "I", "Job": "J", "Tag": "T", "Song": "S", "Note": "N"]
        for (entity, prefix) in prefixes {
            let flags = plan.keep[entity]!
            unkept[entity] = Set(flags.indices.filter { !flags[$0] }.map { "\(prefix)\($0)" })
        }
        let contents = try readV1(stack)
        try stack.removeStorage()
        return (contents, unkept)
    }

    private func readV1(_ stack: DataStack) throws -> LinkContents {
        var contents = LinkContents()
        let owners = try stack.fetchAll(From<LinkOwnerV1>())
        contents.objects["Owner"] = Set(owners.map(\.name))
        for owner in owners {
            contents.items[owner.name] = Set(owner.items.map(\.name))
            contents.queue[owner.name] = owner.queue.map(\.name)
            contents.tags[owner.name] = Set(owner.tags.map(\.name))
            contents.playlist[owner.name] = owner.playlist.map(\.name)
            contents.notes[owner.name] = Set(owner.notes.map(\.name))
            contents.pinned[owner.name] = owner.pinned.map(\.name)
            contents.children[owner.name] = Set(owner.children.map(\.name))
            contents.parent[owner.name] = owner.parent?.name
        }
        let items = try stack.fetchAll(From<LinkItemV1>())
        contents.objects["Item"] = Set(items.map(\.name))
        for item in items { contents.ownerOfItem[item.name] = item.owner?.name }
        let jobs = try stack.fetchAll(From<LinkJobV1>())
        contents.objects["Job"] = Set(jobs.map(\.name))
        for job in jobs { contents.queueOfJob[job.name] = job.queue?.name }
        let tags = try stack.fetchAll(From<LinkTagV1>())
        contents.objects["Tag"] = Set(tags.map(\.name))
        for tag in tags { contents.ownersOfTag[tag.name] = Set(tag.owners.map(\.name)) }
        let songs = try stack.fetchAll(From<LinkSongV1>())
        contents.objects["Song"] = Set(songs.map(\.name))
        for song in songs { contents.listsOfSong[song.name] = song.lists.map(\.name) }
        contents.objects["Note"] = Set(try stack.fetchAll(From<LinkNoteV1>()).map(\.name))
        return contents
    }

    /// The V2 store's links, and the stamps its objects hold, by V1 entity name.
    private func readV2(
        _ stack: DataStack
    ) throws -> (LinkContents, stamps: [String: Set<String>]) {
        var contents = LinkContents()
        var stamps: [String: Set<String>] = [:]
        let owners = try stack.fetchAll(From<LinkOwnerV2>())
        contents.objects["Owner"] = Set(owners.map(\.name))
        stamps["Owner"] = Set(owners.map(\.stamp))
        for owner in owners {
            contents.items[owner.name] = Set(owner.items.map(\.name))
            contents.queue[owner.name] = owner.queue.map(\.name)
            contents.tags[owner.name] = Set(owner.tags.map(\.name))
            contents.playlist[owner.name] = owner.playlist.map(\.name)
            contents.notes[owner.name] = Set(owner.notes.map(\.name))
            contents.pinned[owner.name] = owner.pinned.map(\.name)
            contents.children[owner.name] = Set(owner.children.map(\.name))
            contents.parent[owner.name] = owner.parent?.name
        }
        let items = try stack.fetchAll(From<LinkItemV2>())
        contents.objects["Item"] = Set(items.map(\.name))
        stamps["Item"] = Set(items.map(\.stamp))
        for item in items { contents.ownerOfItem[item.name] = item.owner?.name }
        let jobs = try stack.fetchAll(From<LinkJobV2>())
        contents.objects["Job"] = Set(jobs.map(\.name))
        stamps["Job"] = Set(jobs.map(\.stamp))
        for job in jobs { contents.queueOfJob[job.name] = job.queue?.name }
        let tags = try stack.fetchAll(From<LinkTagV2>())
        contents.objects["Tag"] = Set(tags.map(\.name))
        stamps["Tag"] = Set(tags.map(\.stamp))
        for tag in tags { contents.ownersOfTag[tag.name] = Set(tag.owners.map(\.name)) }
        let songs = try stack.fetchAll(From<LinkSongV2>())
        contents.objects["Song"] = Set(songs.map(\.name))
        stamps["Song"] = Set(songs.map(\.stamp))
        for song in songs { contents.listsOfSong[song.name] = song.lists.map(\.name) }
        let notes = try stack.fetchAll(From<LinkNoteV2>())
        contents.objects["Note"] = Set(notes.map(\.name))
        stamps["Note"] = Set(notes.map(\.stamp))
        return (contents, stamps)
    }

    /// The links each relationship of the owner entity (of class `owner`)
    /// holds in the store of `kind`, counted in its tables (`schema`'s), not
    /// through objects: a link left to a row that is gone would be hidden
    /// from a fetched object, but counts and predicates over the relationship
    /// would still see it.
    func storedLinkCounts(
        _ kind: StoreKind, in directory: TemporaryDirectory, schema: Schema,
        owner type: ManagedObject.Type = LinkOwnerV2.self
    ) throws -> [String: Int64] {
        let connection = kind == .postgreSQL
            ? try postgreSQLStore(in: directory).settings.openConnection(.inspector)
            : try Connection(path: storeURL(in: directory).path, readOnly: true)
        defer { connection.close() }
        guard let owner = schema.entities.first(where: { $0.type == type }) else {
            return [:]
        }
        var counts: [String: Int64] = [:]
        for (name, relationship) in owner.relationships {
            var table = owner.tableName
            var column: String?
            switch relationship.storage {
            case .foreignKey(let slot):
                column = owner.attributes[slot].name
            case .inverseForeignKey(let slot, _):
                let target = schema.entity(named: relationship.target)!
                table = target.tableName
                column = target.attributes[slot].name
            case .linkTable(let name, _, _, _):
                table = name
            }
            let condition = column.map { " WHERE \(SQL.quote($0)) IS NOT NULL" } ?? ""
            let sql = "SELECT count(*) FROM \(SQL.quote(table))\(condition)"
            if case .integer(let count)? = try connection.scalar(sql) { counts[name] = count }
        }
        return counts
    }

    /// After a custom step, every link between two objects that both
    /// continue is there, on both sides, in the order it had; a link to an
    /// object the mapping dropped (a transformer not creating it, or its
    /// entity deleted or inserted empty) is gone from both sides.
    @Test(arguments: migratingKinds, LinkStep.allCases)
    func everyLinkBetweenKeptObjectsSurvives(kind: StoreKind, step: LinkStep) throws {
        for _ in 0..<3 {
            let random = SplitMix64.random()
            try check(step, kind: kind, seed: random.seed)
        }
    }

    private func check(_ step: LinkStep, kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let plan = LinkPlan(random: &random)
        let (before, unkept) = try writeV1Store(kind, in: directory, plan: plan)
        var kept = before.objects.values.reduce(into: Set<String>()) { $0.formUnion($1) }
        for entity in step.dropping { kept.subtract(unkept[entity]!) }
        for entity in step.emptied { kept.subtract(before.objects[entity]!) }
        let expected = before.keeping(kept)

        let provider = CustomSchemaMappingProvider(
            from: "V1", to: "V2", entityMappings: step.mappings)
        let stack = DataStack(schemaHistory: SchemaHistory(
            [linkV1, step.destination], chain: ["V1", "V2"], mappingProviders: [provider]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let (after, stamps) = try readV2(stack)
        let differences = after.differences(from: expected)
        #expect(differences.isEmpty,
                "\(step), \(kind), seed \(seed): \(differences.joined(separator: "; "))")
        let stored = try storedLinkCounts(kind, in: directory, schema: step.destination)
        #expect(stored == expected.linkCounts,
                "no link is left to an object that is gone: \(step), \(kind), seed \(seed)")
        for (entity, names) in after.objects where !names.isEmpty {
            let transformed = step.transformed.contains(entity)
            let written = transformed ? "written" : "not written"
            #expect(stamps[entity] == (transformed ? ["T"] : [""]),
                    "\(entity) is \(written) by a transformer: \(step), \(kind), seed \(seed)")
        }
    }
}
