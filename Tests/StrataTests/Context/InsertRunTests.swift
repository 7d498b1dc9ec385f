import Foundation
import Testing
@testable import Strata

/// An object of a few fields, one of them unique: 64 rows to an insert
/// statement, with up to three texts and blobs a row bound in place.
final class RunItem: ManagedObject {
    @Field.Stored("code", .unique) var code: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("note") var note: String? = nil
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("payload") var payload: Data? = nil
}

/// An object of sixteen fields: fewer rows to an insert statement (58), so
/// that no statement binds more than 999 parameters.
final class RunWide: ManagedObject {
    @Field.Stored("code", .unique) var code: Int = 0
    @Field.Stored("f1") var f1: String = ""
    @Field.Stored("f2") var f2: String = ""
    @Field.Stored("f3") var f3: String = ""
    @Field.Stored("f4") var f4: Int = 0
    @Field.Stored("f5") var f5: Int = 0
    @Field.Stored("f6") var f6: Int = 0
    @Field.Stored("f7") var f7: Double = 0
    @Field.Stored("f8") var f8: Double = 0
    @Field.Stored("f9") var f9: String? = nil
    @Field.Stored("f10") var f10: String? = nil
    @Field.Stored("f11") var f11: Int? = nil
    @Field.Stored("f12") var f12: Int? = nil
    @Field.Stored("f13") var f13: Data? = nil
    @Field.Stored("f14") var f14: String = ""
    @Field.Stored("f15") var f15: String = ""
}

let insertRunSchema = Schema("V1", entities: [Entity<RunItem>("RunItem"), Entity<RunWide>("RunWide")])

/// What one object should hold, by field name, as a query reads it back
/// (a NULL left out).
private typealias Row = [String: StoredValue]

/// A text of random length (empty, short, or longer than Swift keeps inline).
private func text(_ random: inout SplitMix64) -> String {
    let length = [0, 3, 15, 16, 40][Int(random.next() % 5)]
    return String((0..<length).map { _ in "abcdéß😀xyz".randomElement(using: &random)! })
}

/// Sets random values on `item` and returns them as a query reads them.
private func fill(_ item: RunItem, code: Int, _ random: inout SplitMix64) -> Row {
    item.code = code
    item.name = text(&random)
    item.note = random.next() % 3 == 0 ? nil : text(&random)
    item.score = Double(Int64(bitPattern: random.next() % 2_000_001) - 1_000_000) / 8
    item.payload = random.next() % 3 == 0 ? nil : Data(text(&random).utf8)
    var row: Row = ["code": .integer(Int64(code)), "name": .text(item.name), "score": .real(item.score)]
    row["note"] = item.note.map { .text($0) }
    row["payload"] = item.payload.map { .blob($0) }
    return row
}

/// Sets random values on `wide` and returns them as a query reads them.
private func fill(_ wide: RunWide, code: Int, _ random: inout SplitMix64) -> Row {
    wide.code = code
    wide.f1 = text(&random); wide.f2 = text(&random); wide.f3 = text(&random)
    wide.f4 = Int(random.next() % 1000); wide.f5 = -Int(random.next() % 1000); wide.f6 = code * 7
    wide.f7 = Double(random.next() % 100) / 4; wide.f8 = -1.5
    wide.f9 = random.next() % 2 == 0 ? nil : text(&random)
    wide.f10 = random.next() % 2 == 0 ? nil : text(&random)
    wide.f11 = random.next() % 2 == 0 ? nil : Int(random.next() % 50)
    wide.f12 = nil
    wide.f13 = random.next() % 2 == 0 ? nil : Data(text(&random).utf8)
    wide.f14 = text(&random); wide.f15 = "last"
    var row: Row = [
        "code": .integer(Int64(code)), "f1": .text(wide.f1), "f2": .text(wide.f2), "f3": .text(wide.f3),
        "f4": .integer(Int64(wide.f4)), "f5": .integer(Int64(wide.f5)), "f6": .integer(Int64(wide.f6)),
        "f7": .real(wide.f7), "f8": .real(wide.f8), "f14": .text(wide.f14), "f15": .text(wide.f15),
    ]
    row["f9"] = wide.f9.map { .text($0) }
    row["f10"] = wide.f10.map { .text($0) }
    row["f11"] = wide.f11.map { .integer(Int64($0)) }
    row["f13"] = wide.f13.map { .blob($0) }
    return row
}

/// Every row of the entity as its fields' values, by `code`, read with SQL.
private func storedRows<Object: ManagedObject>(
    _ type: Object.Type, from source: some QueryableSource, fields: [String]
) throws -> [Int64: Row] {
    let rows = try source.queryAttributes(From<Object>(), Select(fields.map { SelectTerm.attribute($0) }))
    var byCode: [Int64: Row] = [:]
    for row in rows {
        guard case .integer(let code) = row["code"] else { continue }
        byCode[code] = row
    }
    return byCode
}

private let itemFields = ["code", "name", "note", "score", "payload"]

/// A stack on a new store holding one `RunItem`, of code 1,000.
@MainActor
private func stackHoldingCode1000(_ kind: StoreKind, in directory: TemporaryDirectory) throws -> DataStack {
    let stack = try makeStack(insertRunSchema, kind, in: directory)
    try stack.perform(synchronous: { tx in
        tx.create(Into<RunItem>()).code = 1_000
    })
    return stack
}
private let wideFields = ["code"] + (1...15).map { "f\($0)" }

/// A commit writes each run of one entity's new objects 64 (or, for wide
/// objects, fewer) rows to a statement and the rest one by one.
@Suite("Context: inserting runs of objects")
struct InsertRunTests {
    /// No insert statement binds more parameters than the least an SQLite
    /// build allows (999), whatever the number of fields, and each inserts at
    /// least one row.
    @Test func anInsertStatementBindsAtMost999Parameters() throws {
        for (name, fields) in [("RunItem", 5), ("RunWide", 16)] {
            let entity = try #require(insertRunSchema.entity(named: name))
            #expect(entity.attributes.count == fields)
            #expect(entity.rowsPerInsert >= 1)
            #expect(entity.rowsPerInsert * (fields + 1) <= 999)
            #expect(entity.rowsPerInsert == min(64, 999 / (fields + 1)))
            let placeholders = entity.insertRowsSQL.filter { $0 == "?" }.count
            #expect(placeholders == entity.rowsPerInsert * (fields + 1))
        }
    }

    /// Random transactions create runs of both entities, of random lengths
    /// on either side of a statement's rows, delete some new objects before
    /// the commit, change others after a query in the transaction wrote them,
    /// and query in the middle: every query in the transaction and after
    /// the commit reads exactly the objects that exist, with their values.
    @Test(arguments: StoreKind.allCases, [UInt64(1), 2])
    @MainActor
    func insertedRunsReadBackExactly(kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(insertRunSchema, kind, in: directory)
        var items: [Int64: Row] = [:]
        var wides: [Int64: Row] = [:]
        var nextCode = 0
        for _ in 0..<3 {
            try stack.perform(synchronous: { tx in
                var live: [(RunItem, Int64)] = []
                for _ in 0..<Int(2 + random.next() % 5) {
                    let length = Int([1, 5, 63, 64, 65, 130][Int(random.next() % 6)])
                    let wide = random.next() % 3 == 0
                    for _ in 0..<length {
                        nextCode += 1
                        if wide {
                            wides[Int64(nextCode)] = fill(tx.create(Into<RunWide>()), code: nextCode, &random)
                        } else {
                            let item = tx.create(Into<RunItem>())
                            items[Int64(nextCode)] = fill(item, code: nextCode, &random)
                            live.append((item, Int64(nextCode)))
                        }
                    }
                    switch random.next() % 4 {
                    case 0:
                        // Deleted before anything wrote it: never inserted.
                        if let (item, code) = live.popLast() {
                            tx.delete(item)
                            items[code] = nil
                        }
                    case 1:
                        // A query writes what is pending first, then sees it.
                        let storedItems = try storedRows(RunItem.self, from: tx, fields: itemFields)
                        let storedWides = try storedRows(RunWide.self, from: tx, fields: wideFields)
                        #expect(storedItems == items)
                        #expect(storedWides == wides)
                        if let (item, code) = live.randomElement(using: &random) {
                            items[code] = fill(item, code: Int(code), &random)
                        }
                    default:
                        break
                    }
                }
            })
            #expect(try storedRows(RunItem.self, from: stack, fields: itemFields) == items)
            #expect(try storedRows(RunWide.self, from: stack, fields: wideFields) == wides)
            #expect(try stack.fetchCount(From<RunItem>()) == items.count)
        }
        #expect(items.count > 64 && wides.count > 58)
    }

    /// A duplicate unique value in the middle of a statement's rows fails the
    /// commit with the typed error, and nothing of the transaction is stored.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aDuplicateInARunFailsTheWholeCommit(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try stackHoldingCode1000(kind, in: directory)
        for duplicateAt in [10, 70, 129] {
            #expect {
                try stack.perform(synchronous: { tx in
                    for index in 0..<130 {
                        tx.create(Into<RunItem>()).code = index == duplicateAt ? 1_000 : index
                    }
                })
            } throws: { error in
                guard case StrataError.uniqueConstraintViolation(let entity, let fields) = error else { return false }
                return entity == "RunItem" && fields == ["code"]
            }
            let count = try stack.fetchCount(From<RunItem>())
            let codes = try storedRows(RunItem.self, from: stack, fields: itemFields).keys.sorted()
            #expect(count == 1)
            #expect(codes == [1_000])
        }
    }

    /// A read that fails on a duplicate in a run can be caught in the
    /// transaction (Rule 9 of Docs/Transactions.md): with the value mended,
    /// the commit writes every object, those of the failed statement too.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aCaughtDuplicateInARunCanBeMended(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try stackHoldingCode1000(kind, in: directory)
        var caught = 0
        try stack.perform(synchronous: { tx in
            let items = (0..<130).map { index in
                let item = tx.create(Into<RunItem>())
                item.code = index == 70 ? 1_000 : index
                return item
            }
            do {
                _ = try tx.fetchCount(From<RunItem>())
            } catch StrataError.uniqueConstraintViolation {
                caught += 1
            }
            items[70].code = 70
            #expect(try tx.fetchCount(From<RunItem>()) == 131)
        })
        let codes = try storedRows(RunItem.self, from: stack, fields: itemFields).keys.sorted()
        #expect(caught == 1)
        #expect(codes == (0..<130).map(Int64.init) + [1_000])
    }
}
