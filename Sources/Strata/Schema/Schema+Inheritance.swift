/// Inheritance trees: an entity whose class descends from another entity's
/// class is its subentity, and a tree of them shares its root's table
/// (`Docs/Storage.md`, "Inheritance").
extension SchemaBuilder {
    /// The entity and its ancestor entities, nearest first.
    func ancestry(of name: String) -> [String] {
        var chain: [String] = []
        var current: String? = name
        while let entity = current, !chain.contains(entity) {
            chain.append(entity)
            current = declared.first { $0.name == entity }?.parent
        }
        return chain
    }

    /// The entity's subentities at every level, in schema order.
    func descendants(of name: String) -> [String] {
        declared.map(\.name).filter { $0 != name && ancestry(of: $0).contains(name) }
    }

    /// The entity's relationships: its own and every ancestor's (each still
    /// naming the entity that declares it).
    func inherited(
        _ relationships: [String: [String: RelationshipDescription]], by name: String
    ) -> [String: RelationshipDescription] {
        var all: [String: RelationshipDescription] = [:]
        for entity in ancestry(of: name) {
            all.merge(relationships[entity] ?? [:]) { own, _ in own }
        }
        return all
    }

    /// Refuses a field name declared by two entities of one tree that do not
    /// inherit one from the other (siblings, cousins): the tree's table has
    /// one column per name. The later declaration is dropped.
    mutating func checkTreeFieldNames() {
        var claimed: [String: [String: String]] = [:]  // root -> lower-cased field name -> entity
        for index in declared.indices {
            let entity = declared[index]
            let chain = ancestry(of: entity.name)
            let root = chain.last!
            guard entity.parent != nil || declared.contains(where: { $0.parent == entity.name }) else {
                continue
            }
            declared[index].fields = entity.fields.filter { field in
                let key = field.name.lowercased()
                if let other = claimed[root]?[key] {
                    problems.append(.invalidSchema(
                        entity: entity.name, field: field.name,
                        reason: "\(other) declares a field \(field.name) too; the entities of an "
                            + "inheritance tree share one table (\(root)'s), with one column per "
                            + "field name: declare it once, on an entity both inherit from"))
                    return false
                }
                claimed[root, default: [:]][key] = entity.name
                return true
            }
        }
    }

    /// The row layout of every inheritance tree, given each entity's own
    /// attributes: the discriminator at slot 0, then the root's attributes,
    /// then each other entity's in schema order. Every entity of the tree has
    /// this layout; its ``EntityTree`` says which slots are its fields.
    func treeLayouts(
        own: [String: [AttributeDescription]]
    ) -> (layouts: [String: [AttributeDescription]], trees: [String: EntityTree]) {
        let names = declared.map(\.name)
        let indexByName = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var layouts: [String: [AttributeDescription]] = [:]
        var trees: [String: EntityTree] = [:]
        for root in declared where root.parent == nil {
            let below = descendants(of: root.name)
            guard !below.isEmpty else { continue }
            var layout = [AttributeDescription(
                name: EntityTree.discriminatorColumn, kind: .discriminator, storedType: .text,
                isOptional: false, defaultValue: .null, options: [],
                slot: EntityTree.discriminatorSlot)]
            var slotsByEntity: [String: [Int]] = [:]
            for name in [root.name] + below {
                for var attribute in own[name] ?? [] {
                    attribute.slot = layout.count
                    slotsByEntity[name, default: []].append(attribute.slot)
                    layout.append(attribute)
                }
            }
            for name in [root.name] + below {
                var members = [Bool](repeating: false, count: layout.count)
                for ancestor in ancestry(of: name) {
                    for slot in slotsByEntity[ancestor] ?? [] { members[slot] = true }
                }
                let family = names.filter { $0 == name || ancestry(of: $0).contains(name) }
                trees[name] = EntityTree(
                    rootIndex: indexByName[root.name]!, rootName: root.name,
                    parentName: declared.first { $0.name == name }?.parent,
                    family: family.map { indexByName[$0]! }, familyNames: family, members: members)
                layouts[name] = layout
            }
        }
        return (layouts, trees)
    }
}
