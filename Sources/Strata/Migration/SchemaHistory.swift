/// Every version of a data model an app has shipped, and the ``MigrationChain``
/// that says how a store of an older version reaches the current one.
///
/// ```swift
/// let history = SchemaHistory(
///     [schemaV1, schemaV2, schemaV3], chain: MigrationChain(["V1", "V2", "V3"]))
/// let stack = DataStack(schemaHistory: history)
/// try stack.addStorageAndWait(SQLiteStore(fileName: "zoo.sqlite"))   // migrates a V1 or V2 store
/// ```
///
/// The current version is `currentVersion` when given; otherwise the chain's
/// single leaf (the version of a one-version chain such as `"V1"`); with an
/// empty chain, the last schema listed. Mistakes (a loop,
/// a duplicate, a version not in the history, several leaves and no
/// `currentVersion`) are thrown as ``StrataError/invalidMigrationChain(reason:)``
/// when the store is added, by ``validate()``.
public struct SchemaHistory: Sendable {
    /// The versions, as listed.
    public let schemas: [Schema]
    /// How older versions migrate.
    public let chain: MigrationChain
    /// The version a stack's store is migrated to and then holds.
    public let currentSchema: Schema
    /// The hand-written mappings of some steps; the other steps are inferred.
    public let mappingProviders: [CustomSchemaMappingProvider]
    /// The hooks run before and after some steps.
    public let stages: [MigrationStage]
    private let problems: [String]

    /// A history of the given versions. See the type's description for how the
    /// current version is chosen. `mappingProviders` and `stages` each name a
    /// step the chain takes (with an empty chain, a step to the current
    /// version), at most one provider and one stage a step.
    public init(
        _ schemas: [Schema], chain: MigrationChain = MigrationChain(),
        currentVersion: String? = nil, mappingProviders: [CustomSchemaMappingProvider] = [],
        stages: [MigrationStage] = []
    ) {
        self.schemas = schemas
        self.chain = chain
        self.mappingProviders = mappingProviders
        self.stages = stages
        var problems = chain.problems
        var versions: Set<String> = []
        for schema in schemas where !versions.insert(schema.version).inserted {
            problems.append("the history lists version \(schema.version) twice")
        }
        if schemas.isEmpty { problems.append("the history holds no schema") }
        for version in chain.versions where !versions.contains(version) {
            problems.append("the chain names \(version), which is not a version of the history")
        }
        if let loop = chain.loop { problems.append(loop) }
        var current = schemas.last
        if let currentVersion {
            if let named = schemas.first(where: { $0.version == currentVersion }) {
                current = named
            } else {
                problems.append("the current version \(currentVersion) is not in the history")
            }
        } else if !chain.versions.isEmpty {
            let leaves = chain.leaves
            if leaves.count == 1, let leaf = schemas.first(where: { $0.version == leaves[0] }) {
                current = leaf
            } else if leaves.count > 1 {
                problems.append("the chain has several last versions (\(leaves.joined(separator: ", "))); "
                    + "name the current one with currentVersion:")
            }
        }
        self.currentSchema = current ?? Schema("", entities: [])
        for (kind, steps) in [
            ("mapping provider", mappingProviders.map(\.step)), ("stage", stages.map(\.step)),
        ] {
            var seen: Set<MigrationStep> = []
            for step in steps {
                if !seen.insert(step).inserted {
                    problems.append("two \(kind)s are given for \(step)")
                }
                let taken = chain.isEmpty
                    ? step.destinationVersion == currentSchema.version
                        && versions.contains(step.sourceVersion)
                    : chain.successor(of: step.sourceVersion) == step.destinationVersion
                if !taken {
                    problems.append("a \(kind) is given for \(step), a step the chain never takes")
                }
            }
        }
        self.problems = problems
    }

    /// A history of one version, as `DataStack(schema)` uses.
    public init(_ schema: Schema) {
        self.init([schema])
    }

    /// The provider of `step`, if it has one.
    func mappingProvider(for step: MigrationStep) -> CustomSchemaMappingProvider? {
        mappingProviders.first { $0.step == step }
    }

    /// The hooks of `step`, if it has any.
    func stage(for step: MigrationStep) -> MigrationStage? {
        stages.first { $0.step == step }
    }

    /// The current version's name.
    public var currentVersion: String { currentSchema.version }

    /// The schema of `version`, if the history holds it.
    public func schema(version: String) -> Schema? {
        schemas.first { $0.version == version }
    }

    /// Throws the first mistake in the chain, then in the current schema.
    ///
    /// - Throws: ``StrataError/invalidMigrationChain(reason:)``, or
    ///   ``StrataError/invalidSchema(entity:field:reason:)`` from the current schema.
    public func validate() throws(StrataError) {
        if let problem = problems.first { throw .invalidMigrationChain(reason: problem) }
        try currentSchema.validate()
        for schema in schemas { schema.checkVersionLock() }
    }

    /// The steps that migrate a store holding `fingerprint` (recorded as
    /// `version`) to the current version: `[]` when it already matches, `nil`
    /// when it is no version of the history or no path leads to the current one.
    ///
    /// The store's version is the history's schema with its fingerprint, preferring
    /// the one whose name it recorded when several versions share the fingerprint.
    func steps(fromVersion version: String?, fingerprint: String?) -> [MigrationStep]? {
        if fingerprint == currentSchema.fingerprint { return [] }
        let candidates = schemas.filter { $0.fingerprint == fingerprint }
        guard let start = candidates.first(where: { $0.version == version }) ?? candidates.first
        else { return nil }
        if chain.isEmpty {
            return [MigrationStep(sourceVersion: start.version, destinationVersion: currentVersion)]
        }
        var steps: [MigrationStep] = []
        var current = start.version
        while current != currentVersion {
            // `validate()` has ruled loops out; the bound is a guard all the same.
            guard let next = chain.successor(of: current), steps.count <= schemas.count else {
                return nil
            }
            steps.append(MigrationStep(sourceVersion: current, destinationVersion: next))
            current = next
        }
        return steps
    }
}

/// One migration a store goes through: from one version of the history to the next.
public struct MigrationStep: Sendable, Hashable, CustomStringConvertible {
    /// The version the store holds before the step.
    public let sourceVersion: String
    /// The version it holds after.
    public let destinationVersion: String
    /// Whether code of yours runs in the step: a ``CustomSchemaMappingProvider``
    /// or a ``MigrationStage``'s hooks. CoreStore calls such a step a
    /// heavyweight migration; a step Strata infers is lightweight. Set on
    /// the steps ``DataStack/requiredMigrations(for:)`` forecasts (`false` on
    /// a step you make); steps are equal when their versions are, whatever it says.
    ///
    /// ```swift
    /// let steps = try stack.requiredMigrations(for: SQLiteStore(fileName: "App.sqlite"))
    /// if steps.count > 1 || steps.contains(where: { $0.isHeavyweightMigration }) {
    ///     // show a waiting screen
    /// }
    /// ```
    public internal(set) var isHeavyweightMigration = false
    /// Whether Strata infers the whole step (`!isHeavyweightMigration`).
    public var isLightweightMigration: Bool { !isHeavyweightMigration }

    /// Creates a step.
    public init(sourceVersion: String, destinationVersion: String) {
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
    }

    /// `V1 → V2`.
    public var description: String { "\(sourceVersion) → \(destinationVersion)" }

    /// Steps are equal when they go between the same versions.
    public static func == (left: MigrationStep, right: MigrationStep) -> Bool {
        left.sourceVersion == right.sourceVersion && left.destinationVersion == right.destinationVersion
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sourceVersion)
        hasher.combine(destinationVersion)
    }
}
