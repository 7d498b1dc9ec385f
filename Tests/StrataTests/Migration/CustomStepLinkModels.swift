@testable import Strata

// An owner with every kind of to-many, so that a custom step's mapping of
// either side (or both) can be checked against every link a V1 store held:
// Owner.items ↔ Item.owner and Owner.queue ↔ Job.queue are one-to-manys kept
// by the members' foreign-key column (the second ordered); Owner.tags ↔
// Tag.owners and Owner.playlist ↔ Song.lists are many-to-manys kept in a
// link table (the second ordered on both sides); Owner.notes and
// Owner.pinned have no inverse (the second ordered); Owner.children ↔
// Owner.parent links owners among themselves. V2 replaces each entity's
// `keep` with `stamp`, which a transformer sets, so that every step is one.

final class LinkOwnerV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("items", inverse: \LinkItemV1.$owner) var items: Set<LinkItemV1>
    @Field.Relationship("queue", inverse: \LinkJobV1.$queue) var queue: [LinkJobV1]
    @Field.Relationship("tags", inverse: \LinkTagV1.$owners) var tags: Set<LinkTagV1>
    @Field.Relationship("playlist", inverse: \LinkSongV1.$lists) var playlist: [LinkSongV1]
    @Field.Relationship("notes") var notes: Set<LinkNoteV1>
    @Field.Relationship("pinned") var pinned: [LinkNoteV1]
    @Field.Relationship("parent", inverse: \LinkOwnerV1.$children) var parent: LinkOwnerV1?
    @Field.Relationship("children") var children: Set<LinkOwnerV1>
}

final class LinkItemV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("owner") var owner: LinkOwnerV1?
}

final class LinkJobV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("queue") var queue: LinkOwnerV1?
}

final class LinkTagV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("owners") var owners: Set<LinkOwnerV1>
}

final class LinkSongV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
    @Field.Relationship("lists") var lists: [LinkOwnerV1]
}

final class LinkNoteV1: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("keep") var keep: Bool = true
}

final class LinkOwnerV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("items", inverse: \LinkItemV2.$owner) var items: Set<LinkItemV2>
    @Field.Relationship("queue", inverse: \LinkJobV2.$queue) var queue: [LinkJobV2]
    @Field.Relationship("tags", inverse: \LinkTagV2.$owners) var tags: Set<LinkTagV2>
    @Field.Relationship("playlist", inverse: \LinkSongV2.$lists) var playlist: [LinkSongV2]
    @Field.Relationship("notes") var notes: Set<LinkNoteV2>
    @Field.Relationship("pinned") var pinned: [LinkNoteV2]
    @Field.Relationship("parent", inverse: \LinkOwnerV2.$children) var parent: LinkOwnerV2?
    @Field.Relationship("children") var children: Set<LinkOwnerV2>
}

final class LinkItemV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("owner") var owner: LinkOwnerV2?
}

final class LinkJobV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("queue") var queue: LinkOwnerV2?
}

final class LinkTagV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("owners") var owners: Set<LinkOwnerV2>
}

final class LinkSongV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
    @Field.Relationship("lists") var lists: [LinkOwnerV2]
}

final class LinkNoteV2: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("stamp") var stamp: String = ""
}

let linkV1 = Schema("V1", entities: [
    Entity<LinkOwnerV1>("Owner"), Entity<LinkItemV1>("Item"), Entity<LinkJobV1>("Job"),
    Entity<LinkTagV1>("Tag"), Entity<LinkSongV1>("Song"), Entity<LinkNoteV1>("Note"),
])
let linkV2 = Schema("V2", entities: [
    Entity<LinkOwnerV2>("Owner"), Entity<LinkItemV2>("Item"), Entity<LinkJobV2>("Job"),
    Entity<LinkTagV2>("Tag"), Entity<LinkSongV2>("Song"), Entity<LinkNoteV2>("Note"),
])
/// Owner renamed Vault, which sorts after Tag and Song: the link tables of
/// Owner.tags and Owner.playlist take the other side's name, and their
/// columns (and the playlist's position column) swap.
let linkV2Renamed = Schema("V2", entities: [
    Entity<LinkOwnerV2>("Vault", renamingIdentifier: "Owner"), Entity<LinkItemV2>("Item"),
    Entity<LinkJobV2>("Job"), Entity<LinkTagV2>("Label", renamingIdentifier: "Tag"),
    Entity<LinkSongV2>("Song"), Entity<LinkNoteV2>("Note"),
])
/// The same renames, declared by the custom mapping alone.
let linkV2RenamedByMapping = Schema("V2", entities: [
    Entity<LinkOwnerV2>("Vault"), Entity<LinkItemV2>("Item"), Entity<LinkJobV2>("Job"),
    Entity<LinkTagV2>("Label"), Entity<LinkSongV2>("Song"), Entity<LinkNoteV2>("Note"),
])

let linkTargets = ["Item", "Job", "Tag", "Song", "Note"]

/// A transform from `source` to `destination` that stamps every object it
/// writes and, when `dropping`, drops the objects whose `keep` is false.
func stamping(_ source: String, _ destination: String, dropping: Bool) -> CustomEntityMapping {
    .transformEntity(source: source, destination: destination) { object, createDestination in
        if dropping, !(try object.value("keep", as: Bool.self)) { return }
        createDestination()["stamp"] = .text("T")
    }
}
