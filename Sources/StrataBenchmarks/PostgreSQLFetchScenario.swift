import CLibPQ
import Strata

extension Scenario {
    /// Fetches every object and reads all four fields of each, from a
    /// PostgreSQL schema: ``fetchAll(_:in:)`` on the server.
    ///
    /// Untimed: filling one Strata store and one raw table with `records`,
    /// each in a schema of its own, and checking that the two tables are
    /// declared alike. Timed: Strata's `stack.fetchAll(From<Bench>())` on the
    /// main actor, against one SELECT prepared beforehand, run with its rows
    /// in binary, a Swift struct built per row; then the same sum on both sides.
    static func postgreSQLFetch(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let strataSchema = workspace.newSchema("fetch")
        let stack = try PostgreSQLFixtures.strataStack(schema: strataSchema)
        try Fixtures.strataInsert(records, into: stack)
        let rawSchema = workspace.newSchema("fetch_raw")
        let connection = try PostgreSQLFixtures.rawConnection(schema: rawSchema)
        try PostgreSQLFixtures.rawInsert(records, into: connection)
        let strataTable = try PostgreSQLFixtures.columns(of: "Bench", in: strataSchema)
        let rawTable = try PostgreSQLFixtures.columns(of: "Bench", in: rawSchema)
        guard strataTable == rawTable else {
            throw BenchmarkError(description: "the raw table (\(rawTable)) is not Strata's (\(strataTable))")
        }
        let select = try connection.prepare(RawPostgreSQLSchema.selectAll)

        return try fetchingAll(name: "pg fetch all \(countLabel(records.count))", from: stack) {
            try rawFetchAll(select)
        }
    }
}

/// Every row of the raw table, decoded from binary into structs.
private func rawFetchAll(_ select: RawPreparedStatement) throws -> [RawBenchRow] {
    let result = try select.run()
    var types: [Oid] = []
    for column in 0..<Int32(RawPostgreSQLSchema.columnTypes.count) { types.append(result.type(column)) }
    guard types == RawPostgreSQLSchema.columnTypes else {
        throw BenchmarkError(description: "column types \(types)")
    }
    let count = result.rowCount
    var rows: [RawBenchRow] = []
    rows.reserveCapacity(Int(count))
    for row in 0..<count {
        rows.append(RawBenchRow(
            rowID: result.int64(row, 0),
            name: result.text(row, 1) ?? "",
            age: Int(result.int64(row, 2)),
            score: result.double(row, 3),
            email: result.text(row, 4)))
    }
    return rows
}
