import Foundation
import Strata
import Testing

/// Docs/Transactions.md, Rules 7 and 8: random transactions of creations,
/// relationship changes from either side, deletions one by one and with
/// `deleteAll`, flushes, undos and redos, against `DeleteRuleModel`. Each commit must
/// fail exactly when the model's `.deny` rules say, with the same error;
/// after each, the store must hold the model's objects and links, read from
/// both sides, with no key left pointing at a deleted row. Before some
/// commits the transaction's own reads are checked against the model too.
@MainActor
@Suite("Delete rules against a model")
struct DeleteRuleModelTests {
    @Test(arguments: StoreKind.allCases)
    func randomTransactionsMatchTheModel(_ kind: StoreKind) throws {
        try check(kind, oneTransaction: false)
    }

    /// One unsafe transaction with undo commits round after round: undo
    /// and redo reach past commits, bringing deleted objects back with their
    /// links, and the `.deny` checks of the deletions they keep or redo.
    @Test(arguments: StoreKind.allCases)
    func oneUndoableTransactionMatchesTheModel(_ kind: StoreKind) throws {
        try check(kind, oneTransaction: true)
    }

    private func check(_ kind: StoreKind, oneTransaction: Bool) throws {
        var random = SplitMix64.random()
        let rounds = kind == .postgreSQL ? 50 : 200
        let directory = TemporaryDirectory()
        let stack = try makeStack(deleteRuleSchema, kind, in: directory)
        let kept = oneTransaction ? try stack.beginUnsafe(supportsUndo: true) : nil
        var run = DeleteRuleRun(stack: stack, kept: kept)
        var outcomes: [String: Int] = [:]
        for round in 0..<rounds {
            var actions: [String] = []
            let mismatches: [String]
            do {
                let outcome = try run.round(&random, actions: &actions)
                outcomes[outcome, default: 0] += 1
                mismatches = try run.mismatches()
            } catch {
                mismatches = ["\(error)"]
            }
            #expect(
                mismatches.isEmpty,
                "seed \(random.seed) (STRATA_TEST_SEED), round \(round): \(mismatches), after \(actions)")
            if !mismatches.isEmpty { break }
        }
        // The rounds exercise commits and denials alike (a fifth are denied,
        // but few of the first, while the world is small: PostgreSQL's 50
        // rounds may see none).
        #expect(outcomes["committed", default: 0] > rounds / 5, "\(outcomes)")
        if rounds >= 200 { #expect(outcomes["denied", default: 0] > 0, "\(outcomes)") }
    }
}

@MainActor
struct DeleteRuleRun {
    let stack: DataStack
    /// The one transaction every round uses, if any.
    let kept: UnsafeDataTransaction?
    var model = DeleteRuleModel()
    var nextTag = 1
    /// The kept transaction's objects and undo history.
    var objects: [Int: ManagedObject] = [:]
    var history = DeleteRuleUndoModel()

    init(stack: DataStack, kept: UnsafeDataTransaction? = nil) {
        self.stack = stack
        self.kept = kept
    }

    /// One transaction: a few random actions, maybe a check of its reads,
    /// then its commit, judged against the model. Returns "committed" or "denied".
    mutating func round(_ random: inout SplitMix64, actions: inout [String]) throws -> String {
        let undoable = kept != nil || random.next() % 2 == 0
        let tx = try kept ?? stack.beginUnsafe(supportsUndo: undoable)
        if kept == nil {
            history = DeleteRuleUndoModel()
            objects = [:]
            if undoable { actions.append("begin with undo") }
        }
        for kind in RuleKind.roots {
            for object in try kind.fetchAll(tx) { objects[ruleTag(of: object)] = object }
        }
        let before = model
        func pick(_ kinds: Set<RuleKind>) -> Int? {
            let tags = model.kinds.keys.filter { kinds.contains(model.kinds[$0]!) && model.isAlive($0) }.sorted()
            return tags.isEmpty ? nil : tags[Int(random.next() % UInt64(tags.count))]
        }
        for _ in 0..<Int(random.next() % 8) + 1 {
            let roll = random.next() % 100
            // Creations, relationship changes and deletions open an undo group.
            let previous = model
            var isChange = true
            defer { if isChange, model != previous { history.changed(from: previous) } }
            switch roll {
            case 0..<22:
                let kind = RuleKind.allCases[Int(random.next() % UInt64(RuleKind.allCases.count))]
                let object = kind.create(in: tx)
                setTag(nextTag, of: object)
                objects[nextTag] = object
                model.create(nextTag, kind)
                actions.append("create \(kind) \(nextTag)")
                nextTag += 1
            case 22..<60:
                let role = RuleRole.all[Int(random.next() % UInt64(RuleRole.all.count))]
                guard let holder = pick(role.holders) else { continue }
                var members: [Int] = []
                if role.toOne {
                    if random.next() % 4 != 0, let partner = pick(role.partners) { members = [partner] }
                } else {
                    for _ in 0..<Int(random.next() % 4) {
                        if let partner = pick(role.partners), !members.contains(partner) { members.append(partner) }
                    }
                }
                role.set(objects[holder]!, to: members.map { objects[$0]! })
                model.set(holder, role, to: members)
                actions.append("\(holder).\(role.name) = \(members)")
            case 60..<76:
                guard let victim = pick(Set(RuleKind.allCases)) else { continue }
                tx.delete(objects[victim]!)
                model.delete(victim)
                actions.append("delete \(victim)")
            case 76..<84:
                let kind = RuleKind.roots[Int(random.next() % UInt64(RuleKind.roots.count))]
                let low = Int(random.next() % UInt64(nextTag))
                let high = low + Int(random.next() % 4)
                _ = try kind.deleteAll(in: tx, low..<high)
                let kinds: Set<RuleKind> = kind == .person ? RuleKind.people : [kind]
                for tag in model.kinds.keys.sorted() where kinds.contains(model.kinds[tag]!) && (low..<high).contains(tag) {
                    model.delete(tag)
                }
                history.removeAll()
                isChange = false
                actions.append("deleteAll \(kind) \(low)..<\(high)")
            case 84..<92 where undoable:
                tx.undo()
                history.undo(&model)
                isChange = false
                actions.append("undo")
            case 92..<96 where undoable:
                tx.redo()
                history.redo(&model)
                isChange = false
                actions.append("redo")
            default:
                try tx.flush()
                history.endGroup()
                isChange = false
                actions.append("flush")
            }
        }
        if random.next() % 3 == 0 {
            let mismatches = reads(of: objects.values.filter { !$0.isDeletedObject }, live: true)
            if !mismatches.isEmpty { throw DeleteRuleMismatch(mismatches: ["in the transaction"] + mismatches) }
        }
        let expected = model.commitError()
        do {
            try tx.commitAndWait()
        } catch {
            model = before
            history.removeAll()
            guard let expected, error == expected else {
                throw DeleteRuleMismatch(mismatches: ["commit threw \(error), the model \(String(describing: expected))"])
            }
            actions.append("commit: \(error)")
            return "denied"
        }
        if let expected {
            model = before
            throw DeleteRuleMismatch(mismatches: ["commit succeeded, the model says \(expected)"])
        }
        history.endGroup()
        model.commit()
        actions.append("commit")
        return "committed"
    }

    /// Where the store, read on the main context, differs from the model.
    func mismatches() throws -> [String] {
        var found: [String] = []
        var objects: [ManagedObject] = []
        for kind in RuleKind.roots { objects += try kind.fetchAll(stack) }
        for kind in RuleKind.allCases {
            let stored = Set(objects.filter { RuleKind.of($0) == kind }.map(ruleTag(of:)))
            let modelled = Set(model.kinds.keys.filter { model.kinds[$0] == kind })
            if stored != modelled { found.append("\(kind): \(stored.sorted()), model \(modelled.sorted())") }
        }
        found += reads(of: objects, live: false)
        // A key to a deleted row would read as nil: count the keys themselves.
        for role in RuleRole.all where role.toOne {
            let holders = model.kinds.keys.filter { role.holders.contains(model.kinds[$0]!) }
            let modelled = holders.filter { !model.members($0, role).isEmpty }.count
            let stored = try keyCount(role)
            if stored != modelled { found.append("\(role) keys: \(stored), model \(modelled)") }
        }
        return found
    }

    /// Where `objects`' relationships differ from the model's.
    private func reads(of objects: [ManagedObject], live: Bool) -> [String] {
        var found: [String] = []
        for object in objects {
            let tag = ruleTag(of: object)
            guard model.kinds[tag] != nil else {
                found.append("\(tag) is not in the model")
                continue
            }
            for role in model.roles(of: tag) {
                var read = role.read(object).map(ruleTag(of:))
                if !role.ordered { read.sort() }
                let modelled = model.members(tag, role)
                if read != modelled { found.append("\(tag).\(role.name): \(read), model \(modelled)") }
            }
        }
        return found
    }

    private func keyCount(_ role: RuleRole) throws -> Int {
        switch (role.entity, role.name) {
        case ("Person", "passport"): try stack.fetchCount(From<RulePerson>().where(\.$passport != nil))
        case ("Passport", "holder"): try stack.fetchCount(From<RulePassport>().where(\.$holder != nil))
        case ("Pet", "owner"): try stack.fetchCount(From<RulePet>().where(\.$owner != nil))
        case ("Car", "driver"): try stack.fetchCount(From<RuleCar>().where(\.$driver != nil))
        case ("Person", "mentor"): try stack.fetchCount(From<RulePerson>().where(\.$mentor != nil))
        case ("Pet", "vet"): try stack.fetchCount(From<RulePet>().where(\.$vet != nil))
        case ("Staff", "desk"): try stack.fetchCount(From<RuleStaff>().where(\.$desk != nil))
        case ("Desk", "user"): try stack.fetchCount(From<RuleDesk>().where(\.$user != nil))
        default: fatalError("no to-one \(role)")
        }
    }
}

struct DeleteRuleMismatch: Error, CustomStringConvertible {
    let mismatches: [String]
    var description: String { mismatches.joined(separator: "; ") }
}

func ruleTag(of object: ManagedObject) -> Int {
    switch object {
    case let person as RulePerson: person.tag
    case let passport as RulePassport: passport.tag
    case let pet as RulePet: pet.tag
    case let car as RuleCar: car.tag
    case let club as RuleClub: club.tag
    case let vet as RuleVet: vet.tag
    case let desk as RuleDesk: desk.tag
    default: fatalError("not of the delete-rule world: \(object)")
    }
}

func setTag(_ tag: Int, of object: ManagedObject) {
    switch object {
    case let person as RulePerson: person.tag = tag
    case let passport as RulePassport: passport.tag = tag
    case let pet as RulePet: pet.tag = tag
    case let car as RuleCar: car.tag = tag
    case let club as RuleClub: club.tag = tag
    case let vet as RuleVet: vet.tag = tag
    case let desk as RuleDesk: desk.tag = tag
    default: fatalError("not of the delete-rule world: \(object)")
    }
}
