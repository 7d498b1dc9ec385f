import Foundation
@testable import Strata

/// One transaction of the stack fuzz test, as a value: the changes it makes
/// and how it ends. `run(in:)` makes them in a transaction; `apply(to:)`
/// makes them in the plain model. Both resolve a reference to an object
/// that is gone (deleted before, or earlier in the plan) to nothing, and
/// skip what would touch it.
struct FuzzPlan: Sendable, CustomStringConvertible {
    /// An object: one that existed before the plan, or the `n`th object the
    /// plan created (an import's objects count, in its result's order).
    enum Ref: Sendable, CustomStringConvertible {
        case existing(Int64)
        case created(Int)

        var description: String {
            switch self {
            case .existing(let id): return "#\(id)"
            case .created(let slot): return "new\(slot)"
            }
        }
    }

    enum Kind: String, Sendable {
        case owner, pet, tag, vault
    }

    enum Op: Sendable {
        case createOwner(name: String, rank: Int, code: Int?)
        case createPet(name: String, rank: Int, owner: Ref?)
        case createTag(rank: Int, owners: [Ref])
        case createVault(rank: Int, keeper: Ref?)
        case setOwner(Ref, name: String, rank: Int)
        case setCode(Ref, Int?)
        case setPet(Ref, name: String, rank: Int)
        /// `pet.owner = owner`, from the to-one side.
        case movePet(Ref, to: Ref?)
        /// `owner.pets = pets`, from the to-many side.
        case setPets(owner: Ref, pets: [Ref])
        case tag(owner: Ref, tag: Ref, add: Bool)
        case setKeeper(vault: Ref, keeper: Ref?)
        case delete(Kind, Ref)
        /// `deleteAll(From<FuzzPet>().where(\.$rank < rank))`, counted.
        case deleteAllPets(rankBelow: Int)
        /// `deleteAll(From<FuzzOwner>().where(\.$rank > rank))`, counted.
        case deleteAllOwners(rankAbove: Int)
        /// `updateAll` of pets of rank at least `rank`: rank incremented,
        /// owner set when given (to nobody when `owner` is `.some(nil)`), counted.
        case updateAllPets(rankAtLeast: Int, increment: Int, owner: Ref??)
        /// `updateAll(From<FuzzOwner>().where(\.$rank < rank), .set(\.$code, to: nil))`, counted.
        case clearCodes(rankBelow: Int)
        case importOwners([FuzzOwnerSource])
        /// Counts pets of rank at least `rank`, as the transaction sees them,
        /// or as committed (`includesPendingChanges = false`).
        case countPets(rankAtLeast: Int, committed: Bool)
    }

    enum Ending: String, Sendable {
        case commit, throwError, cancel
    }

    var ops: [Op]
    var ending: Ending

    var description: String { "\(ops) then \(ending)" }
}

/// The error a plan ending in `.throwError` throws from its body.
enum FuzzError: Error, Equatable {
    case planned
}

/// What a plan's transaction gave back: the row IDs of the objects it
/// created, in the order of `Ref.created`, and what each counted call returned.
struct FuzzOutcome: Sendable, Equatable {
    var created: [Int64] = []
    var counts: [Int] = []
}

extension FuzzPlan {
    /// Makes the plan's changes in `tx`; throws as its ending says.
    func run(in tx: BaseDataTransaction) throws -> FuzzOutcome {
        var created: [ManagedObject] = []
        var outcome = FuzzOutcome()
        func object<Object: ManagedObject>(_ ref: Ref?, _ type: Object.Type) -> Object? {
            switch ref {
            case nil: return nil
            case .existing(let id)?:
                return tx.edit(ObjectID<Object>(entityName: String(describing: Object.self), rowID: id))
            case .created(let slot)?:
                guard let object = created[slot] as? Object, !object.isDeletedObject else { return nil }
                return object
            }
        }
        func make<Object: ManagedObject>(_ type: Object.Type) -> Object {
            let object = tx.create(Into<Object>())
            created.append(object)
            return object
        }
        for op in ops {
            switch op {
            case .createOwner(let name, let rank, let code):
                let owner = make(FuzzOwner.self)
                owner.name = name
                owner.rank = rank
                owner.code = code
            case .createPet(let name, let rank, let owner):
                let pet = make(FuzzPet.self)
                pet.name = name
                pet.rank = rank
                pet.owner = object(owner, FuzzOwner.self)
            case .createTag(let rank, let owners):
                let tag = make(FuzzTag.self)
                tag.rank = rank
                tag.owners = Set(owners.compactMap { object($0, FuzzOwner.self) })
            case .createVault(let rank, let keeper):
                let vault = make(FuzzVault.self)
                vault.rank = rank
                vault.keeper = object(keeper, FuzzOwner.self)
            case .setOwner(let ref, let name, let rank):
                guard let owner = object(ref, FuzzOwner.self) else { continue }
                owner.name = name
                owner.rank = rank
            case .setCode(let ref, let code):
                object(ref, FuzzOwner.self)?.code = code
            case .setPet(let ref, let name, let rank):
                guard let pet = object(ref, FuzzPet.self) else { continue }
                pet.name = name
                pet.rank = rank
            case .movePet(let ref, let owner):
                guard let pet = object(ref, FuzzPet.self) else { continue }
                pet.owner = object(owner, FuzzOwner.self)
            case .setPets(let ref, let pets):
                guard let owner = object(ref, FuzzOwner.self) else { continue }
                owner.pets = Set(pets.compactMap { object($0, FuzzPet.self) })
            case .tag(let ownerRef, let tagRef, let add):
                guard let owner = object(ownerRef, FuzzOwner.self), let tag = object(tagRef, FuzzTag.self)
                else { continue }
                if add { owner.tags.insert(tag) } else { owner.tags.remove(tag) }
            case .setKeeper(let ref, let keeper):
                guard let vault = object(ref, FuzzVault.self) else { continue }
                vault.keeper = object(keeper, FuzzOwner.self)
            case .delete(let kind, let ref):
                switch kind {
                case .owner: tx.delete(object(ref, FuzzOwner.self))
                case .pet: tx.delete(object(ref, FuzzPet.self))
                case .tag: tx.delete(object(ref, FuzzTag.self))
                case .vault: tx.delete(object(ref, FuzzVault.self))
                }
            case .deleteAllPets(let rank):
                outcome.counts.append(try tx.deleteAll(From<FuzzPet>().where(\.$rank < rank)))
            case .deleteAllOwners(let rank):
                outcome.counts.append(try tx.deleteAll(From<FuzzOwner>().where(\.$rank > rank)))
            case .updateAllPets(let rank, let increment, let ownerRef):
                var assignments: [FieldAssignment<FuzzPet>] = [.increment(\.$rank, by: increment)]
                if let ownerRef {
                    // An owner that is gone is not assigned (the call would fail).
                    if ownerRef == nil {
                        assignments.append(.set(\.$owner, to: nil as FuzzOwner?))
                    } else if let owner = object(ownerRef, FuzzOwner.self) {
                        assignments.append(.set(\.$owner, to: owner))
                    }
                }
                outcome.counts.append(try tx.updateAll(From<FuzzPet>().where(\.$rank >= rank), assignments))
            case .clearCodes(let rank):
                outcome.counts.append(
                    try tx.updateAll(From<FuzzOwner>().where(\.$rank < rank), .set(\.$code, to: nil)))
            case .importOwners(let sources):
                let owners = try tx.importUniqueObjects(Into<FuzzOwner>(), sourceArray: sources)
                created.append(contentsOf: owners as [ManagedObject])
            case .countPets(let rank, let committed):
                outcome.counts.append(try tx.fetchCount(
                    From<FuzzPet>().where(\.$rank >= rank).tweak { $0.includesPendingChanges = !committed }))
            }
        }
        outcome.created = created.map(\.rowID)
        switch ending {
        case .commit: return outcome
        case .throwError: throw FuzzError.planned
        case .cancel: try tx.cancel()
        }
    }
}
