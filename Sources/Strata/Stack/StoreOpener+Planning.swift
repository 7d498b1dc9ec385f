import Foundation

/// Planning a store's migration without running it: the steps its options
/// allow, their schemas and mappings. `open()` runs what this plans, and
/// ``DataStack/requiredMigrations(for:)`` forecasts with it.
extension StoreOpener {
    /// The validated source and destination schemas of `step`.
    func schemas(of step: MigrationStep) throws -> (source: Schema, destination: Schema) {
        guard let source = history.schema(version: step.sourceVersion),
              let destination = history.schema(version: step.destinationVersion)
        else { throw StrataError.invalidMigrationChain(reason: "\(step) leaves the history") }
        try source.validate()
        try destination.validate()
        return (source, destination)
    }

    /// The migration that runs `step`: its custom mapping, or inference.
    func migration(
        for step: MigrationStep, from source: Schema, to destination: Schema
    ) throws -> InferredMigration {
        try history.mappingProvider(for: step).map {
            try InferredMigration(source: source, destination: destination, provider: $0)
        } ?? InferredMigration(source: source, destination: destination)
    }

    /// Throws when the store's options forbid the several steps of `steps`.
    func checkProgressiveMigration(_ steps: [MigrationStep]) throws {
        if settings.options.contains(.preventProgressiveMigration), steps.count > 1 {
            throw StrataError.progressiveMigrationPrevented(
                path: path, versions: [steps[0].sourceVersion] + steps.map(\.destinationVersion))
        }
    }

    /// The steps that adding the store would run, read without changing it:
    /// `[]` for a missing or empty store, or one already at the current version.
    ///
    /// - Throws: what ``open()`` throws for an invalid history, a file that is not a
    ///   store, or a store of no known version (even with `.recreateStoreOnModelMismatch`),
    ///   what it throws under `.preventProgressiveMigration` for a path of several steps,
    ///   and what a step throws for a mapping it cannot make or a column it cannot infer.
    func requiredMigrations() throws -> [MigrationStep] {
        try history.validate()
        switch settings.location {
        case .file(let url):
            guard FileManager.default.fileExists(atPath: url.path) else { return [] }
            try prepareFile(at: url)
        case .memory:
            guard FileManager.default.fileExists(atPath: settings.openPath) else { return [] }
        case .server:
            break
        }
        do {
            let connection = try settings.openConnection(.inspector, create: false)
            defer { connection.close() }
            let tables = try connection.tableNames()
            if tables.isEmpty { return [] }
            guard tables.contains("_strata_meta") else {
                throw StrataError.storage(path: path, reason: "the database is not a Strata store")
            }
            let meta = try connection.storeMeta()
            guard let steps = history.steps(
                fromVersion: meta["version"], fingerprint: meta["fingerprint"])
            else {
                throw StrataError.schemaMismatch(
                    path: path, storeVersion: meta["version"] ?? "unknown",
                    schemaVersion: schema.version)
            }
            // Forecast what adding would do: refuse several steps, and a step
            // whose mapping cannot be made or inferred, as it would.
            try checkProgressiveMigration(steps)
            return try steps.map { step in
                let (source, destination) = try schemas(of: step)
                try migration(for: step, from: source, to: destination).checkInferable()
                var forecast = step
                forecast.isHeavyweightMigration = history.mappingProvider(for: step) != nil
                    || history.stage(for: step) != nil
                return forecast
            }
        } catch {
            throw StoreErrors.translate(error, path: path)
        }
    }
}
