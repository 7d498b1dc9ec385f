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

        return try fetchingAll(name: "fetch all \(countLabel(records.count))", from: stack) {
            try rawFetchAll(database)
        }
    }

    /// Strata's `stack.fetchAll(From<Bench>())` against `rawFetchAll`, each
    /// followed by the same sum over every field (the fetch-all scenarios of
    /// both engines), and the bytes each side's result holds an object.
    static func fetchingAll(
        name: String, from stack: DataStack, raw rawFetchAll: @escaping () throws -> [RawBenchRow]
    ) throws -> Scenario {
        Scenario(
            name: name,
            strata: Side {
                Run(body: {
                    try stack.fetchAll(From<Bench>()).reduce(0, addingFields)
                })
            },
            raw: Side {
                Run(body: {
                    try rawFetchAll().reduce(0, addingFields)
                })
            },
            held: HeldResults(
                count: try stack.fetchCount(From<Bench>()),
                strata: { try stack.fetchAll(From<Bench>()) }, raw: { try rawFetchAll() }))
    }
}

/// A row as a raw fetch into objects makes it: ``RawBenchRow``'s fields in
/// a class instance (one heap block a row, as a ``Bench`` object is).
final class RawBenchObject {
    let rowID: Int64
    let name: String
    let age: Int
    let score: Double
    let email: String?

    init(_ row: RawBenchRow) {
        rowID = row.rowID
        name = row.name
        age = row.age
        score = row.score
        email = row.email
    }
}

extension Scenario {
    /// What a class instance a row costs by itself: raw SQLite's fetch into
    /// ``RawBenchObject``s against the same fetch into ``RawBenchRow``
    /// structs, both followed by the same sum. No Strata on either side:
    /// the ratio is the least any fetch that returns an object a row pays
    /// over the structs of the fetch scenario's raw side.
    static func fetchIntoClasses(_ records: [BenchRecord], in workspace: Workspace) throws -> Scenario {
        let database = try Fixtures.rawDatabase(at: workspace.newFile("raw-fetch-classes"))
        try Fixtures.rawInsert(records, into: database)
        return Scenario(
            name: "fetch all \(countLabel(records.count)), raw",
            strata: Side {
                Run(body: { try rawFetchAll(database, as: RawBenchObject.init).reduce(0, addingFields) })
            },
            raw: Side {
                Run(body: { try rawFetchAll(database).reduce(0, addingFields) })
            },
            labels: (first: "classes", second: "structs"))
    }
}

/// The fields the fetch scenarios add up, of a ``Bench`` object, a raw
/// struct or a raw object.
protocol BenchFields {
    var name: String { get }
    var age: Int { get }
    var score: Double { get }
    var email: String? { get }
}

extension Bench: BenchFields {}
extension RawBenchRow: BenchFields {}
extension RawBenchObject: BenchFields {}

/// `total` plus a checksum of `row`'s four fields: the sum every fetch
/// scenario's sides make over what they fetched.
@inline(__always)
func addingFields(_ total: Int, _ row: some BenchFields) -> Int {
    total + Int(row.score) + BenchRecord.checksum(age: row.age, name: row.name, email: row.email)
}

/// Every row of the raw table, decoded into structs.
private func rawFetchAll(_ database: RawDatabase) throws -> [RawBenchRow] {
    try rawFetchAll(database, as: { $0 })
}

/// Every row of the raw table, each decoded into a struct and made into an
/// `Element` by `make`.
@inline(__always)
private func rawFetchAll<Element>(
    _ database: RawDatabase, as make: (RawBenchRow) -> Element
) throws -> [Element] {
    let select = try database.prepare(RawSchema.selectAll)
    let statement = select.handle
    var rows: [Element] = []
    while try select.step() {
        rows.append(make(RawBenchRow(
            rowID: sqlite3_column_int64(statement, 0),
            name: select.text(1) ?? "",
            age: Int(sqlite3_column_int64(statement, 2)),
            score: sqlite3_column_double(statement, 3),
            email: select.text(4))))
    }
    return rows
}
