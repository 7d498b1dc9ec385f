/// Closures that run just before and just after one migration step, inside
/// the migration's transaction, on the store being migrated.
///
/// ```swift
/// let stage = MigrationStage(
///     from: "V1", to: "V2",
///     willMigrate: { context in print(try context.count("Person"), "people to migrate") },
///     didMigrate: { context in
///         let rows = try context.query(
///             "SELECT count(*) FROM \"Person\" WHERE \"email\" = ?", [.text("")])
///         print(rows, "people without an email")
///     })
/// let history = SchemaHistory([v1, v2], chain: ["V1", "V2"], stages: [stage])
/// ```
///
/// `willMigrate` sees the tables of the source version, `didMigrate` those of
/// the destination version. With several configurations, the hooks run once
/// per store that takes the step, each seeing that store's entities
/// (``MigrationContext/configuration``, ``MigrationContext/entityNames``).
/// A closure that throws rolls every step back; the
/// store keeps its old version and adding it throws
/// ``StrataError/migrationStepThrew(sourceVersion:destinationVersion:entity:error:)``
/// with `entity` `nil`.
public struct MigrationStage: Sendable {
    /// A hook; the context is valid only while it runs.
    public typealias Hook = @Sendable (_ context: MigrationContext) throws -> Void

    /// The version the step starts from.
    public let sourceVersion: String
    /// The version the step produces.
    public let destinationVersion: String
    /// Runs before the step, on the source version's tables.
    public let willMigrate: Hook?
    /// Runs after the step, on the destination version's tables.
    public let didMigrate: Hook?

    /// Hooks for the step `from` → `to`, which must be a step the history's
    /// chain takes, else adding the store throws ``StrataError/invalidMigrationChain(reason:)``.
    public init(from: String, to: String, willMigrate: Hook? = nil, didMigrate: Hook? = nil) {
        self.sourceVersion = from
        self.destinationVersion = to
        self.willMigrate = willMigrate
        self.didMigrate = didMigrate
    }

    /// The step these hooks surround.
    public var step: MigrationStep {
        MigrationStep(sourceVersion: sourceVersion, destinationVersion: destinationVersion)
    }

    /// Runs `hook` with a context on `schema`'s tables (those of the store of
    /// `configuration`), wrapping what it throws.
    static func run(
        _ hook: Hook?, step: MigrationStep, schema: Schema, configuration: String?,
        on connection: Connection
    ) throws {
        guard let hook else { return }
        let context = MigrationContext(connection: connection, schema: schema, configuration: configuration)
        defer { context.invalidate() }
        do {
            try hook(context)
        } catch {
            throw StrataError.migrationStepThrew(
                sourceVersion: step.sourceVersion, destinationVersion: step.destinationVersion,
                entity: nil, error: error)
        }
    }
}
