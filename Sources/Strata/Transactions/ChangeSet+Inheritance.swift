/// Change sets and inheritance trees: a change set names each row by its
/// concrete entity (the entity its ``ObjectID`` names, as the commit log
/// records it); asked about a base entity, it answers for the base and every
/// subentity, as `From<Base>` would.
extension ChangeSet {
    /// The changes of `entity`'s rows and of its subentities' rows, as one:
    /// what an observer of the entity reads. Outside an inheritance tree, or
    /// without `includingSubentities`, the entity's own changes, as they are.
    func changes(of entity: EntityDescription, includingSubentities: Bool = true) -> EntityChanges? {
        guard includingSubentities, let names = entity.tree?.familyNames, names.count > 1 else {
            return changes[entity.name]
        }
        var merged: EntityChanges?
        for name in names {
            guard let part = changes[name] else { continue }
            guard var all = merged else {
                merged = part
                continue
            }
            all.inserted += part.inserted
            all.updated.merge(part.updated) { first, _ in first }
            all.deleted.formUnion(part.deleted)
            all.insertedUnread += part.insertedUnread
            all.updatedUnread.merge(part.updatedUnread) { first, _ in first }
            all.cleared = all.cleared || part.cleared
            merged = all
        }
        return merged
    }

    /// The names `name` stands for in questions: the entity and, when the
    /// change set knows the schema's inheritance trees, its subentities.
    func family(of name: String) -> [String] {
        families?[name] ?? [name]
    }

    /// Whether the commit changed an object of one of `names` (or of a subentity of one).
    func touches(_ names: Set<String>) -> Bool {
        let changed = entityNames
        guard families != nil else { return !changed.isDisjoint(with: names) }
        return names.contains { name in family(of: name).contains(where: changed.contains) }
    }
}

/// The entities each entity of a schema's inheritance trees stands for
/// (itself and its subentities), shared by the change sets a stack merges.
struct EntityFamilies: Sendable {
    let byName: [String: [String]]

    /// The families of the entities' trees; `nil` without inheritance.
    init?(entities: [EntityDescription]) {
        guard entities.contains(where: { $0.tree != nil }) else { return nil }
        var byName: [String: [String]] = [:]
        for entity in entities where (entity.tree?.family.count ?? 1) > 1 {
            byName[entity.name] = entity.familyNames
        }
        self.byName = byName
    }

    subscript(name: String) -> [String]? { byName[name] }
}
