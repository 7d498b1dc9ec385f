/// Which other entities a predicate or a path reads, so that an observer
/// knows which commits can change its answer.
extension Schema {
    /// The entities that `path`, read from `entity`, passes through.
    func entitiesRead(by path: ValuePath, from entity: EntityDescription) -> Set<String> {
        Set(entities(along: path.relationships, from: entity))
    }

    /// The entities reached by following the named relationships, in order.
    private func entities(along relationships: [String], from entity: EntityDescription) -> [String] {
        var names: [String] = []
        var current = entity
        for name in relationships {
            guard let relationship = current.relationships[name],
                  let target = self.entity(named: relationship.target)
            else { break }
            names.append(target.name)
            current = target
        }
        return names
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
            var names = ownerEntities(owner, from: entity)
            guard let ownerEntity = names.last.flatMap({ self.entity(named: $0) }) ?? Optional(entity),
                  let relationship = ownerEntity.relationships[name],
                  let target = self.entity(named: relationship.target)
            else { return Set(names) }
            names.append(target.name)
            return Set(names).union(entitiesRead(by: inner, from: target))
        case let .count(owner, name, _, _):
            var names = ownerEntities(owner, from: entity)
            if let ownerEntity = names.last.flatMap({ self.entity(named: $0) }) ?? Optional(entity),
               let relationship = ownerEntity.relationships[name] {
                names.append(relationship.target)
            }
            return Set(names)
        case .constant, .sql, .invalid:
            return []
        }
    }

    /// The entities along the to-one links to a to-many relationship's owner, in order.
    private func ownerEntities(_ owner: ValuePath, from entity: EntityDescription) -> [String] {
        entities(along: owner.relationships + [owner.field].compactMap { $0 }, from: entity)
    }
}
