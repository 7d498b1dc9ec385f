import Foundation
@testable import Strata

// The world of the stack fuzz test (StackModelFuzzTests): owners with a
// unique import code, pets that go with their owner (cascade), tags shared
// by owners (many-to-many, nullify on both sides) and vaults whose keeper
// cannot be deleted while it keeps one (deny).

final class FuzzOwner: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("rank") var rank: Int = 0
    @Field.Stored("code", .unique) var code: Int? = nil
    @Field.Relationship("pets", inverse: \FuzzPet.$owner, deleteRule: .cascade) var pets: Set<FuzzPet>
    @Field.Relationship("tags", inverse: \FuzzTag.$owners, deleteRule: .nullify) var tags: Set<FuzzTag>
    @Field.Relationship("vaults", inverse: \FuzzVault.$keeper, deleteRule: .deny) var vaults: Set<FuzzVault>
}

final class FuzzPet: ManagedObject {
    @Field.Stored("name") var name: String = ""
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("owner", deleteRule: .nullify) var owner: FuzzOwner?
}

final class FuzzTag: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("owners", deleteRule: .nullify) var owners: Set<FuzzOwner>
}

final class FuzzVault: ManagedObject {
    @Field.Stored("rank") var rank: Int = 0
    @Field.Relationship("keeper", deleteRule: .nullify) var keeper: FuzzOwner?
}

/// One record of a unique import of owners: the code names the owner.
struct FuzzOwnerSource: Sendable {
    var code: Int
    var name: String
}

extension FuzzOwner: ImportableUniqueObject {
    typealias ImportSource = FuzzOwnerSource

    static var uniqueIDKeyPath: KeyPath<FuzzOwner, Field.Stored<Int?>> { \.$code }

    static func uniqueID(from source: FuzzOwnerSource, in transaction: BaseDataTransaction) -> Int?? {
        source.code
    }

    func update(from source: FuzzOwnerSource, in transaction: BaseDataTransaction) throws {
        name = source.name
    }
}

let fuzzSchema = Schema("Fuzz", entities: [
    Entity<FuzzOwner>(), Entity<FuzzPet>(), Entity<FuzzTag>(), Entity<FuzzVault>(),
])

/// What the store should hold: every object by row ID, with its fields and
/// the links it stores (a pet its owner, a tag its owners, a vault its keeper).
struct FuzzState: Equatable, Sendable {
    struct Owner: Equatable, Sendable {
        var name: String
        var rank: Int
        var code: Int?
    }

    struct Pet: Equatable, Sendable {
        var name: String
        var rank: Int
        var owner: Int64?
    }

    struct Tag: Equatable, Sendable {
        var rank: Int
        var owners: Set<Int64>
    }

    struct Vault: Equatable, Sendable {
        var rank: Int
        var keeper: Int64?
    }

    var owners: [Int64: Owner] = [:]
    var pets: [Int64: Pet] = [:]
    var tags: [Int64: Tag] = [:]
    var vaults: [Int64: Vault] = [:]

    func pets(of owner: Int64) -> Set<Int64> {
        Set(pets.filter { $0.value.owner == owner }.keys)
    }

    func tags(of owner: Int64) -> Set<Int64> {
        Set(tags.filter { $0.value.owners.contains(owner) }.keys)
    }

    func vaults(of owner: Int64) -> Set<Int64> {
        Set(vaults.filter { $0.value.keeper == owner }.keys)
    }

    /// Deletes an owner as the delete rules say: its pets go (cascade), tags
    /// lose it (nullify); vaults keep pointing at it, for the deny rule to
    /// judge at commit.
    mutating func deleteOwner(_ id: Int64) {
        guard owners.removeValue(forKey: id) != nil else { return }
        for pet in pets(of: id) { pets[pet] = nil }
        for tag in tags.keys { tags[tag]!.owners.remove(id) }
    }

    /// The owner whose vaults deny its deletion, if any: a vault still
    /// pointing at an owner that is gone.
    var deniedDelete: Bool {
        vaults.values.contains { $0.keeper.map { owners[$0] == nil } ?? false }
    }

    /// Whether two owners hold one code.
    var duplicateCode: Bool {
        let codes = owners.values.compactMap(\.code)
        return Set(codes).count != codes.count
    }
}
