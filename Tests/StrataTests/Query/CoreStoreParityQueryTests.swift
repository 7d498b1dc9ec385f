import Foundation
import Testing

@testable import Strata

// CoreStore's QueryTests, translated: the model is its TestEntity1, seeded as
// its `prepareTestDataForStack` seeds it (five objects, numbers 1...5, odd
// ones true, dates 2000-01-0N), and each query is asked as CoreStore asks it.

/// CoreStore's `TestEntity1`: one field of each kind a query reads.
final class ParityEntity: ManagedObject {
    @Field.Stored("testEntityID") var testEntityID: Int = 0
    @Field.Stored("testBoolean") var testBoolean: Bool = false
    @Field.Stored("testNumber") var testNumber: Int = 0
    @Field.Stored("testDecimal") var testDecimal: Decimal = 0
    @Field.Stored("testString") var testString: String = ""
    @Field.Stored("testData") var testData: Data = Data()
    @Field.Stored("testDate") var testDate: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("testNil") var testNil: String? = nil
    @Field.Stored("testNilNumber") var testNilNumber: Int? = nil
}

enum ParitySchema {
    static let schema = Schema("ParityV1", entities: [Entity<ParityEntity>("ParityEntity")])

    /// 2000-01-`day`T00:00:00Z.
    static func date(day: Int) -> Date {
        Date(timeIntervalSince1970: 946_684_800 + Double(day - 1) * 86_400)
    }

    /// A stack holding CoreStore's five test objects, 101...105.
    @MainActor
    static func seededStack(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
        let stack = try makeStack(schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for number in 1...5 {
                let object = tx.create(Into<ParityEntity>())
                object.testEntityID = 100 + number
                object.testBoolean = number % 2 == 1
                object.testNumber = number
                object.testDecimal = Decimal(number)
                object.testString = "nil:TestEntity1:\(number)"
                object.testData = Data("nil:TestEntity1:\(number)".utf8)
                object.testDate = date(day: number)
            }
        })
        return stack
    }
}

@MainActor
@Suite("CoreStore parity: what a query returns for each Select term")
struct CoreStoreParityQueryTests {
    /// CoreStore's `test_ThatDataStacks_CanQuerySumValue` and Core Data's SQL,
    /// `SELECT total(t0.ZAGE)`: a sum over no values is 0, not nil. Only
    /// average, minimum and maximum have no value over nothing.
    @Test(arguments: StoreKind.allCases)
    func aSumOverNoValuesIsZero(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try ParitySchema.seededStack(kind, in: directory)
        let none = From<ParityEntity>().where(\.$testNumber > 5)
        let nils = From<ParityEntity>()  // every testNilNumber is NULL
        for source in [none.select(Int.self, .sum(\.$testNumber)), nils.select(Int.self, .sum(\.$testNilNumber))] {
            #expect(try stack.queryValue(source) == 0)
        }
        #expect(try stack.queryValue(none.select(Double.self, .sum(\.$testNumber))) == 0)
        #expect(try stack.queryValue(none.select(Decimal.self, .sum(\.$testDecimal))) == 0)
        #expect(try stack.queryValue(none.select(Bool.self, .sum(\.$testBoolean))) == false)
        #expect(try stack.queryValue(none.select(Int.self, .count(\.$testNumber))) == 0)
        #expect(try stack.queryValue(none.select(Double.self, .average(\.$testNumber))) == nil)
        #expect(try stack.queryValue(none.select(Int.self, .minimum(\.$testNumber))) == nil)
        #expect(try stack.queryValue(none.select(Int.self, .maximum(\.$testNumber))) == nil)
        // The same in a transaction, and in queryAttributes rows.
        let inTransaction = try stack.perform(synchronous: { tx in
            try tx.queryValue(none.select(Int.self, .sum(\.$testNumber)))
        })
        #expect(inTransaction == 0)
        let rows = try stack.queryAttributes(
            none.select(.sum(\.$testNumber), .sum(\.$testDecimal), .count(\.$testNumber), .maximum(\.$testNumber)))
        #expect(rows.count == 1)
        let row = rows.first ?? [:]
        #expect(row["count(testNumber)"] == .integer(0))
        #expect(row["max(testNumber)"] == nil)
        #expect(try row["sum(testNumber)"].map { try Int(storedValue: $0) } == 0)
        #expect(try row["sum(testDecimal)"].map { try Decimal(storedValue: $0) } == 0)
    }

    /// Each aggregate over `testNumber > 1` (objects 102...105), read as each
    /// type CoreStore reads it as: the number narrows; text, data and dates
    /// are no number, so a count, sum or average asked as one is nil.
    @Test(arguments: StoreKind.allCases)
    func eachAggregateReadsAsCoreStoreReadsIt(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try ParitySchema.seededStack(kind, in: directory)
        let from = From<ParityEntity>().where(\.$testNumber > 1)

        // count: 4, as any number; true as Bool; nil as text, data or a date.
        #expect(try stack.queryValue(from.select(Bool.self, .count(\.$testBoolean))) == true)
        #expect(try stack.queryValue(from.select(Int8.self, .count(\.$testNumber))) == 4)
        #expect(try stack.queryValue(from.select(Double.self, .count(\.$testNumber))) == 4)
        #expect(try stack.queryValue(from.select(Float.self, .count(\.$testNumber))) == 4)
        #expect(try stack.queryValue(from.select(String.self, .count(\.$testString))) == nil)
        #expect(try stack.queryValue(from.select(Data.self, .count(\.$testData))) == nil)
        #expect(try stack.queryValue(from.select(Date.self, .count(\.$testDate))) == nil)

        // maximum and minimum: the value itself, of any kind.
        #expect(try stack.queryValue(from.select(Bool.self, .maximum(\.$testBoolean))) == true)
        #expect(try stack.queryValue(from.select(Bool.self, .minimum(\.$testBoolean))) == false)
        #expect(try stack.queryValue(from.select(Int16.self, .maximum(\.$testNumber))) == 5)
        #expect(try stack.queryValue(from.select(Int16.self, .minimum(\.$testNumber))) == 2)
        #expect(try stack.queryValue(from.select(Decimal.self, .maximum(\.$testDecimal))) == 5)
        #expect(try stack.queryValue(from.select(Decimal.self, .minimum(\.$testDecimal))) == 2)
        #expect(try stack.queryValue(from.select(String.self, .maximum(\.$testString))) == "nil:TestEntity1:5")
        #expect(try stack.queryValue(from.select(String.self, .minimum(\.$testString))) == "nil:TestEntity1:2")
        #expect(try stack.queryValue(from.select(Data.self, .maximum(\.$testData))) == Data("nil:TestEntity1:5".utf8))
        #expect(try stack.queryValue(from.select(Data.self, .minimum(\.$testData))) == Data("nil:TestEntity1:2".utf8))
        #expect(try stack.queryValue(from.select(Date.self, .maximum(\.$testDate))) == ParitySchema.date(day: 5))
        #expect(try stack.queryValue(from.select(Date.self, .minimum(\.$testDate))) == ParitySchema.date(day: 2))

        // sum: 14, true as Bool; nothing of text, data or dates.
        #expect(try stack.queryValue(from.select(Bool.self, .sum(\.$testBoolean))) == true)
        #expect(try stack.queryValue(from.select(Int8.self, .sum(\.$testNumber))) == 14)
        #expect(try stack.queryValue(from.select(Float.self, .sum(\.$testNumber))) == 14)
        #expect(try stack.queryValue(from.select(Decimal.self, .sum(\.$testDecimal))) == 14)
        #expect(try stack.queryValue(from.select(String.self, .sum(\.$testString))) == nil)
        #expect(try stack.queryValue(from.select(Data.self, .sum(\.$testData))) == nil)
        #expect(try stack.queryValue(from.select(Date.self, .sum(\.$testDate))) == nil)

        // average: 3.5, 3 as an integer, true as Bool; nothing of text, data or dates.
        #expect(try stack.queryValue(from.select(Bool.self, .average(\.$testBoolean))) == true)
        #expect(try stack.queryValue(from.select(Int32.self, .average(\.$testNumber))) == 3)
        #expect(try stack.queryValue(from.select(Double.self, .average(\.$testNumber))) == 3.5)
        #expect(try stack.queryValue(from.select(Float.self, .average(\.$testNumber))) == 3.5)
        #expect(try stack.queryValue(from.select(Decimal.self, .average(\.$testDecimal))) == Decimal(string: "3.5"))
        #expect(try stack.queryValue(from.select(String.self, .average(\.$testString))) == nil)
        #expect(try stack.queryValue(from.select(Data.self, .average(\.$testData))) == nil)
        #expect(try stack.queryValue(from.select(Date.self, .average(\.$testDate))) == nil)
    }

    /// CoreStore's `test_ThatDataStacks_CanQueryAggregates`: the default keys
    /// of aggregate terms, and their values over all five objects.
    @Test(arguments: StoreKind.allCases)
    func aggregatesAreNamedAsCoreStoreNamesThem(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try ParitySchema.seededStack(kind, in: directory)
        let rows = try stack.queryAttributes(
            From<ParityEntity>().select(
                .sum(\.$testBoolean), .count(\.$testNumber), .maximum(\.$testNumber),
                .minimum(\.$testNumber), .average(\.$testDecimal)))
        #expect(rows.count == 1)
        let row = rows.first ?? [:]
        #expect(Set(row.keys) == ["sum(testBoolean)", "count(testNumber)", "max(testNumber)", "min(testNumber)", "average(testDecimal)"])
        #expect(try row["sum(testBoolean)"].map { try Int(storedValue: $0) } == 3)
        #expect(try row["count(testNumber)"].map { try Int(storedValue: $0) } == 5)
        #expect(try row["max(testNumber)"].map { try Int(storedValue: $0) } == 5)
        #expect(try row["min(testNumber)"].map { try Int(storedValue: $0) } == 1)
        #expect(try row["average(testDecimal)"].map { try Decimal(storedValue: $0) } == 3)
    }

    /// CoreStore's `test_ThatDataStacks_CanQueryAttributes`: every selected
    /// attribute by its name, a NULL one left out, in the query's order.
    @Test(arguments: StoreKind.allCases)
    func attributesAreTheFieldsValuesByName(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try ParitySchema.seededStack(kind, in: directory)
        let rows = try stack.queryAttributes(
            From<ParityEntity>()
                .where(\.$testNumber > 3)
                .orderBy(.ascending(\.$testEntityID))
                .select(
                    .attribute(\.$testBoolean), .attribute(\.$testNumber), .attribute(\.$testDecimal),
                    .attribute(\.$testString), .attribute(\.$testData), .attribute(\.$testDate),
                    .attribute(\.$testNil)))
        let expected: [[String: StoredValue]] = try [4, 5].map { number in
            [
                "testBoolean": .integer(number % 2 == 1 ? 1 : 0),
                "testNumber": .integer(Int64(number)),
                "testDecimal": try Decimal(number).storedValue(),
                "testString": .text("nil:TestEntity1:\(number)"),
                "testData": .blob(Data("nil:TestEntity1:\(number)".utf8)),
                "testDate": try ParitySchema.date(day: number).storedValue(),
            ]
        }
        #expect(rows == expected)
    }

    /// A text field's sum and average read each text's leading number, as
    /// SQLite (and so Core Data) reads it, on every store: PostgreSQL has no
    /// `sum` or `avg` of text and threw, where CoreStore answers `nil` as
    /// `String` (`test_ThatDataStacks_CanQuerySumValue`).
    @Test(arguments: StoreKind.allCases)
    func aTextFieldsSumReadsLeadingNumbersOnEveryStore(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(ParitySchema.schema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for (text, data) in [("12", "7"), ("3.5kg", "x"), ("abc", ""), ("-1e1", "1")] {
                let object = tx.create(Into<ParityEntity>())
                object.testString = text
                object.testData = Data(data.utf8)
            }
        })
        let from = From<ParityEntity>()
        #expect(try stack.queryValue(from.select(Double.self, .sum(\.$testString))) == 5.5)
        #expect(try stack.queryValue(from.select(Double.self, .average(\.$testString))) == 5.5 / 4)
        #expect(try stack.queryValue(from.select(String.self, .sum(\.$testString))) == nil)
        #expect(try stack.queryValue(from.select(Data.self, .average(\.$testData))) == nil)
        #expect(try stack.queryValue(from.select(Data.self, .minimum(\.$testData))) == Data())
        #expect(try stack.queryValue(from.select(Data.self, .maximum(\.$testData))) == Data("x".utf8))
    }
}
