import Strata

extension Scenario {
    /// Inserts every record in one transaction into a fresh database file.
    ///
    /// Untimed: creating the file, the table and (for Strata) the stack.
    /// Timed: the transaction, from the first insert to the commit; for
    /// Strata this includes merging the change set into the main context,
    /// as `perform(synchronous:)` does on the main actor.
    static func insertAll(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let expected = records.count
        func verify(_ count: Int) throws {
            guard count == expected else {
                throw BenchmarkError(description: "inserted \(count) rows, expected \(expected)")
            }
        }
        return Scenario(
            name: "insert \(countLabel(expected)) (one transaction)",
            strata: Side {
                let stack = try Fixtures.strataStack(at: workspace.newFile("strata-insert"))
                return Run(
                    body: {
                        try Fixtures.strataInsert(records, into: stack)
                        return expected
                    },
                    finish: { try verify(stack.fetchCount(From<Bench>())) })
            },
            raw: Side {
                let database = try Fixtures.rawDatabase(at: workspace.newFile("raw-insert"))
                return Run(
                    body: {
                        try Fixtures.rawInsert(records, into: database)
                        return expected
                    },
                    finish: { try verify(Fixtures.rawCount(database)) })
            })
    }
}

/// `100k` for 100,000, else the plain number.
func countLabel(_ count: Int) -> String {
    count >= 1_000 && count % 1_000 == 0 ? "\(count / 1_000)k" : "\(count)"
}
