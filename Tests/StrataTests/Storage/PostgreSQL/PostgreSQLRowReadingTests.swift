import CSQLite
import Foundation
@testable import Strata
@testable import StrataPostgreSQL
import Testing
import ThrowawayPostgreSQL

final class ServerRowItem: ManagedObject {
    @Field.Stored("number") var number: Int = 0
    @Field.Stored("score") var score: Double = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("note") var note: String? = nil
    @Field.Stored("data") var data: Data? = nil
    @Field.Stored("amount") var amount: Decimal = 0
    @Field.Stored("when") var when: Date? = nil
    @Field.Stored("flag") var flag: Bool = false
}

let serverRowSchema = Schema("SRI1", entities: [Entity<ServerRowItem>("ServerRowItem")])

/// A fetch reads a PostgreSQL row in one call (`readColumns`), with its own
/// fast path for the common types; these hold it to the value-by-value reads
/// (`columnType(at:)` and the typed reads) byte for byte, over random rows.
@Suite(.enabled(if: PostgreSQLServer.isEnabled, "STRATA_POSTGRESQL=off"))
struct PostgreSQLRowReadingTests {
    /// Every type a row batch can meet, NULL or not, with random values:
    /// empty and long texts, non-ASCII, extreme integers, NaN, ±0 and
    /// infinities, bytes of any value.
    @Test func readingARowAtOnceMatchesReadingItValueByValue() throws {
        let session = try PostgreSQLServer.sessionInNewSchema().session
        try session.execute("""
            CREATE TABLE t (i BIGINT, r DOUBLE PRECISION, s TEXT COLLATE "C", b BYTEA,
                i4 INTEGER, i2 SMALLINT, flag BOOLEAN, r4 REAL, n NUMERIC, v VARCHAR)
            """)
        var random = SplitMix64.random()
        let insert = try session.statement("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for _ in 0..<400 {
            insert.reset()
            try insert.bind(Self.randomRow(&random))
            #expect(try insert.step() == false)
        }
        let columns = 10
        let select = try session.statement(
            "SELECT i, r, s, b, i4, i2, flag, r4, n, v, n * 3, avg(i4) OVER () FROM t")
        var rows = 0
        var mismatches = 0
        while try select.step() {
            rows += 1
            // From column 0 to two past the result's last: those read as NULL.
            let count = columns + 4
            let values = UnsafeMutablePointer<ServerColumnValue>.allocate(capacity: count)
            defer { values.deallocate() }
            select.readColumns(from: 0, count: count, into: values)
            for index in 0..<count {
                let column = Int32(index)
                let read = values[index]
                let expected = Self.valueByValue(select, column)
                guard Self.describe(read) != Self.describe(expected) else { continue }
                mismatches += 1
                if mismatches < 5 {
                    let message = "seed \(random.seed), row \(rows), column \(index): read "
                        + "\(Self.describe(read)), value by value \(Self.describe(expected))"
                    Issue.record("\(message)")
                }
            }
        }
        #expect(rows == 400, "seed \(random.seed)")
        #expect(mismatches == 0, "seed \(random.seed)")
    }

    /// Fields of every kind saved on PostgreSQL and fetched by another stack
    /// (through its row batches) come back as they were saved.
    @Test @MainActor func fetchedFieldsComeBackAsSaved() throws {
        let directory = TemporaryDirectory()
        var random = SplitMix64.random()
        var saved: [Int: Self.Fields] = [:]
        do {
            let stack = try makeStack(serverRowSchema, .postgreSQL, in: directory)
            try stack.perform(synchronous: { transaction in
                for number in 0..<1_500 {
                    let fields = Self.randomFields(number, &random)
                    let item = transaction.create(Into<ServerRowItem>())
                    fields.assign(to: item)
                    saved[number] = fields
                }
            })
        }
        let stack = try makeStack(serverRowSchema, .postgreSQL, in: directory)
        let items = try stack.fetchAll(From<ServerRowItem>())
        #expect(items.count == saved.count)
        var mismatches = 0
        for item in items {
            let read = Self.Fields(item)
            guard let expected = saved[item.number], read != expected else { continue }
            mismatches += 1
            if mismatches < 5 { Issue.record("seed \(random.seed): \(read) saved as \(expected)") }
        }
        #expect(mismatches == 0, "seed \(random.seed)")
    }

    // MARK: Values

    private static let characters: [String] = [
        "a", "Z", "ß", "é", "e\u{301}", "ı", "😀", "'", "?", "\u{1}", "\\", "\u{7F}", "中", " ",
    ]

    private static func randomText(_ random: inout SplitMix64) -> String {
        let length = [0, 1, 7, 15, 16, 40, 300, 5_000].randomElement(using: &random)!
        return String((0..<length).map { _ in characters.randomElement(using: &random)! }.joined())
    }

    private static let doubles: [Double] = [
        0, -0.0, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, .leastNormalMagnitude, 1e-300, 0.1, -1.5,
    ]

    private static func randomDouble(_ random: inout SplitMix64) -> Double {
        Bool.random(using: &random)
            ? doubles.randomElement(using: &random)!
            : Double(bitPattern: random.next() & ~(0x7FF0_0000_0000_0000) | 0x3000_0000_0000_0000)
    }

    private static func randomInteger(_ random: inout SplitMix64) -> Int64 {
        [Int64.min, .max, 0, -1, 1, Int64(Int32.max) + 1].randomElement(using: &random)!
            &+ (Bool.random(using: &random) ? 0 : Int64(bitPattern: random.next()))
    }

    /// A row for `t`, each value NULL one time in five.
    private static func randomRow(_ random: inout SplitMix64) -> [StoredValue] {
        let values: [StoredValue] = [
            .integer(randomInteger(&random)),
            .real(randomDouble(&random)),
            .text(randomText(&random)),
            .blob(random.bytes([0, 1, 8, 33, 4_000].randomElement(using: &random)!)),
            .integer(Int64(Int32.random(in: .min ... .max, using: &random))),
            .integer(Int64(Int16.random(in: .min ... .max, using: &random))),
            .integer(Int64.random(in: 0...1, using: &random)),
            .real(Double(Float(randomDouble(&random)))),
            .text(["0", "-12.5", "123456789012345678901234567890", "1e-20", "NaN", "7"]
                .randomElement(using: &random)!),
            .text(randomText(&random)),
        ]
        return values.map { Int.random(in: 0..<5, using: &random) == 0 ? .null : $0 }
    }

    /// Column `index` of the current row as a row batch read it before
    /// `readColumns`: its storage class, then the typed read.
    private static func valueByValue(
        _ statement: any ServerStatement, _ index: Int32
    ) -> ServerColumnValue {
        let storageClass = statement.columnType(at: index)
        switch storageClass {
        case SQLITE_INTEGER:
            return ServerColumnValue(
                storageClass: storageClass, bits: UInt64(bitPattern: statement.int64(at: index)))
        case SQLITE_FLOAT:
            return ServerColumnValue(
                storageClass: storageClass, bits: statement.double(at: index).bitPattern)
        case SQLITE_TEXT:
            return ServerColumnValue(
                storageClass: storageClass, bytes: statement.textBytes(at: index))
        case SQLITE_BLOB:
            return ServerColumnValue(
                storageClass: storageClass, bytes: statement.blobBytes(at: index))
        default:
            return ServerColumnValue(storageClass: SQLITE_NULL)
        }
    }

    /// A value's class, bits and every byte, for comparing two reads.
    private static func describe(_ value: ServerColumnValue) -> String {
        "\(value.storageClass) \(value.bits) \(Array(value.bytes))"
    }

    // MARK: Fields

    private struct Fields: Equatable, CustomStringConvertible {
        var number: Int
        var scoreBits: UInt64
        var name: String
        var noteUTF8: [UInt8]?
        var data: Data?
        var amount: Decimal
        var whenBits: UInt64?
        var flag: Bool

        var description: String {
            "#\(number) score \(Double(bitPattern: scoreBits)) name \(Array(name.utf8)) note "
                + "\(noteUTF8.map { "\($0)" } ?? "nil") data \(data.map { Array($0) } ?? []) "
                + "amount \(amount) when \(whenBits.map { "\(Double(bitPattern: $0))" } ?? "nil") "
                + "flag \(flag)"
        }

        @MainActor init(_ item: ServerRowItem) {
            number = item.number
            scoreBits = item.score.bitPattern
            name = item.name
            noteUTF8 = item.note.map { Array($0.utf8) }
            data = item.data
            amount = item.amount
            whenBits = item.when.map { $0.timeIntervalSince1970.bitPattern }
            flag = item.flag
        }

        init(number: Int, random: inout SplitMix64) {
            self.number = number
            var score = PostgreSQLRowReadingTests.randomDouble(&random)
            if score.isNaN { score = -0.0 }  // a field may not hold a NaN
            scoreBits = score.bitPattern
            name = PostgreSQLRowReadingTests.randomText(&random)
            let note = PostgreSQLRowReadingTests.randomText(&random)
            noteUTF8 = Bool.random(using: &random) ? Array(note.utf8) : nil
            data = Bool.random(using: &random)
                ? random.bytes([0, 1, 9, 70_000].randomElement(using: &random)!) : nil
            amount = [
                Decimal(string: "0.1")!, Decimal(string: "-123456789012345678901234567.891")!,
                Decimal(Int64(bitPattern: random.next()) >> 20) / 1000, Decimal(0),
            ].randomElement(using: &random)!
            // Whole 1,024ths of a second within ±2^23 s: exact through Date's
            // own reference date and back.
            let seconds = Double(Int64(bitPattern: random.next()) >> 30) / 1024
            whenBits = Bool.random(using: &random) ? seconds.bitPattern : nil
            flag = Bool.random(using: &random)
        }

        @MainActor func assign(to item: ServerRowItem) {
            item.number = number
            item.score = Double(bitPattern: scoreBits)
            item.name = name
            item.note = noteUTF8.map { String(decoding: $0, as: UTF8.self) }
            item.data = data
            item.amount = amount
            item.when = whenBits.map { Date(timeIntervalSince1970: Double(bitPattern: $0)) }
            item.flag = flag
        }

        static func == (a: Fields, b: Fields) -> Bool {
            a.number == b.number && a.scoreBits == b.scoreBits
                && Array(a.name.utf8) == Array(b.name.utf8)
                && a.noteUTF8 == b.noteUTF8 && a.data == b.data && a.amount == b.amount
                && a.whenBits == b.whenBits && a.flag == b.flag
        }
    }

    private static func randomFields(_ number: Int, _ random: inout SplitMix64) -> Fields {
        Fields(number: number, random: &random)
    }
}
