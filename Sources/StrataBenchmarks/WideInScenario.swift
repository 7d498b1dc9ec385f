import CSQLite
import Foundation
import Strata

extension Scenario {
    /// Fetches the objects whose name is one of as many values as there are
    /// objects; half the values name an object (every even one), half none.
    ///
    /// Untimed: filling one Strata store and one raw database with `records`,
    /// and the list of names `Person 0`, `Person 2`, … `Person <2 × count − 2>`.
    /// Timed: Strata's `stack.fetchAll(From<Bench>().where(names ~= \.$name))`
    /// on the main actor, which builds the predicate's set, binds the values
    /// as one blob and reads them with `strata_values(?)`; against one
    /// prepared `SELECT ... WHERE name IN (SELECT value FROM json_each(?))`
    /// with the names encoded as a JSON array, building a Swift struct per
    /// row; then the same sum over the fields on both sides.
    static func wideIn(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let stack = try Fixtures.strataStack(at: workspace.newFile("strata-wide-in"))
        try Fixtures.strataInsert(records, into: stack)
        let database = try Fixtures.rawDatabase(at: workspace.newFile("raw-wide-in"))
        try Fixtures.rawInsert(records, into: database)
        let names = stride(from: 0, to: 2 * records.count, by: 2).map { "Person \($0)" }
        let expected = (records.count + 1) / 2
        func verify(_ count: Int) throws {
            guard count == expected else {
                throw BenchmarkError(description: "fetched \(count) objects, expected \(expected)")
            }
        }

        return Scenario(
            name: "fetch name in \(countLabel(names.count)) values",
            strata: Side {
                Run(body: {
                    let objects = try stack.fetchAll(From<Bench>().where(names ~= \.$name))
                    try verify(objects.count)
                    return objects.reduce(0, addingFields)
                })
            },
            raw: Side {
                Run(body: {
                    let rows = try rawFetchNamed(names, from: database)
                    try verify(rows.count)
                    return rows.reduce(0, addingFields)
                })
            })
    }
}

/// The raw rows whose name is in `names`, with one statement and the names as one JSON parameter.
private func rawFetchNamed(_ names: [String], from database: RawDatabase) throws -> [RawBenchRow] {
    let json = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
    let select = try database.prepare(
        "SELECT _pk, name, age, score, email FROM Bench WHERE name IN (SELECT value FROM json_each(?))"
    )
    let statement = select.handle
    try database.check(sqlite3_bind_text(statement, 1, json, -1, strata_sqlite_transient()))
    var rows: [RawBenchRow] = []
    while try select.step() {
        rows.append(
            RawBenchRow(
                rowID: sqlite3_column_int64(statement, 0),
                name: select.text(1) ?? "",
                age: Int(sqlite3_column_int64(statement, 2)),
                score: sqlite3_column_double(statement, 3),
                email: select.text(4)))
    }
    return rows
}
