import Foundation

/// Reads entity classes by reflection and resolves their relationships.
struct SchemaBuilder {
    struct Declared {
        var name: String
        var renamingIdentifier: String?
        var type: ManagedObject.Type
        /// The fields the entity declares itself: for a subentity, not the
        /// ones it inherits from its parent entity.
        var fields: [FieldDeclaration]
        /// The nearest superclass that is an entity of the schema.
        var parent: String?
        var isAbstract: Bool
        /// The indexes and unique constraints over several fields it declares.
        var compoundIndexes: [CompoundIndex]
    }

    var declared: [Declared] = []
    var problems: [StrataError] = []
    /// The configuration the schema is restricted to, given to every entity.
    private let configuration: String?

    /// `outside` are the entities of the whole schema that a configuration's
    /// schema leaves out: a subentity stored without its base takes the
    /// indexes and unique constraints its left-out ancestors declare, as it
    /// takes their fields.
    init(entities: [any AnyEntity], configuration: String? = nil, outside: [any AnyEntity] = []) {
        self.configuration = configuration
        var seen: Set<String> = []
        var seenTypes: Set<ObjectIdentifier> = []
        var accepted: [any AnyEntity] = []
        for entity in entities {
            let name = entity.entityName
            guard SQL.isValidIdentifier(name) else {
                problems.append(.invalidSchema(
                    entity: name, field: nil,
                    reason: "an entity name must start with a letter and hold only ASCII "
                        + "letters, digits and _ (at most 64)"))
                continue
            }
            guard seen.insert(name.lowercased()).inserted else {
                problems.append(.invalidSchema(
                    entity: name, field: nil, reason: "the entity name is used twice"))
                continue
            }
            guard seenTypes.insert(ObjectIdentifier(entity.objectType)).inserted else {
                problems.append(.invalidSchema(
                    entity: name, field: nil,
                    reason: "class \(entity.objectType) is declared as two entities"))
                continue
            }
            accepted.append(entity)
        }
        let names = Dictionary(
            accepted.map { (ObjectIdentifier($0.objectType), $0.entityName) },
            uniquingKeysWith: { first, _ in first })
        for entity in accepted {
            let name = entity.entityName
            // The parent is the nearest superclass that is an entity; the
            // fields of that class and above are inherited, not declared.
            let byClass = DeclaredFields.declarationsByClass(of: entity.objectType)
            var parent: String?
            var ownFrom = 0
            for level in stride(from: byClass.count - 2, through: 0, by: -1) {
                if let found = names[ObjectIdentifier(byClass[level].type)] {
                    parent = found
                    ownFrom = level + 1
                    break
                }
            }
            let inherited = byClass[..<ownFrom].flatMap(\.fields)
            let own = byClass[ownFrom...].flatMap(\.fields)
            var indexes = Self.compoundIndexes(of: entity, problems: &problems)
            // Ancestors above this schema's parent (if any) that the configuration
            // left out; their mistakes are the whole schema's to report.
            var reportedElsewhere: [StrataError] = []
            for level in byClass[ownFrom..<max(ownFrom, byClass.count - 1)] {
                guard let ancestor = outside.first(where: { $0.objectType == level.type }) else { continue }
                for index in Self.compoundIndexes(of: ancestor, problems: &reportedElsewhere)
                where !indexes.contains(index) {
                    indexes.append(index)
                }
            }
            declared.append(Declared(
                name: name, renamingIdentifier: entity.renamingIdentifier, type: entity.objectType,
                fields: checked(own, entity: name, inherited: inherited, parent: parent),
                parent: parent, isAbstract: entity.isAbstract,
                compoundIndexes: indexes))
        }
        checkTreeFieldNames()
    }

    /// The entity's `indexes` and `uniqueConstraints` by field name; a key
    /// path that names no stored or coded field or to-one relationship, an
    /// empty list, or a field listed twice is a problem.
    private static func compoundIndexes(
        of entity: any AnyEntity, problems: inout [StrataError]
    ) -> [CompoundIndex] {
        let declared = entity.compoundIndexes.map { ($0, false) } + entity.uniqueConstraints.map { ($0, true) }
        var indexes: [CompoundIndex] = []
        for (keyPaths, isUnique) in declared {
            let what = isUnique ? "a unique constraint" : "an index"
            var fields: [String] = []
            for keyPath in keyPaths {
                guard let declaration = DeclaredFields.field(at: keyPath)?.declaration else {
                    problems.append(.invalidSchema(
                        entity: entity.entityName, field: nil,
                        reason: "\(what) lists a key path that names no field of the entity"))
                    return []
                }
                switch declaration.kind {
                case .stored, .coded, .relationship(_, .toOne, _, _, _):
                    fields.append(declaration.name)
                case .relationship, .virtual:
                    problems.append(.invalidSchema(
                        entity: entity.entityName, field: declaration.name,
                        reason: "\(what) can hold stored and coded fields and to-one relationships only"))
                    return []
                }
            }
            guard !fields.isEmpty, Set(fields).count == fields.count else {
                problems.append(.invalidSchema(
                    entity: entity.entityName, field: nil,
                    reason: "\(what) must list at least one field, each once"))
                return []
            }
            let index = CompoundIndex(fields: fields, isUnique: isUnique)
            if !indexes.contains(index) { indexes.append(index) }
        }
        return indexes
    }

    private mutating func checked(
        _ fields: [FieldDeclaration], entity: String, inherited: [FieldDeclaration] = [],
        parent: String? = nil
    ) -> [FieldDeclaration] {
        let inheritedNames = Set(inherited.map { $0.name.lowercased() })
        var seen = inheritedNames
        var kept: [FieldDeclaration] = []
        for field in fields {
            if let problem = field.problem {
                problems.append(.invalidSchema(entity: entity, field: field.name, reason: problem))
            } else if !SQL.isValidIdentifier(field.name) {
                problems.append(.invalidSchema(
                    entity: entity, field: field.name,
                    reason: "a field name must start with a letter and hold only ASCII letters, "
                        + "digits and _ (at most 64)"))
            } else if let previous = field.renamingIdentifier, !SQL.isValidIdentifier(previous) {
                problems.append(.invalidSchema(
                    entity: entity, field: field.name,
                    reason: "the renaming identifier '\(previous)' is not a valid field name"))
            } else if let parent, inheritedNames.contains(field.name.lowercased()) {
                problems.append(.invalidSchema(
                    entity: entity, field: field.name,
                    reason: "\(entity) inherits a field of that name from \(parent); a subentity "
                        + "cannot declare an inherited field again"))
            } else if !seen.insert(field.name.lowercased()).inserted {
                problems.append(.invalidSchema(
                    entity: entity, field: field.name, reason: "the field name is used twice"))
            } else {
                kept.append(field)
            }
        }
        return kept
    }

    /// A relationship as declared, before storage is decided.
    private struct Link {
        var entity: String
        var name: String
        var target: String
        var cardinality: RelationshipCardinality
        var inverse: String?
        var deleteRule: DeleteRule
        var counts: MemberCounts
    }

    /// What is wrong with a relationship's `minCount` and `maxCount`, if anything.
    private func problem(with counts: MemberCounts, _ cardinality: RelationshipCardinality) -> String? {
        guard counts.isBounded else { return nil }
        if cardinality == .toOne { return "minCount and maxCount bound to-many relationships only" }
        if counts.min < 0 || counts.max < 0 { return "minCount and maxCount cannot be negative" }
        if counts.max > 0, counts.min > counts.max {
            return "its minCount \(counts.min) is above its maxCount \(counts.max)"
        }
        return nil
    }

    mutating func build() -> (entities: [EntityDescription], linkTables: [TableDefinition]) {
        let links = resolveLinks()
        var attributes: [String: [AttributeDescription]] = [:]
        var fieldNames: [String: [String]] = [:]
        for entity in declared {
            var list: [AttributeDescription] = []
            for field in entity.fields {
                switch field.kind {
                case let .stored(type, isOptional, defaultValue, options):
                    list.append(AttributeDescription(
                        name: field.name, kind: .stored, storedType: type, isOptional: isOptional,
                        defaultValue: defaultValue, options: options, slot: list.count,
                        renamingIdentifier: field.renamingIdentifier, initialValue: field.initialValue))
                case let .coded(type, isOptional, defaultValue):
                    list.append(AttributeDescription(
                        name: field.name, kind: .coded, storedType: type, isOptional: isOptional,
                        defaultValue: defaultValue, options: [], slot: list.count,
                        renamingIdentifier: field.renamingIdentifier, initialValue: field.initialValue))
                case .relationship(_, .toOne, _, _, _):
                    list.append(AttributeDescription(
                        name: field.name, kind: .foreignKey(relationship: field.name),
                        storedType: .integer, isOptional: true, defaultValue: .null,
                        options: .indexed, slot: list.count,
                        renamingIdentifier: field.renamingIdentifier))
                case .relationship, .virtual:
                    break
                }
            }
            attributes[entity.name] = list
            fieldNames[entity.name] = entity.fields.map(\.name)
        }
        // Ordered one-to-many relationships keep each child's position in the child's table.
        for link in links where link.cardinality == .orderedToMany {
            guard let inverse = link.inverse, inverseCardinality(of: link, in: links) == .toOne
            else { continue }
            let count = attributes[link.target]?.count ?? 0
            let previous = renamingIdentifier(of: inverse, in: link.target).map { "_order_\($0)" }
            attributes[link.target]?.append(AttributeDescription(
                name: "_order_\(inverse)", kind: .order(relationship: inverse), storedType: .integer,
                isOptional: true, defaultValue: .null, options: [], slot: count,
                renamingIdentifier: previous))
        }

        // Entities of an inheritance tree share their root's row layout.
        let trees = treeLayouts(own: attributes)
        for (name, layout) in trees.layouts { attributes[name] = layout }

        var linkTables: [String: TableDefinition] = [:]
        var relationships: [String: [String: RelationshipDescription]] = [:]
        for link in links {
            let storage = storage(of: link, links: links, attributes: attributes, tables: &linkTables)
            relationships[link.entity, default: [:]][link.name] = RelationshipDescription(
                name: link.name, entity: link.entity, target: link.target,
                cardinality: link.cardinality, inverse: link.inverse,
                deleteRule: link.deleteRule, counts: link.counts, storage: storage,
                renamingIdentifier: renamingIdentifier(of: link.name, in: link.entity))
        }
        // A tree's table holds the compound indexes every entity of the tree declares.
        func table(of entity: Declared) -> String { trees.trees[entity.name]?.rootName ?? entity.name }
        var tableIndexes: [String: [CompoundIndex]] = [:]
        for entity in declared {
            for index in entity.compoundIndexes where !(tableIndexes[table(of: entity)] ?? []).contains(index) {
                tableIndexes[table(of: entity), default: []].append(index)
            }
        }
        let entities = declared.enumerated().map { index, entity in
            EntityDescription(
                index: index, name: entity.name, type: entity.type,
                attributes: attributes[entity.name] ?? [],
                relationships: inherited(relationships, by: entity.name),
                fieldNames: ancestry(of: entity.name).reversed().flatMap { fieldNames[$0] ?? [] },
                renamingIdentifier: entity.renamingIdentifier, tree: trees.trees[entity.name],
                isAbstract: entity.isAbstract, configuration: configuration,
                compoundIndexes: tableIndexes[table(of: entity)] ?? [])
        }
        return (entities, linkTables.keys.sorted().compactMap { linkTables[$0] })
    }

    /// The previous name declared on a field of an entity, if any.
    private func renamingIdentifier(of field: String, in entity: String) -> String? {
        declared.first { $0.name == entity }?.fields.first { $0.name == field }?.renamingIdentifier
    }

    private func inverseCardinality(of link: Link, in links: [Link]) -> RelationshipCardinality? {
        guard let inverse = link.inverse else { return nil }
        return links.first { $0.entity == link.target && $0.name == inverse }?.cardinality
    }

    private func storage(
        of link: Link, links: [Link], attributes: [String: [AttributeDescription]],
        tables: inout [String: TableDefinition]
    ) -> RelationshipStorage {
        func slot(_ entity: String, _ kind: AttributeDescription.Kind) -> Int? {
            attributes[entity]?.first { $0.kind == kind }?.slot
        }
        if link.cardinality == .toOne {
            return .foreignKey(slot: slot(link.entity, .foreignKey(relationship: link.name)) ?? 0)
        }
        if let inverse = link.inverse, inverseCardinality(of: link, in: links) == .toOne {
            return .inverseForeignKey(
                targetSlot: slot(link.target, .foreignKey(relationship: inverse)) ?? 0,
                orderSlot: link.cardinality == .orderedToMany
                    ? slot(link.target, .order(relationship: inverse)) : nil)
        }
        // A link table, named after whichever side of the pair sorts first.
        let this = "\(link.entity)_\(link.name)"
        let other = link.inverse.map { "\(link.target)_\($0)" }
        let isFirst = other.map { this <= $0 } ?? true
        let table = "_strata_link_" + (isFirst ? this : other!)
        let ownerColumn = isFirst ? "source" : "target"
        let targetColumn = isFirst ? "target" : "source"
        let orderColumn = link.cardinality == .orderedToMany ? "\(ownerColumn)_order" : nil
        var definition = tables[table] ?? TableDefinition(
            name: table,
            columns: [.init(name: "source", type: "INTEGER"), .init(name: "target", type: "INTEGER")],
            indexes: [.init(name: "\(table)_target", columns: ["target", "source"], isUnique: false)],
            primaryKey: ["source", "target"])
        if let orderColumn, !definition.columns.contains(where: { $0.name == orderColumn }) {
            definition.columns.append(.init(name: orderColumn, type: "INTEGER"))
        }
        tables[table] = definition
        return .linkTable(
            table: table, ownerColumn: ownerColumn, targetColumn: targetColumn,
            orderColumn: orderColumn)
    }

    /// Resolves every relationship's target entity and inverse, recording problems.
    private mutating func resolveLinks() -> [Link] {
        let names = Dictionary(
            declared.map { (ObjectIdentifier($0.type), $0.name) }, uniquingKeysWith: { a, _ in a })
        var links: [Link] = []
        for entity in declared {
            for field in entity.fields {
                guard case let .relationship(targetType, cardinality, inverseKeyPath, rule, counts)
                    = field.kind
                else { continue }
                if let problem = problem(with: counts, cardinality) {
                    problems.append(.invalidSchema(entity: entity.name, field: field.name, reason: problem))
                }
                guard let target = names[ObjectIdentifier(targetType)] else {
                    problems.append(.invalidSchema(
                        entity: entity.name, field: field.name,
                        reason: "its target class \(targetType) is not an entity of this schema"))
                    continue
                }
                var inverse: String?
                if let inverseKeyPath {
                    inverse = DeclaredFields.field(at: inverseKeyPath)?.declaration.name
                    if inverse == nil {
                        problems.append(.invalidSchema(
                            entity: entity.name, field: field.name,
                            reason: "its inverse key path does not name a relationship of \(target)"))
                    }
                }
                links.append(Link(
                    entity: entity.name, name: field.name, target: target,
                    cardinality: cardinality, inverse: inverse, deleteRule: rule, counts: counts))
            }
        }
        // Infer the inverse on the side that did not declare it, and check both sides agree.
        for index in links.indices {
            let link = links[index]
            if let inverse = link.inverse {
                guard let other = links.first(where: { $0.entity == link.target && $0.name == inverse })
                else {
                    problems.append(.invalidSchema(
                        entity: link.entity, field: link.name,
                        reason: "its inverse \(link.target).\(inverse) is not a relationship"))
                    continue
                }
                if other.target != link.entity {
                    problems.append(.invalidSchema(
                        entity: link.entity, field: link.name,
                        reason: "its inverse \(link.target).\(inverse) points to \(other.target), "
                            + "not back to \(link.entity)"))
                } else if let back = other.inverse, back != link.name {
                    problems.append(.invalidSchema(
                        entity: link.entity, field: link.name,
                        reason: "its inverse \(link.target).\(inverse) names \(back) as its inverse"))
                } else if link.entity == link.target && inverse == link.name {
                    problems.append(.invalidSchema(
                        entity: link.entity, field: link.name,
                        reason: "a relationship cannot be its own inverse"))
                }
            } else {
                let claimants = links.filter {
                    $0.entity == link.target && $0.target == link.entity && $0.inverse == link.name
                }
                if claimants.count > 1 {
                    problems.append(.invalidSchema(
                        entity: link.entity, field: link.name,
                        reason: "more than one relationship names it as inverse"))
                }
                links[index].inverse = claimants.first?.name
            }
        }
        return links
    }
}
