import Foundation
import Strata

/// Makes a bulk scenario's variants on one pair of templates: each round
/// gets a fresh copy of the template (see ``BulkFixtures``), runs the timed
/// work, then checks the outcome.
@MainActor
struct BulkSides<Watched: ManagedObject> {
    let templates: (strata: URL, raw: URL)
    let schema: Schema
    /// The raw table counted to warm a raw copy (Strata counts `Watched`).
    let table: String
    /// What a monitored Strata variant's ListMonitor shows, and how its label says so.
    let monitor: (query: From<Watched>, label: String)
    let workspace: Workspace

    /// A Strata variant: `commit` runs one transaction on the round's stack
    /// (on the main actor, or with `monitored` off it, then the merge is
    /// timed to the monitor's `didChange`), with `waitForAllObservers: false`
    /// so that the merge is not part of the commit; `check` looks at the outcome.
    func strata(
        _ label: String, monitored: Bool,
        commit: @escaping @Sendable (DataStack) throws -> Int, check: @escaping (DataStack) throws -> Void
    ) -> BulkSide {
        let log = DurationLog()
        let (templates, schema, monitor, workspace) = (templates, schema, monitor, workspace)
        return BulkSide(
            label: monitored ? "\(label), \(monitor.label)" : label,
            note: { log.note("commit→didChange", warmUps: 1) }
        ) {
            let (stack, url) = try BulkFixtures.strataCopy(
                of: templates.strata, schema: schema, counting: Watched.self, in: workspace)
            let watch = monitored ? try ListWatch(stack, monitor.query) : nil
            let work: @Sendable () throws -> Int = { try commit(stack) }
            return Run(
                body: { try watch?.commitThenMerge(log: log, work) ?? work() },
                finish: {
                    defer { BulkFixtures.removeCopy(at: url) }
                    try watch?.check()
                    try check(stack)
                })
        }
    }

    /// A raw variant: `body` runs between `BEGIN` and `COMMIT` on the
    /// round's connection; `check` looks at the outcome.
    func raw(
        _ label: String, _ column: String,
        check: @escaping (RawDatabase) throws -> Void, _ body: @escaping (RawDatabase) throws -> Int
    ) -> BulkSide {
        let (templates, table, workspace) = (templates, table, workspace)
        return BulkSide(label: label, column: column) {
            let (database, url) = try BulkFixtures.rawCopy(of: templates.raw, counting: table, in: workspace)
            return Run(
                body: { try database.transaction { try body(database) } },
                finish: {
                    defer { BulkFixtures.removeCopy(at: url) }
                    try check(database)
                })
        }
    }
}
