import Strata

/// A link of `RuleRole.link`: `from` is the forward role's holder.
struct RulePair: Hashable {
    let from: Int
    let to: Int
}

/// The delete rules of Docs/Transactions.md (Rule 7 and Rule 8) on plain
/// values, as Core Data applies them: relationships set on one side change
/// the other, a deletion nullifies or cascades at once, and `.deny` is
/// judged at commit against the links the deleted object still holds then
/// to objects that are not deleted. Objects are named by their tags.
struct DeleteRuleModel: Equatable {
    /// Every object that exists, by tag.
    var kinds: [Int: RuleKind] = [:]
    var links = [Set<RulePair>](repeating: [], count: RuleRole.linkCount)
    /// The positions of the ordered links' pairs: only their order counts.
    var positions: [RulePair: Int] = [:]
    var nextPosition = 0

    /// The open transaction's deletions and `.deny` checks.
    var deleted: Set<Int> = []
    var denials: [Denial] = []

    struct Denial: Equatable {
        let tag: Int
        let role: RuleRole
    }

    func isAlive(_ tag: Int) -> Bool { kinds[tag] != nil && !deleted.contains(tag) }

    func roles(of tag: Int) -> [RuleRole] {
        RuleRole.all.filter { $0.holders.contains(kinds[tag]!) }.sorted { $0.name < $1.name }
    }

    /// Every partner `tag` is linked to through `role`, deleted ones included.
    func linked(_ tag: Int, _ role: RuleRole) -> [Int] {
        links[role.link].compactMap { pair in
            role.forward ? (pair.from == tag ? pair.to : nil) : (pair.to == tag ? pair.from : nil)
        }
    }

    /// What a read of the role shows: the partners that are not deleted,
    /// in order for the ordered role.
    func members(_ tag: Int, _ role: RuleRole) -> [Int] {
        let alive = linked(tag, role).filter(isAlive)
        guard role.ordered else { return alive.sorted() }
        return alive.sorted { positions[pair(tag, $0, role)]! < positions[pair(tag, $1, role)]! }
    }

    func pair(_ tag: Int, _ partner: Int, _ role: RuleRole) -> RulePair {
        role.forward ? RulePair(from: tag, to: partner) : RulePair(from: partner, to: tag)
    }

    private mutating func unlink(_ tag: Int, _ partner: Int, _ role: RuleRole) {
        let pair = pair(tag, partner, role)
        links[role.link].remove(pair)
        positions[pair] = nil
    }

    private mutating func link(_ tag: Int, _ partner: Int, _ role: RuleRole, position: Int? = nil) {
        let pair = pair(tag, partner, role)
        links[role.link].insert(pair)
        if role.ordered || role.inverse?.ordered == true {
            positions[pair] = position ?? nextPosition
            nextPosition += 1
        }
    }

    mutating func create(_ tag: Int, _ kind: RuleKind) {
        kinds[tag] = kind
    }

    /// `tag.role = members`, the inverse kept in step.
    mutating func set(_ tag: Int, _ role: RuleRole, to members: [Int]) {
        let inverse = role.inverse
        if role.toOne {
            let new = members.first
            // The old link goes, to a deleted partner too: the key is overwritten.
            let old = linked(tag, role)
            guard old != (new.map { [$0] } ?? []) else { return }
            for partner in old { unlink(tag, partner, role) }
            if let new {
                // One-to-one: the new partner's old partner loses it.
                if inverse?.toOne == true {
                    for previous in linked(new, inverse!) { unlink(new, previous, inverse!) }
                }
                link(tag, new, role)
            }
            return
        }
        var wanted: [Int] = []
        for member in members where !wanted.contains(member) { wanted.append(member) }
        let current = self.members(tag, role)
        guard role.ordered ? current != wanted : Set(current) != Set(wanted) else { return }
        for member in current where !wanted.contains(member) { unlink(tag, member, role) }
        for member in wanted where !current.contains(member) {
            // A member held by a to-one leaves its old holder (deleted or not).
            if inverse?.toOne == true {
                for previous in linked(member, inverse!) { unlink(member, previous, inverse!) }
            }
            link(tag, member, role)
        }
        if role.ordered {
            for (position, member) in wanted.enumerated() { positions[pair(tag, member, role)] = position }
            nextPosition = max(nextPosition, wanted.count)
        }
    }

    /// Deletes `tag` and applies its rules, as `ObjectContext.delete` does:
    /// relationships in name order, the related objects read as they are
    /// then (deleted ones left out).
    mutating func delete(_ tag: Int) {
        guard isAlive(tag) else { return }
        deleted.insert(tag)
        for role in roles(of: tag) {
            let related = linked(tag, role).filter(isAlive)
            switch role.rule {
            case .deny:
                if !related.isEmpty { denials.append(Denial(tag: tag, role: role)) }
            case .nullify:
                for partner in related { unlink(tag, partner, role) }
            case .cascade:
                for partner in related { unlink(tag, partner, role) }
                for partner in related { delete(partner) }
            }
        }
        // Links without an inverse to the deleted object are cleared from
        // holders that are not deleted.
        for role in RuleRole.all where role.inverse == nil && role.partners.contains(kinds[tag]!) {
            for pair in links[role.link] where pair.to == tag && isAlive(pair.from) {
                unlink(pair.from, tag, role)
            }
        }
    }

    /// The error the commit throws, if any: the first relationship, by
    /// `Entity.name`, of a deleted object still holding objects that are not
    /// deleted. A to-one counts the distinct objects held, a to-many the links.
    func commitError() -> StrataError? {
        var remaining: [String: (role: RuleRole, links: Set<RulePair>, targets: Set<Int>)] = [:]
        for denial in denials {
            let (tag, role) = (denial.tag, denial.role)
            let key = role.description
            for partner in linked(tag, role) where isAlive(partner) {
                remaining[key, default: (role, [], [])].links.insert(pair(tag, partner, role))
                remaining[key, default: (role, [], [])].targets.insert(partner)
            }
        }
        for key in remaining.keys.sorted() {
            let (role, links, targets) = remaining[key]!
            let count = role.toOne ? targets.count : links.count
            if count > 0 {
                return .deleteDenied(entity: role.entity, relationship: role.name, relatedCount: count)
            }
        }
        return nil
    }

    /// Ends the transaction: its deletions become final.
    mutating func commit() {
        for tag in deleted { kinds[tag] = nil }
        for index in links.indices {
            links[index] = links[index].filter { kinds[$0.from] != nil && kinds[$0.to] != nil }
        }
        positions = positions.filter { kinds[$0.key.from] != nil && kinds[$0.key.to] != nil }
        deleted = []
        denials = []
    }
}

/// The undo and redo stacks of an unsafe transaction begun with
/// `supportsUndo: true` (Docs/Transactions.md, Rule 12a), as whole states
/// of the model: a group is what changed between two boundaries (a
/// `flush()`, an `undo()`), and a bulk write ends the history.
struct DeleteRuleUndoModel {
    private var undoStack: [DeleteRuleModel] = []
    private var redoStack: [DeleteRuleModel] = []
    /// The state before the open group's first change.
    private var openBefore: DeleteRuleModel?

    /// Notes a change that took the model from `before`.
    mutating func changed(from before: DeleteRuleModel) {
        guard openBefore == nil else { return }
        openBefore = before
        redoStack.removeAll()
    }

    mutating func endGroup() {
        if let openBefore { undoStack.append(openBefore) }
        openBefore = nil
    }

    mutating func undo(_ model: inout DeleteRuleModel) {
        endGroup()
        guard let before = undoStack.popLast() else { return }
        redoStack.append(model)
        model = before
    }

    mutating func redo(_ model: inout DeleteRuleModel) {
        guard let after = redoStack.popLast() else { return }
        undoStack.append(model)
        model = after
    }

    mutating func removeAll() {
        self = DeleteRuleUndoModel()
    }
}
