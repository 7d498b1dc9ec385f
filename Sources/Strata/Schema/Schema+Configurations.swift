/// Configurations: named subsets of a schema's entities, each kept in stores
/// of its own (CoreStore's and Core Data's model configurations).
///
/// The default configuration (`nil`) holds every entity. A store added with
/// `configuration: "Cache"` holds the entities declared in `"Cache"`
/// (`Entity(..., configurations: ["Cache"])`), with the schema those
/// entities make on their own: its own descriptions, tables and fingerprint.
extension Schema {
    /// The named configurations the schema's entities are declared in, sorted.
    public var configurationNames: [String] {
        Set(declarations.flatMap(\.configurations)).sorted()
    }

    /// The schema a store of `configuration` holds: the whole schema for
    /// `nil`, otherwise the entities declared in it (none when no entity of
    /// this version is, as an older version may not have the configuration yet).
    func restricted(to configuration: String?) -> Schema {
        guard let configuration, configuration != self.configuration else { return self }
        return Schema(
            version, entities: declarations.filter { $0.configurations.contains(configuration) },
            versionLock: nil, configuration: configuration,
            outside: declarations.filter { !$0.configurations.contains(configuration) })
    }

    /// The entity names of `configuration` (`nil`: every entity).
    func entityNames(in configuration: String?) -> Set<String> {
        guard let configuration else { return Set(entities.map(\.name)) }
        return Set(declarations.filter { $0.configurations.contains(configuration) }.map(\.entityName))
    }

    /// Configuration names that are not identifiers, and relationships that
    /// would cross from one configuration's stores to another's.
    static func configurationProblems(
        _ entities: [EntityDescription], declarations: [any AnyEntity]
    ) -> [StrataError] {
        var problems: [StrataError] = []
        var configurationsByEntity: [String: Set<String>] = [:]
        for declaration in declarations {
            configurationsByEntity[declaration.entityName] = declaration.configurations
            for name in declaration.configurations.sorted() where !SQL.isValidIdentifier(name) {
                problems.append(.invalidSchema(
                    entity: declaration.entityName, field: nil,
                    reason: "the configuration name '\(name)' must start with a letter and hold only "
                        + "ASCII letters, digits and _ (at most 64)"))
            }
        }
        for entity in entities {
            let own = configurationsByEntity[entity.name] ?? []
            for relationship in entity.relationships.values.sorted(by: { $0.name < $1.name }) {
                let missing = own.subtracting(configurationsByEntity[relationship.target] ?? [])
                guard let configuration = missing.sorted().first else { continue }
                problems.append(.invalidSchema(
                    entity: entity.name, field: relationship.name,
                    reason: "\(entity.name) is in configuration \(configuration) but the relationship's "
                        + "target \(relationship.target) is not; a relationship cannot leave its store, "
                        + "so add \(configuration) to \(relationship.target)'s configurations"))
            }
        }
        return problems
    }
}
