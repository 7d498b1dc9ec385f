/// A hand-written mapping for one migration step, for what inference cannot
/// do: compute a field from others, drop objects, start an entity empty.
///
/// ```swift
/// let provider = CustomSchemaMappingProvider(from: "V1", to: "V2", entityMappings: [
///     .deleteEntity("Log"),
///     .insertEntity("Tag"),
///     .transformEntity(source: "Person", destination: "Person") { source, createDestination in
///         guard try source.value("active", as: Bool.self) else { return }  // dropped
///         let destination = createDestination()
///         destination["fullName"] = .text(
///             try source.value("first", as: String.self) + " "
///                 + source.value("last", as: String.self))
///     },
/// ])
/// let history = SchemaHistory(
///     [v1, v2], chain: ["V1", "V2"], mappingProviders: [provider])
/// ```
///
/// Entities the provider does not list are inferred, as in a step without a
/// provider. The step runs inside the migration's single transaction: a
/// transformer that throws rolls every step back and the store keeps its old
/// version (``StrataError/migrationStepThrew(sourceVersion:destinationVersion:entity:error:)``).
public struct CustomSchemaMappingProvider: Sendable {
    /// The version the step starts from.
    public let sourceVersion: String
    /// The version the step produces.
    public let destinationVersion: String
    /// The entities mapped by hand; the others are inferred.
    public let entityMappings: [CustomEntityMapping]

    /// A provider for the step `from` → `to`. The step must be one the history's
    /// chain takes, else adding the store throws
    /// ``StrataError/invalidMigrationChain(reason:)``.
    public init(from: String, to: String, entityMappings: [CustomEntityMapping]) {
        self.sourceVersion = from
        self.destinationVersion = to
        self.entityMappings = entityMappings
    }

    /// The step this provider maps.
    public var step: MigrationStep {
        MigrationStep(sourceVersion: sourceVersion, destinationVersion: destinationVersion)
    }
}

/// How one entity crosses a ``CustomSchemaMappingProvider``'s step.
public enum CustomEntityMapping: Sendable {
    /// Reads one source object and, by calling `createDestination`, writes its
    /// destination object. Not calling `createDestination` drops the object;
    /// calling it again returns the same destination. Throwing fails the migration.
    public typealias Transformer = @Sendable (
        _ source: SourceObject, _ createDestination: () -> DestinationObject
    ) throws -> Void

    /// The destination entity starts empty, whatever the source held.
    case insertEntity(String)
    /// The source entity is not carried over: its rows are dropped.
    case deleteEntity(String)
    /// Every row of `source` is carried into `destination` (which may be
    /// renamed) as inference carries it: fields by name or `renamingIdentifier`,
    /// row IDs kept.
    case copyEntity(source: String, destination: String)
    /// Every row of `source` is passed to `transformer`, which writes the
    /// `destination` row, keeping the row ID, or drops it. Rows are read in
    /// chunks of 1,000, so memory stays bounded on large stores. Links are
    /// carried as inference carries them, those of a dropped object excepted;
    /// a to-many made to-one holding links between kept objects is refused.
    case transformEntity(source: String, destination: String, transformer: Transformer)

    /// A transformer that carries every object as inference would, as
    /// CoreStore's `CustomMapping.inferredTransformation`: it creates the
    /// destination object, which starts with the values inference carries.
    /// For a `transformEntity` whose rows all cross unchanged, or as the last
    /// call of a transformer of one's own after it has decided to keep a row.
    ///
    /// ```swift
    /// .transformEntity(source: "Person", destination: "Person") { source, createDestination in
    ///     guard try source.value("isVeryOldAccount", as: Bool?.self) != true else { return }
    ///     try CustomEntityMapping.inferredTransformation(source, createDestination)
    /// }
    /// ```
    @Sendable
    public static func inferredTransformation(
        _ source: SourceObject, _ createDestination: () -> DestinationObject
    ) throws {
        _ = createDestination()
    }
}

extension CustomSchemaMappingProvider {
    /// CoreStore's name for ``CustomEntityMapping``, so that
    /// `CustomSchemaMappingProvider.CustomMapping.inferredTransformation` reads as there.
    public typealias CustomMapping = CustomEntityMapping
}

extension CustomSchemaMappingProvider {
    /// The old entity each destination entity continues (parallel to
    /// `destination.entities`), and the transformers by destination entity name.
    func plan(
        source: Schema, destination: Schema
    ) throws -> (predecessors: [EntityDescription?], transformers: [String: CustomEntityMapping.Transformer]) {
        func failure(_ entity: String, _ reason: String) -> StrataError {
            .migrationFailed(
                sourceVersion: sourceVersion, destinationVersion: destinationVersion,
                entity: entity, field: nil, reason: reason)
        }
        func sourceEntity(_ name: String) throws -> EntityDescription {
            guard let entity = source.entities.first(where: { $0.name == name }) else {
                throw failure(name, "the mapping names \(name), which \(sourceVersion) does not hold")
            }
            return entity
        }
        func destinationEntity(_ name: String) throws -> EntityDescription {
            guard let entity = destination.entities.first(where: { $0.name == name }) else {
                throw failure(
                    name, "the mapping names \(name), which \(destinationVersion) does not hold")
            }
            return entity
        }
        var fixed: [String: EntityDescription?] = [:]  // destination name → predecessor
        var claimed: Set<String> = []  // source names taken by hand
        var transformers: [String: CustomEntityMapping.Transformer] = [:]
        func claim(_ destinationName: String, _ predecessor: EntityDescription?) throws {
            guard fixed[destinationName] == nil else {
                throw failure(destinationName, "the mapping lists \(destinationName) twice")
            }
            fixed[destinationName] = .some(predecessor)
        }
        for mapping in entityMappings {
            switch mapping {
            case .insertEntity(let name):
                try claim(try destinationEntity(name).name, nil)
            case .deleteEntity(let name):
                guard claimed.insert(try sourceEntity(name).name).inserted else {
                    throw failure(name, "the mapping lists \(name) twice")
                }
            case let .copyEntity(sourceName, destinationName),
                 let .transformEntity(sourceName, destinationName, _):
                let old = try sourceEntity(sourceName)
                try claim(try destinationEntity(destinationName).name, old)
                guard claimed.insert(old.name).inserted else {
                    throw failure(sourceName, "the mapping lists \(sourceName) twice")
                }
                if case .transformEntity(_, _, let transformer) = mapping {
                    transformers[destinationName] = transformer
                }
            }
        }
        let inferredDestinations = destination.entities.filter { fixed[$0.name] == nil }
        let inferred = RenameMatching.match(
            inferredDestinations, in: source.entities.filter { !claimed.contains($0.name) })
        var byName: [String: EntityDescription?] = fixed
        for (entity, old) in zip(inferredDestinations, inferred) { byName[entity.name] = .some(old) }
        let predecessors = destination.entities.map { byName[$0.name] ?? nil }
        return (predecessors, transformers)
    }
}
