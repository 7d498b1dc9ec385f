import CSQLite
import Foundation
import Testing
@testable import Strata

final class BatchRow: ManagedObject {
    @Field.Stored("k") var k: Int = 0
    @Field.Stored("name") var name: String = ""
    @Field.Stored("note") var note: String? = nil
    @Field.Stored("data") var data: Data? = nil
    @Field.Stored("score") var score: Double = 0
}

let batchSchema = Schema("RB1", entities: [Entity<BatchRow>("BatchRow")])

/// Rows written by raw SQL: odd lengths, NUL bytes, invalid UTF-8, empty, large.
private func seedRawRows(_ url: URL, rows: Int) throws {
    let c = try Connection(path: url.path, readOnly: false)
    try c.execute("BEGIN")
    var rng = SplitMix64(seed: 42)
    for i in 1...rows {
        let name: StoredValue
        let note: StoredValue
        let data: StoredValue
        switch i % 9 {
        case 0: name = .text(""); note = .null; data = .blob(Data())
        case 1: name = .text("a\u{0}b\u{0}"); note = .text(String(repeating: "x", count: 70_000 + i)); data = .null
        case 2: name = .text("é🎉\(i)"); note = .text(""); data = .blob(rng.bytes(i % 17))
        case 3: name = .text("n\(i)"); note = .null; data = .blob(i % 97 == 3 ? rng.bytes(3 * 1024 * 1024 + i) : rng.bytes(65_537 + i))
        case 4: name = .text(String(repeating: "z", count: i % 5)); note = .text("\(i)"); data = .blob(Data([0]))
        default: name = .text("r\(i)"); note = .null; data = .null
        }
        try c.run("INSERT INTO BatchRow (_pk, k, name, note, data, score) VALUES (?, ?, ?, ?, ?, ?)",
                  [.integer(Int64(i)), .integer(Int64(i) * 7), name, note, data, .real(Double(i) / 3)])
    }
    // Invalid UTF-8 in a TEXT column, and wrong storage classes.
    try c.execute("UPDATE BatchRow SET name = CAST(x'ff41fe00' AS TEXT) WHERE _pk = 5")
    try c.execute("UPDATE BatchRow SET note = CAST(x'c3' AS TEXT) WHERE _pk = 6")
    try c.execute("UPDATE BatchRow SET k = 'text-in-int', score = x'0102' WHERE _pk = 7")
    try c.execute("UPDATE BatchRow SET name = 12, note = 1.5 WHERE _pk = 8")
    try c.execute("COMMIT")
    c.close()
}

/// The rows as `Statement.value(at:)` reads them, straight from SQLite.
private func rowsAsStatementsRead(_ url: URL) throws -> [Int64: ContiguousArray<StoredValue>] {
    let c = try Connection(path: url.path, readOnly: true)
    let s = try c.statement("SELECT _pk, k, name, note, data, score FROM BatchRow")
    var out: [Int64: ContiguousArray<StoredValue>] = [:]
    while try s.step() {
        out[s.int64(at: 0)] = ContiguousArray((1...5).map { s.value(at: Int32($0)) })
    }
    s.reset()
    c.close()
    return out
}

/// Fetched rows live in row batches in an encoding close to SQLite's and are
/// decoded on read; these check the decoding against `Statement.value(at:)`
/// on hostile rows, and that objects keep what they need when their
/// transaction, their stack or most of their fetch is gone.
@Suite("Row batches: fetched values and their lifetime")
struct RowBatchTests {
    @Test @MainActor
    func fetchedValuesDecodeAsStatementsReadThem() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        do { _ = try makeStack(batchSchema, .file, in: directory) }
        try seedRawRows(url, rows: 2_600)
        let raw = try rowsAsStatementsRead(url)
        let stack = try makeStack(batchSchema, .file, in: directory)
        let objects = try stack.fetchAll(From<BatchRow>())
        #expect(objects.count == 2_600)
        var mismatches = 0
        for object in objects {
            let expected = raw[object.rowID]!
            for slot in 0..<5 where !object.value(at: slot).isIdentical(to: expected[slot]) {
                mismatches += 1
                if mismatches < 5 { Issue.record("row \(object.rowID) slot \(slot): \(object.value(at: slot)) vs \(expected[slot])") }
            }
            #expect(object.values.isIdentical(to: expected))
        }
        #expect(mismatches == 0)
        #expect(objects[0].name == "a\u{0}b\u{0}")
        // Same through a transaction (writer connection), then edits.
        let ids = objects.map(\.objectID)
        try stack.perform(synchronous: { tx in
            let txObjects = try tx.fetchAll(From<BatchRow>())
            for object in txObjects {
                #expect(object.values.isIdentical(to: raw[object.rowID]!))
            }
            _ = ids
        })
    }

    @Test @MainActor
    func transactionObjectsOutliveTheirTransaction() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(batchSchema, .inMemory, in: directory)
        try stack.perform(synchronous: { tx in
            for i in 0..<3_000 {
                let r = tx.create(Into<BatchRow>())
                r.k = i
                r.name = "name \(i) " + String(repeating: "q", count: i % 40)
            }
        })
        let kept = try stack.perform(synchronous: { tx in try tx.fetchAll(From<BatchRow>()) })
        // The disposal block runs on the transaction queue: let it run.
        try stack.perform(synchronous: { _ in })
        try stack.perform(synchronous: { _ in })
        var sum = 0
        for object in kept { sum += object.k; _ = object.name }
        #expect(sum == (0..<3_000).reduce(0, +))
        #expect(kept[10].hasChanges == false)
        #expect(ObjectSnapshot(kept[11]).objectID == kept[11].objectID)
        // Keep only a few: most batches go.
        let few = [kept[5], kept[1_500], kept[2_999]]
        _ = consume kept
        #expect(few.map(\.k) == [5, 1_500, 2_999])
        #expect(few[1].name.hasPrefix("name 1500"))
        #expect(few.map(\.hasChanges) == [false, false, false])
    }

    @Test @MainActor
    func mainObjectsOutliveTheirStack() throws {
        let directory = TemporaryDirectory()
        var stack: DataStack? = try makeStack(batchSchema, .file, in: directory)
        try stack!.perform(synchronous: { tx in
            for i in 0..<2_100 {
                let r = tx.create(Into<BatchRow>())
                r.k = i
                r.name = "n\(i)"
            }
        })
        var all: [BatchRow]? = try stack!.fetchAll(From<BatchRow>())
        let one = try stack!.fetchOne(From<BatchRow>().where(\.$k == 7))!
        let last = all!.last!
        stack = nil
        all = nil
        #expect(one.k == 7)
        #expect(one.name == "n7")
        #expect(last.k == 2_099)
        #expect(one.description.contains("n7"))
    }

    @Test @MainActor
    func assigningFetchedValuesBackIsNoChange() throws {
        let directory = TemporaryDirectory()
        let url = storeURL(in: directory)
        do { _ = try makeStack(batchSchema, .file, in: directory) }
        try seedRawRows(url, rows: 30)
        let stack = try makeStack(batchSchema, .file, in: directory)
        _ = try? stack.perform(synchronous: { tx in
            let objects = try tx.fetchAll(From<BatchRow>())
            for object in objects {
                object.k = object.k
                object.name = object.name
                object.note = object.note
                object.data = object.data
                object.score = object.score
            }
            let changed = objects.filter { $0.hasChanges && $0.rowID != 7 && $0.rowID != 8 }.map { "\($0.rowID)" }
            #expect(changed.isEmpty, "changed: \(changed)")
            objects[0].name = "other"
            objects[0].name = "a\u{0}b\u{0}"
            #expect(!objects[0].hasChanges)
            try tx.cancel()
        })
    }

    @Test @MainActor
    func unsafeTransactionObjectsOutliveTheTransaction() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(batchSchema, .file, in: directory)
        try stack.perform(synchronous: { tx in
            for i in 0..<1_500 { tx.create(Into<BatchRow>()).name = "u\(i)" }
        })
        var tx: UnsafeDataTransaction? = try stack.beginUnsafe()
        let kept = try tx!.fetchAll(From<BatchRow>())
        kept[3].name = "changed"
        tx = nil
        #expect(kept[3].name == "u3")
        #expect(kept[1_400].name == "u1400")
        #expect(!kept[1_400].hasChanges)
        let snapshot = ObjectSnapshot(kept[1_499])
        #expect(snapshot.objectID == kept[1_499].objectID)
    }

    /// Readers hold their batch together, by one count in the main context
    /// and by a retain each in a transaction's: attached and let go in a
    /// random order, the batch lives exactly while one reader remains.
    @Test(arguments: [true, false]) @MainActor
    func aBatchLivesExactlyAsLongAsItsReaders(inMainContext: Bool) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(batchSchema, .inMemory, in: directory)
        let main = try stack.main().context
        let context = inMainContext
            ? main : ObjectContext(kind: .transaction, schema: main.schema, store: main.store)
        var rng = SplitMix64.random()
        for round in 0..<40 {
            weak var weakBatch: RowBatch?
            var readers = 0
            do {
                let batch = RowBatch(columns: 2, rows: 8, context: context)
                #expect(batch.countsReaders == inMainContext)
                weakBatch = batch
                readers = 1 + Int(rng.next() % 12)
                for _ in 0..<readers { batch.readerDidAttach() }
            }
            while readers > 0 {
                guard let batch = weakBatch else {
                    Issue.record("seed \(rng.seed), round \(round): freed with \(readers) readers")
                    break
                }
                if inMainContext { #expect(batch.readerCount == readers, "seed \(rng.seed)") }
                if rng.next() % 3 == 0 {
                    batch.readerDidAttach()
                    readers += 1
                } else {
                    RowBatch.readerDidLeave(Unmanaged.passUnretained(batch))
                    readers -= 1
                }
            }
            #expect(weakBatch == nil, "seed \(rng.seed), round \(round): outlived its readers")
        }
    }

    /// Main-context objects let go of their batches as they go, in any
    /// order: the survivors still read their own values.
    @Test @MainActor
    func mainObjectsFreedInRandomOrderKeepTheirValues() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(batchSchema, .file, in: directory)
        try stack.perform(synchronous: { tx in
            for i in 0..<3_000 {
                let row = tx.create(Into<BatchRow>())
                row.k = i
                row.name = "row \(i) " + String(repeating: "w", count: i % 23)
            }
        })
        var rng = SplitMix64.random()
        var kept = try stack.fetchAll(From<BatchRow>()).shuffled(using: &rng)
        while !kept.isEmpty {
            kept.removeLast(min(kept.count, 1 + Int(rng.next() % 400)))
            let wrong = kept.filter {
                $0.name != "row \($0.k) " + String(repeating: "w", count: $0.k % 23)
            }
            #expect(wrong.isEmpty, "seed \(rng.seed): \(wrong.count) objects read another row")
        }
        #expect(try stack.fetchCount(From<BatchRow>()) == 3_000)
    }

    /// Random rows of every storage class, the boundaries of each encoding
    /// among them (each integer width, a short text or blob and a long one),
    /// appended to a batch from an SQLite statement and read back one value
    /// at a time, in any order, and whole: the same values.
    @Test @MainActor
    func everyEncodingReadsBackWhatWasAppended() throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(batchSchema, .inMemory, in: directory)
        let context = try stack.main().context
        let connection = try Connection(path: ":memory:", readOnly: false)
        defer { connection.close() }
        var rng = SplitMix64.random()
        let edges: [Int64] = [
            0, 1, -1, 127, 128, -128, -129, 32_767, 32_768, -32_768, -32_769,
            2_147_483_647, 2_147_483_648, -2_147_483_648, -2_147_483_649, .max, .min,
        ]
        let lengths = [0, 1, 118, 119, 120, 126, 127, 128, 129, 300, 70_000]
        func randomValue() -> StoredValue {
            switch rng.next() % 5 {
            case 0: return .null
            case 1:
                if rng.next() % 2 == 0 { return .integer(edges[Int(rng.next() % UInt64(edges.count))]) }
                return .integer(Int64(bitPattern: rng.next()) >> (rng.next() % 64))
            case 2:
                let reals = [0.5, -0.0, .infinity, 1e300, Double(bitPattern: rng.next() >> 2)]
                return .real(reals[Int(rng.next() % 5)])
            case 3:
                let length = lengths[Int(rng.next() % UInt64(lengths.count))]
                return .text(String((0..<length).map { _ in "aé🎉\u{0}z".randomElement(using: &rng)! }))
            default:
                let length = lengths[Int(rng.next() % UInt64(lengths.count))]
                return .blob(rng.bytes(length))
            }
        }
        for round in 0..<20 {
            let columns = Int(rng.next() % 9)  // none, an entity without attributes, too
            let rows = 1 + Int(rng.next() % 60)
            let statement = try connection.statement(
                "SELECT " + (["0"] + Array(repeating: "?", count: columns)).joined(separator: ", "))
            let batch = RowBatch(
                columns: columns, rows: rows, byteCapacity: Int(rng.next() % 200), context: context)
            var appended: [ContiguousArray<StoredValue>] = []
            for _ in 0..<rows {
                let values = ContiguousArray((0..<columns).map { _ in randomValue() })
                try statement.bind(Array(values))
                #expect(try statement.step())
                #expect(batch.append(statement) == appended.count)
                statement.reset()
                appended.append(values)
            }
            if rng.next() % 2 == 0 { batch.finish() }
            #expect(!batch.hasRoom || rows < RowBatch.capacity)
            batch.checkInvariants()
            for (row, values) in appended.enumerated().shuffled(using: &rng) {
                let label = "seed \(rng.seed), round \(round), row \(row)"
                #expect(batch.row(row).isIdentical(to: values), "\(label)")
                for slot in (0..<columns).shuffled(using: &rng) {
                    let read = batch.value(row: row, slot: slot)
                    #expect(read.isIdentical(to: values[slot]), "\(label): \(read) for \(values[slot])")
                }
            }
        }
    }
}
