extension SchemaHistory {
    /// The history a store of `configuration` follows: every version
    /// restricted to the configuration's entities, along the same chain.
    /// Mapping providers and stages come along; a step's custom mappings of
    /// entities outside the configuration find nothing to map there, and are
    /// left out (see ``CustomSchemaMappingProvider/restricted(from:to:)``).
    func restricted(to configuration: String?) -> SchemaHistory {
        guard let configuration else { return self }
        let restricted = schemas.map { $0.restricted(to: configuration) }
        let providers = mappingProviders.map { provider in
            let versions = [provider.sourceVersion, provider.destinationVersion].map { version in
                (schema(version: version), restricted.first { $0.version == version })
            }
            guard case let (whole?, part?) = versions[0], case let (wholeNext?, partNext?) = versions[1]
            else { return provider }
            return provider.restricted(from: (whole, part), to: (wholeNext, partNext))
        }
        return SchemaHistory(
            restricted, chain: chain, currentVersion: currentSchema.version,
            mappingProviders: providers, stages: stages)
    }
}

extension CustomSchemaMappingProvider {
    /// The provider as a store of a configuration sees it: without the
    /// mappings that name an entity the whole source or destination version
    /// holds but the configuration's does not (an entity kept in other
    /// stores). A name that no version holds at all stays, so that the step
    /// still reports it as a mistake.
    func restricted(
        from source: (whole: Schema, part: Schema), to destination: (whole: Schema, part: Schema)
    ) -> CustomSchemaMappingProvider {
        func elsewhere(_ name: String, _ versions: (whole: Schema, part: Schema)) -> Bool {
            versions.whole.entity(named: name) != nil && versions.part.entity(named: name) == nil
        }
        let kept = entityMappings.filter { mapping in
            switch mapping {
            case .insertEntity(let name):
                return !elsewhere(name, destination)
            case .deleteEntity(let name):
                return !elsewhere(name, source)
            case let .copyEntity(sourceName, destinationName),
                 let .transformEntity(sourceName, destinationName, _):
                return !elsewhere(sourceName, source) && !elsewhere(destinationName, destination)
            }
        }
        return CustomSchemaMappingProvider(
            from: sourceVersion, to: destinationVersion, entityMappings: kept)
    }
}
