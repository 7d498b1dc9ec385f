import Foundation
import Testing

@testable import Strata

// The model of the ports of CoreStore's FetchTests and FromTests: two
// entities shaped like its TestEntity1 and TestEntity2, the first in
// "Config1" and the second in "Config2" (both in the default configuration,
// which holds every entity), seeded the way its test data is seeded, and a
// model of those rows that says what each fetch must return.

/// One of the two test entities' shared fields, so that helpers serve both.
protocol FetchPortRecord: AnyObject {
    var testEntityID: Int { get set }
    var testNumber: Int { get set }
    var testBoolean: Bool { get set }
    var testString: String? { get set }
    /// 1 or 2: which of the two entities the class is.
    static var entityNumber: Int { get }
}

/// CoreStore's TestEntity1: in the default configuration and in "Config1".
final class FetchPortEntity1: ManagedObject, FetchPortRecord {
    @Field.Stored("testEntityID") var testEntityID: Int = 0
    @Field.Stored("testNumber") var testNumber: Int = 0
    @Field.Stored("testBoolean") var testBoolean: Bool = false
    @Field.Stored("testString") var testString: String? = nil
    static var entityNumber: Int { 1 }
}

/// CoreStore's TestEntity2: in the default configuration and in "Config2".
final class FetchPortEntity2: ManagedObject, FetchPortRecord {
    @Field.Stored("testEntityID") var testEntityID: Int = 0
    @Field.Stored("testNumber") var testNumber: Int = 0
    @Field.Stored("testBoolean") var testBoolean: Bool = false
    @Field.Stored("testString") var testString: String? = nil
    static var entityNumber: Int { 2 }
}

enum FetchPort {
    static let schema = Schema(
        "FetchPortV1",
        entities: [
            Entity<FetchPortEntity1>("FetchPortEntity1", configurations: ["Config1"]),
            Entity<FetchPortEntity2>("FetchPortEntity2", configurations: ["Config2"]),
        ])

    /// Every configuration a `From` of the tests names, `nil` for none named.
    static let fromConfigurations: [[String?]?] = [
        nil, [nil], ["Config1"], ["Config2"], [nil, "Config1"], [nil, "Config2"],
        ["Config1", "Config2"],
        ["Config2", nil], ["Config9"], [], ["Config1", "Config1"],
    ]

    /// Whether a store of `configuration` holds entity `entity` (1 or 2):
    /// the default one holds both.
    static func holds(_ configuration: String?, entity: Int) -> Bool {
        configuration == nil || configuration == "Config\(entity)"
    }

    /// A stack with a store of each of `configurations`, in that order.
    @MainActor
    static func stack(
        _ configurations: [String?], _ kind: StoreKind, in directory: TemporaryDirectory
    ) throws -> DataStack {
        try makeConfigurationStack(configurations, kind, in: directory, schema: schema)
    }

    /// The rows CoreStore's test data puts in stores of `configurations`:
    /// for the store at position `p` (from 1), five objects of each entity it
    /// holds, numbered 1...5, with IDs `p * 100 + n` (entity 1) and
    /// `p * 200 + n` (entity 2), odd numbers true.
    static func seedRows(_ configurations: [String?]) -> [FetchPortRow] {
        var rows: [FetchPortRow] = []
        for (index, configuration) in configurations.enumerated() {
            for entity in [1, 2] where holds(configuration, entity: entity) {
                for number in 1...5 {
                    rows.append(
                        FetchPortRow(
                            entity: entity, configuration: configuration,
                            id: (index + 1) * 100 * entity + number,
                            number: number,
                            string: "\(configuration ?? "default")#\(entity)#\(number)"))
                }
            }
        }
        return rows
    }

    /// Commits `rows` to `stack`, one transaction per store.
    @MainActor
    static func seed(_ stack: DataStack, _ rows: [FetchPortRow]) throws {
        for configuration in Set(rows.map(\.configuration)) {
            try stack.perform(synchronous: { tx in
                for row in rows where row.configuration == configuration {
                    if row.entity == 1 {
                        row.write(to: tx.create(Into<FetchPortEntity1>(configuration)))
                    } else {
                        row.write(to: tx.create(Into<FetchPortEntity2>(configuration)))
                    }
                }
            })
        }
    }
}

/// One object of the model.
struct FetchPortRow: Equatable, CustomStringConvertible {
    var entity: Int
    var configuration: String?
    var id: Int
    var number: Int
    var string: String?

    var boolean: Bool { number % 2 != 0 }
    var description: String { "\(configuration ?? "default")/E\(entity)/\(id)#\(number)" }

    func write(to object: some ManagedObject & FetchPortRecord) {
        object.testEntityID = id
        object.testNumber = number
        object.testBoolean = boolean
        object.testString = string
    }
}

/// CoreStore's clause lists: a comparison of `testNumber`, an order by
/// `testEntityID`, and an optional limit, in the format-string and
/// string-key forms its tests spell them in.
struct FetchPortClauses: CustomStringConvertible {
    var isGreater: Bool
    var bound: Int
    var ascending: Bool
    var limit: Int?
    var offset = 0
    /// Whether the order is by `testNumber` first (a field transactions
    /// change), then by `testEntityID`.
    var byNumber = false

    /// The five lists CoreStore's fetch tests run.
    static let coreStore: [FetchPortClauses] = [
        .init(isGreater: true, bound: 1, ascending: true, limit: nil),
        .init(isGreater: false, bound: 4, ascending: false, limit: nil),
        .init(isGreater: true, bound: 5, ascending: true, limit: nil),
        .init(isGreater: true, bound: 3, ascending: true, limit: 3),
        .init(isGreater: false, bound: 3, ascending: false, limit: 3),
    ]

    var description: String {
        "testNumber \(isGreater ? ">" : "<") \(bound), \(ascending ? "ascending" : "descending")"
            + (byNumber ? " number, ID" : " ID")
            + (limit.map { ", limit \($0)" } ?? "") + (offset == 0 ? "" : ", offset \(offset)")
    }

    func clauses<Object: ManagedObject & FetchPortRecord>(_ type: Object.Type) -> [any FetchClause]
    {
        var clauses: [any FetchClause] = [
            Where<Object>(isGreater ? "%K > %@" : "%K < %@", "testNumber", bound),
            OrderBy<Object>(ascending ? .ascending("testEntityID") : .descending("testEntityID")),
        ]
        if byNumber {
            clauses[1] = OrderBy<Object>(
                ascending ? .ascending("testNumber") : .descending("testNumber"),
                ascending ? .ascending("testEntityID") : .descending("testEntityID"))
        }
        if let limit { clauses.append(Tweak { $0.fetchLimit = limit }) }
        if offset != 0 { clauses.append(Tweak { $0.fetchOffset = offset }) }
        return clauses
    }

    /// What a fetch with these clauses returns of `rows` (already those of
    /// the stores the `From` reads): from the offset on, before and after
    /// the limit.
    func matches(_ rows: [FetchPortRow]) -> (all: [FetchPortRow], limited: [FetchPortRow]) {
        let sorted = rows.filter { isGreater ? $0.number > bound : $0.number < bound }
            .sorted { a, b in
                let (left, right) =
                    byNumber ? ((a.number, a.id), (b.number, b.id)) : ((0, a.id), (0, b.id))
                return ascending ? left < right : left > right
            }
        let all = Array(sorted.dropFirst(max(offset, 0)))
        return (all, limit.map { Array(all.prefix($0)) } ?? all)
    }
}
