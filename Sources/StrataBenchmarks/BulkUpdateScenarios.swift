import Foundation
import Strata

extension BulkScenario {
    /// Changes `level` of the half of `count` ``BulkItem``s that a range of
    /// `rank` (indexed) selects, or with `indexed: false` the same rows by a
    /// range of `score` (unindexed): sets it to 7, or with `increment: true`
    /// adds 1.
    ///
    /// Strata: one `stack.perform(synchronous:)` on the main actor around
    /// `tx.updateAll(From<BulkItem>().where(\.$rank < half), .set(\.$level, to: 7))`
    /// (or `.increment(\.$level, by: 1)`), commit and merge included; once
    /// with no monitor, once with a ListMonitor of the `level == 0` items.
    /// Raw: one transaction around a plain `UPDATE`, an `UPDATE … RETURNING
    /// _pk` into an array, or a `SELECT _pk` into an array followed by an
    /// `UPDATE` of those IDs (`json_each`) or by the predicate again.
    static func update(
        count: Int, increment: Bool, indexed: Bool = true, in workspace: Workspace
    ) throws -> BulkScenario {
        let rows = BulkRows(count: count)
        let half = count / 2
        let templates = try BulkFixtures.itemTemplates(rows, in: workspace)
        let predicate: Where<BulkItem> = indexed ? \.$rank < half : \.$score < BulkRows.score(rank: half)
        let condition = indexed ? #""rank" < ?"# : #""score" < ?"#
        let field = indexed ? "rank < \(half) (indexed)" : "score < \(BulkRows.score(rank: half)) (unindexed)"
        let set = increment ? #"SET "level" = "level" + ?"# : #"SET "level" = ?"#
        let bound: [RawArgument] = [
            .integer(increment ? 1 : 7), indexed ? .integer(half) : .real(BulkRows.score(rank: half)),
        ]
        // How many items end at each level.
        var expected: [Int: Int] = [:]
        for (index, rank) in rows.ranks.enumerated() {
            let level = BulkRows.level(index)
            expected[rank >= half ? level : increment ? level + 1 : 7, default: 0] += 1
        }

        func check(_ levels: [Int: Int]) throws {
            guard levels == expected else {
                throw BenchmarkError(description: "levels after the update: \(levels), expected \(expected)")
            }
        }
        let sides = BulkSides(
            templates: templates, schema: bulkItemSchema, table: "BulkItem",
            monitor: (BulkItem.monitored, "ListMonitor \(countLabel(count / 2))"), workspace: workspace)
        func strata(monitored: Bool) -> BulkSide {
            sides.strata(
                "strata updateAll", monitored: monitored,
                commit: { stack in
                    try stack.perform(synchronous: { tx in
                        try tx.updateAll(
                            From<BulkItem>().where(predicate),
                            increment ? .increment(\.$level, by: 1) : .set(\.$level, to: 7))
                    }, waitForAllObservers: false)
                },
                check: { stack in
                    try check(expected.keys.reduce(into: [:]) { levels, level in
                        levels[level] = try stack.fetchCount(From<BulkItem>().where(\.$level == level))
                    })
                })
        }
        func raw(_ label: String, _ column: String, _ body: @escaping (RawDatabase) throws -> Int) -> BulkSide {
            sides.raw(label, column, check: { database in
                try check(expected.keys.reduce(into: [:]) { levels, level in
                    levels[level] = try BulkFixtures.count(
                        database, #"SELECT count(*) FROM "BulkItem" WHERE "level" = ?"#, [.integer(level)])
                })
            }, body)
        }

        let update = #"UPDATE "BulkItem" "# + set + " WHERE " + condition
        let select = #"SELECT _pk FROM "BulkItem" WHERE "# + condition
        let change = increment ? "add 1 to" : "set"
        return BulkScenario(
            title: "update: \(change) level of \(countLabel(half)) of \(countLabel(count)), \(field)",
            strata: [strata(monitored: false), strata(monitored: true)],
            raw: [
                raw("raw UPDATE … RETURNING _pk", "RETURNING") { try $0.rowIDs(update + " RETURNING _pk", bound).count },
                raw("raw UPDATE", "plain") { try $0.change(update, bound) },
                raw("raw SELECT _pk, UPDATE … IN json_each", "SELECT+IN") { database in
                    let rowIDs = try database.rowIDs(select, [bound[1]])
                    let changed = try database.change(
                        #"UPDATE "BulkItem" "# + set + " WHERE _pk IN (SELECT value FROM json_each(?))",
                        [bound[0], .text(jsonList(rowIDs))])
                    return changed == rowIDs.count ? changed : -1
                },
                raw("raw SELECT _pk, UPDATE … WHERE again", "SELECT+WHERE") { database in
                    let rowIDs = try database.rowIDs(select, [bound[1]])
                    let changed = try database.change(update, bound)
                    return changed == rowIDs.count ? changed : -1
                },
            ])
    }
}
