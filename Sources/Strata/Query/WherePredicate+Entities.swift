/// Which other entities a predicate or a path reads, so that an observer
/// knows which commits can change its answer.
///
/// A relationship to a base entity leads to objects of its subentities too,
/// and a change set names each changed object by its own entity (`"ZooDog"`,
/// not `"ZooAnimal"`): each entity reached stands here with its subentities,
/// so the names compare directly with a change set's.
extension Schema {
    /// The entities that `path`, read from `entity`, passes through, with their subentities.
    func entitiesRead(by path: ValuePath, from entity: EntityDescription) -> Set<String> {
        Set(entities(along: path.relationships, from: entity).flatMap(\.familyNames))
    }

    /// The entities reached by following the named relationships, in order.
    private func entities(
        along relationships: [String], from entity: EntityDescription
    ) -> [EntityDescription] {
        var reached: [EntityDescription] = []
        var current = entity
        for name in relationships {
            guard let relationship = current.relationships[name],
                  let target = self.entity(named: relationship.target)
            else { break }
            reached.append(target)
            current = target
        }
        return reached
    }

    /// The entities other than `entity` whose changes can change `predicate`'s answer for an object.
    func entitiesRead(by predicate: WherePredicate, from entity: EntityDescription) -> Set<String> {
        switch predicate {
        case .compare(let path, _, _), .isIn(let path, _), .between(let path, _, _), .text(let path, _, _, _):
            return entitiesRead(by: path, from: entity)
        case .and(let terms), .or(let terms):
            return terms.terms.reduce(into: []) { $0.formUnion(entitiesRead(by: $1, from: entity)) }
        case .not(let inner):
            return entitiesRead(by: inner, from: entity)
        case let .members(owner, name, _, inner):
            var reached = ownerEntities(owner, from: entity)
            guard let relationship = (reached.last ?? entity).relationships[name],
                  let target = self.entity(named: relationship.target)
            else { return Set(reached.flatMap(\.familyNames)) }
            reached.append(target)
            return Set(reached.flatMap(\.familyNames)).union(entitiesRead(by: inner, from: target))
        case let .count(owner, name, _, _):
            var reached = ownerEntities(owner, from: entity)
            if let relationship = (reached.last ?? entity).relationships[name],
               let target = self.entity(named: relationship.target) {
                reached.append(target)
            }
            return Set(reached.flatMap(\.familyNames))
        case .constant, .sql, .invalid:
            return []
        }
    }

    /// The entities along the to-one links to a to-many relationship's owner, in order.
    private func ownerEntities(_ owner: ValuePath, from entity: EntityDescription) -> [EntityDescription] {
        entities(along: owner.relationships + [owner.field].compactMap { $0 }, from: entity)
    }
}
