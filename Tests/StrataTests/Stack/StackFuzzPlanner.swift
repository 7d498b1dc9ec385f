import Foundation
@testable import Strata

/// How a transaction ended, in terms a plan predicts.
enum FuzzResult: Equatable, CustomStringConvertible {
    case committed
    case uniqueViolation
    case deleteDenied
    case userError
    case cancelled
    case other(String)

    init(_ error: StrataError) {
        switch error {
        case .uniqueConstraintViolation(let entity, let fields) where entity == "FuzzOwner" && fields == ["code"]:
            self = .uniqueViolation
        case .deleteDenied(let entity, let relationship, _) where entity == "FuzzOwner" && relationship == "vaults":
            self = .deleteDenied
        case .userError(let error) where (error as? FuzzError) == .planned: self = .userError
        case .userCancelled: self = .cancelled
        default: self = .other("\(error)")
        }
    }

    var description: String {
        switch self {
        case .committed: return "committed"
        case .uniqueViolation: return "unique violation"
        case .deleteDenied: return "delete denied"
        case .userError: return "user error"
        case .cancelled: return "cancelled"
        case .other(let text): return text
        }
    }
}

extension FuzzState {
    /// Makes `plan`'s changes in the model. `created` are the row IDs the
    /// transaction gave the plan's objects; `nil` predicts with stand-ins.
    /// Returns how the transaction must end and what its counted calls must
    /// return; the model is left changed whatever the result (callers keep
    /// their copy for a failure). `mismatches` notes an import that updated
    /// another object than the model's holder of the code.
    mutating func apply(
        _ plan: FuzzPlan, created given: [Int64]?
    ) -> (result: FuzzResult, counts: [Int], mismatches: [String]) {
        let committed = self
        var created: [Int64] = []
        var counts: [Int] = []
        var mismatches: [String] = []
        func newID() -> Int64 {
            let id = given.flatMap { created.count < $0.count ? $0[created.count] : nil } ?? -Int64(created.count + 1)
            created.append(id)
            return id
        }
        func resolve(_ ref: FuzzPlan.Ref?) -> Int64? {
            switch ref {
            case nil: return nil
            case .existing(let id)?: return id
            case .created(let slot)?: return slot < created.count ? created[slot] : nil
            }
        }
        func owner(_ ref: FuzzPlan.Ref?) -> Int64? { resolve(ref).flatMap { owners[$0] == nil ? nil : $0 } }
        func pet(_ ref: FuzzPlan.Ref?) -> Int64? { resolve(ref).flatMap { pets[$0] == nil ? nil : $0 } }
        func tag(_ ref: FuzzPlan.Ref?) -> Int64? { resolve(ref).flatMap { tags[$0] == nil ? nil : $0 } }
        func vault(_ ref: FuzzPlan.Ref?) -> Int64? { resolve(ref).flatMap { vaults[$0] == nil ? nil : $0 } }
        // A read or a bulk write flushes first, and a flush refuses a duplicate code.
        func flushFails() -> Bool { duplicateCode }

        for op in plan.ops {
            switch op {
            case .createOwner(let name, let rank, let code):
                owners[newID()] = Owner(name: name, rank: rank, code: code)
            case .createPet(let name, let rank, let ownerRef):
                let ownerID = owner(ownerRef)
                pets[newID()] = Pet(name: name, rank: rank, owner: ownerID)
            case .createTag(let rank, let ownerRefs):
                let members = Set(ownerRefs.compactMap { owner($0) })
                tags[newID()] = Tag(rank: rank, owners: members)
            case .createVault(let rank, let keeperRef):
                let keeper = owner(keeperRef)
                vaults[newID()] = Vault(rank: rank, keeper: keeper)
            case .setOwner(let ref, let name, let rank):
                guard let id = owner(ref) else { continue }
                owners[id]!.name = name
                owners[id]!.rank = rank
            case .setCode(let ref, let code):
                guard let id = owner(ref) else { continue }
                owners[id]!.code = code
            case .setPet(let ref, let name, let rank):
                guard let id = pet(ref) else { continue }
                pets[id]!.name = name
                pets[id]!.rank = rank
            case .movePet(let ref, let ownerRef):
                guard let id = pet(ref) else { continue }
                pets[id]!.owner = owner(ownerRef)
            case .setPets(let ref, let petRefs):
                guard let id = owner(ref) else { continue }
                let members = Set(petRefs.compactMap { pet($0) })
                for old in pets(of: id) where !members.contains(old) { pets[old]!.owner = nil }
                for member in members { pets[member]!.owner = id }
            case .tag(let ownerRef, let tagRef, let add):
                guard let ownerID = owner(ownerRef), let tagID = tag(tagRef) else { continue }
                if add { tags[tagID]!.owners.insert(ownerID) } else { tags[tagID]!.owners.remove(ownerID) }
            case .setKeeper(let ref, let keeperRef):
                guard let id = vault(ref) else { continue }
                vaults[id]!.keeper = owner(keeperRef)
            case .delete(let kind, let ref):
                switch kind {
                case .owner: if let id = owner(ref) { deleteOwner(id) }
                case .pet: if let id = pet(ref) { pets[id] = nil }
                case .tag: if let id = tag(ref) { tags[id] = nil }
                case .vault: if let id = vault(ref) { vaults[id] = nil }
                }
            case .deleteAllPets(let rank):
                if flushFails() { return (.uniqueViolation, counts, mismatches) }
                let doomed = pets.filter { $0.value.rank < rank }.keys
                counts.append(doomed.count)
                for id in doomed { pets[id] = nil }
            case .deleteAllOwners(let rank):
                if flushFails() { return (.uniqueViolation, counts, mismatches) }
                let doomed = owners.filter { $0.value.rank > rank }.keys
                counts.append(doomed.count)
                for id in doomed { deleteOwner(id) }
            case .updateAllPets(let rank, let increment, let ownerRef):
                if flushFails() { return (.uniqueViolation, counts, mismatches) }
                // An owner that is gone is not assigned: `.some(nil)` sets none, `nil` leaves owners alone.
                let newOwner: Int64??
                switch ownerRef {
                case nil: newOwner = nil
                case .some(nil): newOwner = .some(nil)
                case .some(let ref?): newOwner = owner(ref).map { Optional($0) }
                }
                var changed = 0
                for (id, pet) in pets where pet.rank >= rank {
                    var new = pet
                    new.rank += increment
                    if let newOwner { new.owner = newOwner }
                    if new != pet { changed += 1 }
                    pets[id] = new
                }
                counts.append(changed)
            case .clearCodes(let rank):
                if flushFails() { return (.uniqueViolation, counts, mismatches) }
                var changed = 0
                for (id, owner) in owners where owner.rank < rank && owner.code != nil {
                    owners[id]!.code = nil
                    changed += 1
                }
                counts.append(changed)
            case .importOwners(let sources):
                if flushFails() { return (.uniqueViolation, counts, mismatches) }
                // One object per code, the last source's name, the first source's place.
                var order: [Int] = []
                var names: [Int: String] = [:]
                for source in sources {
                    if names[source.code] == nil { order.append(source.code) }
                    names[source.code] = source.name
                }
                for code in order {
                    if let holder = owners.first(where: { $0.value.code == code })?.key {
                        owners[holder]!.name = names[code]!
                        // The slot is the holder, whatever the transaction says (noted when it differs).
                        if let given, created.count < given.count, given[created.count] != holder {
                            mismatches.append(
                                "the import of code \(code) gave #\(given[created.count]), the model's holder is #\(holder)")
                        }
                        created.append(holder)
                    } else {
                        owners[newID()] = Owner(name: names[code]!, rank: 0, code: code)
                    }
                }
            case .countPets(let rank, let fromCommitted):
                if !fromCommitted && flushFails() { return (.uniqueViolation, counts, mismatches) }
                counts.append((fromCommitted ? committed : self).pets.values.filter { $0.rank >= rank }.count)
            }
        }
        switch plan.ending {
        case .throwError: return (.userError, counts, mismatches)
        case .cancel: return (.cancelled, counts, mismatches)
        case .commit:
            if let given, given.count != created.count {
                mismatches.append("the transaction gave \(given.count) objects, the model made \(created.count)")
            }
            if duplicateCode { return (.uniqueViolation, counts, mismatches) }
            if deniedDelete { return (.deleteDenied, counts, mismatches) }
            return (.committed, counts, mismatches)
        }
    }
}

/// Draws random plans against the model's current state.
struct FuzzPlanner {
    /// The next code never used: codes set on objects are fresh, so that no
    /// two owners swap codes within a flush (which the unique index would
    /// refuse halfway, though the end state is fine).
    var nextCode = 1_000

    static let names = ["ann", "bob", "cy", "dee", "eve", "fay"]

    mutating func plan(_ state: FuzzState, random: inout SplitMix64) -> FuzzPlan {
        var slots: [FuzzPlan.Kind] = []
        var ops: [FuzzPlan.Op] = []
        func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(max(bound, 1))) }
        func chance(_ percent: Int) -> Bool { draw(100) < percent }
        func name() -> String { Self.names[draw(Self.names.count)] }
        func pick(_ kind: FuzzPlan.Kind) -> FuzzPlan.Ref? {
            let existing: [Int64]
            switch kind {
            case .owner: existing = state.owners.keys.sorted()
            case .pet: existing = state.pets.keys.sorted()
            case .tag: existing = state.tags.keys.sorted()
            case .vault: existing = state.vaults.keys.sorted()
            }
            let fresh = slots.indices.filter { slots[$0] == kind }
            let count = existing.count + fresh.count
            guard count > 0 else { return nil }
            let index = draw(count)
            return index < existing.count ? .existing(existing[index]) : .created(fresh[index - existing.count])
        }
        func freshCode() -> Int {
            nextCode += 1
            return nextCode
        }
        for _ in 0..<(1 + draw(6)) {
            switch draw(20) {
            case 0, 1:
                ops.append(.createOwner(name: name(), rank: draw(20), code: chance(50) ? freshCode() : nil))
                slots.append(.owner)
            case 2, 3, 4:
                ops.append(.createPet(name: name(), rank: draw(20), owner: chance(80) ? pick(.owner) : nil))
                slots.append(.pet)
            case 5:
                ops.append(.createTag(rank: draw(20), owners: (0..<draw(3)).compactMap { _ in pick(.owner) }))
                slots.append(.tag)
            case 6:
                ops.append(.createVault(rank: draw(20), keeper: chance(70) ? pick(.owner) : nil))
                slots.append(.vault)
            case 7:
                if let owner = pick(.owner) { ops.append(.setOwner(owner, name: name(), rank: draw(20))) }
            case 8:
                if let owner = pick(.owner) { ops.append(.setCode(owner, chance(30) ? nil : freshCode())) }
            case 9:
                if let pet = pick(.pet) { ops.append(.setPet(pet, name: name(), rank: draw(20))) }
            case 10:
                if let pet = pick(.pet) { ops.append(.movePet(pet, to: chance(80) ? pick(.owner) : nil)) }
            case 11:
                if let owner = pick(.owner) {
                    ops.append(.setPets(owner: owner, pets: (0..<draw(4)).compactMap { _ in pick(.pet) }))
                }
            case 12:
                if let owner = pick(.owner), let tag = pick(.tag) { ops.append(.tag(owner: owner, tag: tag, add: chance(70))) }
            case 13:
                if let vault = pick(.vault) { ops.append(.setKeeper(vault: vault, keeper: chance(40) ? pick(.owner) : nil)) }
            case 14:
                let kind = [FuzzPlan.Kind.owner, .owner, .pet, .pet, .tag, .vault][draw(6)]
                if let ref = pick(kind) { ops.append(.delete(kind, ref)) }
            case 15:
                ops.append(chance(70) ? .deleteAllPets(rankBelow: draw(5)) : .deleteAllOwners(rankAbove: 15 + draw(5)))
            case 16:
                let owner: FuzzPlan.Ref?? = chance(50) ? nil : (chance(30) ? .some(nil) : .some(pick(.owner)))
                ops.append(.updateAllPets(rankAtLeast: draw(20), increment: draw(4) - 1, owner: owner))
            case 17:
                ops.append(.clearCodes(rankBelow: draw(6)))
            case 18:
                // Codes of owners the model knows, and new ones; some twice.
                let known = state.owners.values.compactMap(\.code).sorted()
                let sources = (0..<(1 + draw(4))).map { _ in
                    FuzzOwnerSource(
                        code: !known.isEmpty && chance(50) ? known[draw(known.count)] : 1_000_000 + draw(8),
                        name: name())
                }
                ops.append(.importOwners(sources))
                slots.append(contentsOf: Set(sources.map(\.code)).map { _ in .owner })
            default:
                ops.append(.countPets(rankAtLeast: draw(20), committed: chance(40)))
            }
        }
        // Now and then, last: a code another owner holds, untouched by the
        // plan, which the commit must refuse.
        if chance(8) {
            var touched: Set<Int64> = []
            var touchesNewObjects = false
            for case .setCode(let ref, _) in ops {
                switch ref {
                case .existing(let id): touched.insert(id)
                // An import's slot may be a holder under another name.
                case .created: touchesNewObjects = true
                }
            }
            let holders = state.owners.filter { $0.value.code != nil && !touched.contains($0.key) }.keys.sorted()
            if !holders.isEmpty, !touchesNewObjects, let target = pick(.owner) {
                let holder = holders[draw(holders.count)]
                if case .existing(let id) = target, id == holder {} else {
                    ops.append(.setCode(target, state.owners[holder]!.code))
                }
            }
        }
        let ending: FuzzPlan.Ending = chance(85) ? .commit : (chance(50) ? .throwError : .cancel)
        return FuzzPlan(ops: ops, ending: ending)
    }
}
