import Foundation
import Strata

extension BulkScenario {
    /// Deletes half of `count / 10` ``BulkParent``s (by a range of their
    /// indexed `rank`), each with 10 ``BulkChild``ren that the `.cascade`
    /// rule deletes with it.
    ///
    /// Strata: `tx.deleteAll(From<BulkParent>().where(\.$rank < half))` in
    /// one `stack.perform(synchronous:)` on the main actor, without and with
    /// a ListMonitor of half the children. Raw, in one transaction: `DELETE
    /// FROM BulkChild WHERE parent IN (SELECT _pk FROM BulkParent WHERE …)`
    /// then `DELETE FROM BulkParent WHERE …`, plain or `RETURNING _pk`; the
    /// two `SELECT _pk` first; or Strata's own statements (the parents
    /// `RETURNING _pk`, then their children by `json_each` of those IDs).
    static func cascade(count: Int, in workspace: Workspace) throws -> BulkScenario {
        let childrenEach = 10
        let parents = count / childrenEach
        let half = parents / 2
        let templates = try BulkFixtures.cascadeTemplates(parents: parents, childrenEach: childrenEach, in: workspace)

        func check(parents left: Int, children: Int) throws {
            guard left == parents - half, children == (parents - half) * childrenEach else {
                throw BenchmarkError(description: "after the cascade: \(left) parents, \(children) children")
            }
        }
        let sides = BulkSides(
            templates: templates, schema: bulkCascadeSchema, table: "BulkChild",
            monitor: (BulkChild.monitored, "ListMonitor \(countLabel(count / 2)) children"), workspace: workspace)
        func strata(monitored: Bool) -> BulkSide {
            sides.strata(
                "strata deleteAll", monitored: monitored,
                commit: { stack in
                    try stack.perform(
                        synchronous: { tx in try tx.deleteAll(From<BulkParent>().where(\.$rank < half)) },
                        waitForAllObservers: false)
                },
                check: { stack in
                    try check(parents: try stack.fetchCount(From<BulkParent>()),
                              children: try stack.fetchCount(From<BulkChild>()))
                })
        }
        func raw(_ label: String, _ column: String, _ body: @escaping (RawDatabase) throws -> Int) -> BulkSide {
            sides.raw(label, column, check: { database in
                try check(parents: try BulkFixtures.count(database, #"SELECT count(*) FROM "BulkParent""#),
                          children: try BulkFixtures.count(database, #"SELECT count(*) FROM "BulkChild""#))
            }, body)
        }

        let bound: [RawArgument] = [.integer(half)]
        let selected = #"SELECT _pk FROM "BulkParent" WHERE "rank" < ?"#
        let deleteChildren = #"DELETE FROM "BulkChild" WHERE "parent" IN ("# + selected + ")"
        let deleteParents = #"DELETE FROM "BulkParent" WHERE "rank" < ?"#
        return BulkScenario(
            title: "cascade delete \(countLabel(half)) of \(countLabel(parents)) parents, "
                + "\(childrenEach) children each, rank < \(half) (indexed)",
            strata: [strata(monitored: false), strata(monitored: true)],
            raw: [
                raw("raw 2 DELETEs … RETURNING _pk", "RETURNING") { database in
                    let children = try database.rowIDs(deleteChildren + " RETURNING _pk", bound)
                    let parents = try database.rowIDs(deleteParents + " RETURNING _pk", bound)
                    return children.count == parents.count * childrenEach ? parents.count : -1
                },
                raw("raw 2 DELETEs", "plain") { database in
                    let children = try database.change(deleteChildren, bound)
                    let parents = try database.change(deleteParents, bound)
                    return children == parents * childrenEach ? parents : -1
                },
                raw("raw 2 SELECT _pk, 2 DELETEs", "SELECT+WHERE") { database in
                    let parents = try database.rowIDs(selected, bound)
                    let children = try database.rowIDs(
                        #"SELECT _pk FROM "BulkChild" WHERE "parent" IN ("# + selected + ")", bound)
                    let deleted = try database.change(deleteChildren, bound)
                    _ = try database.change(deleteParents, bound)
                    return children.count == deleted ? parents.count : -1
                },
                raw("raw parents RETURNING, children IN json_each", "as-Strata") { database in
                    let parents = try database.rowIDs(deleteParents + " RETURNING _pk", bound)
                    let children = try database.rowIDs(
                        #"DELETE FROM "BulkChild" WHERE "parent" IN (SELECT value FROM json_each(?)) "#
                            + #"RETURNING _pk, "parent""#,
                        [.text(jsonList(parents))])
                    return children.count == parents.count * childrenEach ? parents.count : -1
                },
            ])
    }
}
