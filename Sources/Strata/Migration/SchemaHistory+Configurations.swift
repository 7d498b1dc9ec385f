extension SchemaHistory {
    /// The history a store of `configuration` follows: every version
    /// restricted to the configuration's entities, along the same chain.
    /// Mapping providers and stages come along; a step's custom mappings of
    /// entities outside the configuration find nothing to map there.
    func restricted(to configuration: String?) -> SchemaHistory {
        guard let configuration else { return self }
        return SchemaHistory(
            schemas.map { $0.restricted(to: configuration) }, chain: chain,
            currentVersion: currentSchema.version, mappingProviders: mappingProviders, stages: stages)
    }
}
