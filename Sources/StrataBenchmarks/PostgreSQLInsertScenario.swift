import Strata

extension Scenario {
    /// Inserts every record in one transaction into a new PostgreSQL schema:
    /// ``insertAll(_:in:)`` on the server.
    ///
    /// Untimed: creating the schema, the table and (for Strata) the stack.
    /// Timed: the transaction, from the first insert to the commit; for
    /// Strata this includes merging the change set into the main context,
    /// as `perform(synchronous:)` does on the main actor. Raw: `BEGIN`, one
    /// prepared `INSERT` run per row with its parameters in binary
    /// (`PQexecPrepared`), `COMMIT`.
    static func postgreSQLInsert(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let expected = records.count
        func verify(_ count: Int) throws {
            guard count == expected else {
                throw BenchmarkError(description: "inserted \(count) rows, expected \(expected)")
            }
        }
        return Scenario(
            name: "pg insert \(countLabel(expected)) (one tx)",
            strata: Side {
                let schema = workspace.newSchema("insert")
                let stack = try PostgreSQLFixtures.strataStack(schema: schema)
                return Run(
                    body: {
                        try Fixtures.strataInsert(records, into: stack)
                        return expected
                    },
                    finish: { try verify(PostgreSQLFixtures.count("Bench", in: schema)) })
            },
            raw: Side {
                let schema = workspace.newSchema("insert_raw")
                let connection = try PostgreSQLFixtures.rawConnection(schema: schema)
                return Run(
                    body: {
                        try PostgreSQLFixtures.rawInsert(records, into: connection)
                        return expected
                    },
                    finish: { try verify(PostgreSQLFixtures.count("Bench", in: schema)) })
            })
    }
}
