import Foundation
import Strata

extension BulkScenario {
    /// Deletes half of `count` ``BulkItem``s by a range of `rank` (indexed)
    /// or, with `indexed: false`, the same rows by a range of `score`
    /// (unindexed, so every statement scans the table).
    ///
    /// Strata: one `stack.perform(synchronous:)` on the main actor around
    /// `tx.deleteAll(From<BulkItem>().where(…))`, commit and merge included;
    /// once on a stack with no monitor, once with a ListMonitor of the
    /// `level == 0` half of the items, sorted by `rank`. Raw: one
    /// transaction around a plain `DELETE`, a `DELETE … RETURNING _pk`
    /// into an array, or a `SELECT _pk` into an array followed by a
    /// `DELETE` of those IDs (`json_each`) or by the predicate again.
    static func delete(count: Int, indexed: Bool, in workspace: Workspace) throws -> BulkScenario {
        let rows = BulkRows(count: count)
        let half = count / 2
        let templates = try BulkFixtures.itemTemplates(rows, in: workspace)
        let predicate: Where<BulkItem> = indexed ? \.$rank < half : \.$score < BulkRows.score(rank: half)
        let condition = indexed ? #""rank" < ?"# : #""score" < ?"#
        let bound: [RawArgument] = indexed ? [.integer(half)] : [.real(BulkRows.score(rank: half))]
        let field = indexed ? "rank < \(half) (indexed)" : "score < \(BulkRows.score(rank: half)) (unindexed)"

        func check(remaining: Int, selected: Int) throws {
            guard remaining == count - half, selected == 0 else {
                throw BenchmarkError(description: "after the delete: \(remaining) rows, \(selected) still selected")
            }
        }
        let sides = BulkSides(
            templates: templates, schema: bulkItemSchema, table: "BulkItem",
            monitor: (BulkItem.monitored, "ListMonitor \(countLabel(count / 2))"), workspace: workspace)
        func strata(monitored: Bool) -> BulkSide {
            sides.strata(
                "strata deleteAll", monitored: monitored,
                commit: { stack in
                    try stack.perform(
                        synchronous: { tx in try tx.deleteAll(From<BulkItem>().where(predicate)) },
                        waitForAllObservers: false)
                },
                check: { stack in
                    try check(remaining: try stack.fetchCount(From<BulkItem>()),
                              selected: try stack.fetchCount(From<BulkItem>().where(predicate)))
                })
        }
        func raw(_ label: String, _ column: String, _ body: @escaping (RawDatabase) throws -> Int) -> BulkSide {
            sides.raw(label, column, check: { database in
                try check(remaining: try BulkFixtures.count(database, #"SELECT count(*) FROM "BulkItem""#),
                          selected: try BulkFixtures.count(
                            database, #"SELECT count(*) FROM "BulkItem" WHERE "# + condition, bound))
            }, body)
        }

        let delete = #"DELETE FROM "BulkItem" WHERE "# + condition
        let select = #"SELECT _pk FROM "BulkItem" WHERE "# + condition
        return BulkScenario(
            title: "delete \(countLabel(half)) of \(countLabel(count)), \(field)",
            strata: [strata(monitored: false), strata(monitored: true)],
            raw: [
                raw("raw DELETE … RETURNING _pk", "RETURNING") { try $0.rowIDs(delete + " RETURNING _pk", bound).count },
                raw("raw DELETE", "plain") { try $0.change(delete, bound) },
                raw("raw SELECT _pk, DELETE … IN json_each", "SELECT+IN") { database in
                    let rowIDs = try database.rowIDs(select, bound)
                    let deleted = try database.change(
                        #"DELETE FROM "BulkItem" WHERE _pk IN (SELECT value FROM json_each(?))"#,
                        [.text(jsonList(rowIDs))])
                    return deleted == rowIDs.count ? deleted : -1
                },
                raw("raw SELECT _pk, DELETE … WHERE again", "SELECT+WHERE") { database in
                    let rowIDs = try database.rowIDs(select, bound)
                    let deleted = try database.change(delete, bound)
                    return deleted == rowIDs.count ? deleted : -1
                },
            ])
    }

    /// Empties a store of `count` ``BulkItem``s.
    ///
    /// Strata: `stack.wipeAllData()` on the main actor (one transaction,
    /// commit and merge included), without and with a ListMonitor of half
    /// the items. Raw: one transaction around `DELETE FROM BulkItem` (which
    /// SQLite runs as its truncate shortcut), a `DELETE … RETURNING _pk`
    /// into an array (no shortcut), or a `SELECT _pk` into an array first.
    static func wipe(count: Int, in workspace: Workspace) throws -> BulkScenario {
        let templates = try BulkFixtures.itemTemplates(BulkRows(count: count), in: workspace)
        func check(_ remaining: Int) throws {
            guard remaining == 0 else { throw BenchmarkError(description: "\(remaining) rows left after the wipe") }
        }
        let sides = BulkSides(
            templates: templates, schema: bulkItemSchema, table: "BulkItem",
            monitor: (BulkItem.monitored, "ListMonitor \(countLabel(count / 2))"), workspace: workspace)
        func strata(monitored: Bool) -> BulkSide {
            sides.strata(
                "strata wipeAllData", monitored: monitored, commit: { stack in try stack.wipeAllData(waitForAllObservers: false) },
                check: { stack in try check(try stack.fetchCount(From<BulkItem>())) })
        }
        func raw(_ label: String, _ column: String, _ body: @escaping (RawDatabase) throws -> Int) -> BulkSide {
            sides.raw(label, column, check: { database in
                try check(try BulkFixtures.count(database, #"SELECT count(*) FROM "BulkItem""#))
            }, body)
        }
        return BulkScenario(
            title: "wipe \(countLabel(count))",
            strata: [strata(monitored: false), strata(monitored: true)],
            raw: [
                raw("raw DELETE FROM (truncate)", "truncate") { try $0.change(#"DELETE FROM "BulkItem""#) },
                raw("raw DELETE FROM … RETURNING _pk", "RETURNING") {
                    try $0.rowIDs(#"DELETE FROM "BulkItem" RETURNING _pk"#).count
                },
                raw("raw SELECT _pk, DELETE FROM", "SELECT+truncate") { database in
                    let rowIDs = try database.rowIDs(#"SELECT _pk FROM "BulkItem""#)
                    let deleted = try database.change(#"DELETE FROM "BulkItem""#)
                    return deleted == rowIDs.count ? deleted : -1
                },
            ])
    }
}
