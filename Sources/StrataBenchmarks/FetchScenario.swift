import CSQLite
import Strata

/// A row as the raw side materializes it: the same fields as ``Bench``.
struct RawBenchRow {
    var rowID: Int64
    var name: String
    var age: Int
    var score: Double
    var email: String?
}

extension Scenario {
    /// Fetches every object and reads all four fields of each.
    ///
    /// Untimed: filling one Strata store and one raw database with `records`.
    /// Timed: Strata's `stack.fetchAll(From<Bench>())` on the main actor,
    /// against one prepared SELECT building a Swift struct per row; then the
    /// same sum over the fields on both sides.
    static func fetchAll(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let stack = try Fixtures.strataStack(at: workspace.newFile("strata-fetch"))
        try Fixtures.strataInsert(records, into: stack)
        let database = try Fixtures.rawDatabase(at: workspace.newFile("raw-fetch"))
        try Fixtures.rawInsert(records, into: database)

        return fetchingAll(name: "fetch all \(countLabel(records.count))", from: stack) {
            try rawFetchAll(database)
        }
    }

    /// Strata's `stack.fetchAll(From<Bench>())` against `rawFetchAll`, each
    /// followed by the same sum over every field (the fetch-all scenarios of
    /// both engines).
    static func fetchingAll(
        name: String, from stack: DataStack, raw rawFetchAll: @escaping () throws -> [RawBenchRow]
    ) -> Scenario {
        Scenario(
            name: name,
            strata: Side {
                Run(body: {
                    let objects = try stack.fetchAll(From<Bench>())
                    return objects.reduce(0) { sum, object in
                        sum + Int(object.score)
                            + BenchRecord.checksum(age: object.age, name: object.name, email: object.email)
                    }
                })
            },
            raw: Side {
                Run(body: {
                    let rows = try rawFetchAll()
                    return rows.reduce(0) { sum, row in
                        sum + Int(row.score) + BenchRecord.checksum(age: row.age, name: row.name, email: row.email)
                    }
                })
            })
    }
}

/// Every row of the raw table, decoded into structs.
private func rawFetchAll(_ database: RawDatabase) throws -> [RawBenchRow] {
    let select = try database.prepare(RawSchema.selectAll)
    let statement = select.handle
    var rows: [RawBenchRow] = []
    while try select.step() {
        rows.append(RawBenchRow(
            rowID: sqlite3_column_int64(statement, 0),
            name: text(statement, 1) ?? "",
            age: Int(sqlite3_column_int64(statement, 2)),
            score: sqlite3_column_double(statement, 3),
            email: text(statement, 4)))
    }
    return rows
}

/// The text in column `index`, or `nil` for NULL.
private func text(_ statement: OpaquePointer, _ index: Int32) -> String? {
    guard let bytes = sqlite3_column_text(statement, index) else { return nil }
    return String(cString: bytes)
}
