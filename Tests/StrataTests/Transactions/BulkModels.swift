import Foundation
import Strata

// A world for bulk writes: every delete rule over every way a relationship
// is stored (a key held, a key pointing back, ordered, a link table, a
// one-to-one with keys on both sides, no inverse, self references).

final class BulkOwner: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("label") var label: String = ""
    @Field.Stored("code", .unique) var code: String? = nil
    @Field.Relationship("pets", inverse: \BulkPet.$owner, deleteRule: .cascade) var pets: Set<BulkPet>
    @Field.Relationship("items", inverse: \BulkItem.$list, deleteRule: .nullify) var items: [BulkItem]
    @Field.Relationship("tags", inverse: \BulkTag.$owners, deleteRule: .nullify) var tags: Set<BulkTag>
    @Field.Relationship("badge", inverse: \BulkBadge.$holder, deleteRule: .cascade) var badge: BulkBadge?
    @Field.Relationship("vaults", inverse: \BulkVault.$keeper, deleteRule: .deny) var vaults: Set<BulkVault>
    @Field.Relationship("mentor", deleteRule: .nullify) var mentor: BulkOwner?
}

final class BulkPet: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("label") var label: String = ""
    @Field.Stored("weight") var weight: Double? = nil
    @Field.Relationship("owner", deleteRule: .nullify) var owner: BulkOwner?
    @Field.Relationship("toys", inverse: \BulkToy.$pet, deleteRule: .cascade) var toys: Set<BulkToy>
    @Field.Relationship("friends", deleteRule: .nullify) var friends: Set<BulkPet>
    @Field.Relationship("hero", deleteRule: .nullify) var hero: BulkOwner?
}

final class BulkToy: ManagedObject {
    @Field.Stored("rank") var rank: Int8 = 0
    @Field.Relationship("pet", deleteRule: .nullify) var pet: BulkPet?
    @Field.Relationship("tags", inverse: \BulkTag.$toys, deleteRule: .nullify) var tags: [BulkTag]
}

final class BulkTag: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("owners", deleteRule: .nullify) var owners: Set<BulkOwner>
    @Field.Relationship("toys", deleteRule: .deny) var toys: Set<BulkToy>
}

final class BulkItem: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("list", deleteRule: .nullify) var list: BulkOwner?
}

final class BulkBadge: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("holder", deleteRule: .nullify) var holder: BulkOwner?
}

final class BulkVault: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("keeper", deleteRule: .cascade) var keeper: BulkOwner?
}

let bulkSchema = Schema("Bulk", entities: [
    Entity<BulkOwner>("Owner"), Entity<BulkPet>("Pet"), Entity<BulkToy>("Toy"), Entity<BulkTag>("Tag"),
    Entity<BulkItem>("Item"), Entity<BulkBadge>("Badge"), Entity<BulkVault>("Vault"),
])
