import Foundation
import Strata
import Testing

// MARK: Model

private enum Mood: String, FieldStorable, CaseIterable {
    case calm, cross, sleepy = "zz'z"
}

private struct Address: Codable, Sendable, Equatable {
    var street: String
    var number: Int
    var tags: [String]
    var coordinates: [Double]?
}

/// One field of every storable type.
private final class Sample: ManagedObject {
    @Field.Stored("seq") var seq: Int = 0
    @Field.Stored("flag") var flag: Bool = false
    @Field.Stored("int") var int: Int = 0
    @Field.Stored("int8") var int8: Int8 = 0
    @Field.Stored("int16") var int16: Int16 = 0
    @Field.Stored("int32") var int32: Int32 = 0
    @Field.Stored("int64") var int64: Int64 = 0
    @Field.Stored("uint") var uint: UInt = 0
    @Field.Stored("uint8") var uint8: UInt8 = 0
    @Field.Stored("uint16") var uint16: UInt16 = 0
    @Field.Stored("uint32") var uint32: UInt32 = 0
    @Field.Stored("uint64") var uint64: UInt64 = 0
    @Field.Stored("float") var float: Float = 0
    @Field.Stored("double") var double: Double = 0
    @Field.Stored("text") var text: String = ""
    @Field.Stored("blob") var blob: Data = Data()
    @Field.Stored("date") var date: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("uuid") var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Field.Stored("url") var url: URL = URL(string: "about:blank")!
    @Field.Stored("decimal") var decimal: Decimal = 0
    @Field.Stored("optionalText") var optionalText: String? = nil
    @Field.Stored("optionalInt") var optionalInt: Int? = nil
    @Field.Stored("optionalDouble") var optionalDouble: Double? = nil
    @Field.Stored("optionalBlob") var optionalBlob: Data? = nil
    @Field.Stored("optionalDate") var optionalDate: Date? = nil
    @Field.Stored("optionalUUID") var optionalUUID: UUID? = nil
    @Field.Stored("optionalDecimal") var optionalDecimal: Decimal? = nil
    @Field.Stored("mood") var mood: Mood = .calm
    @Field.Stored("optionalMood") var optionalMood: Mood? = nil
    @Field.Coded("address") var address: Address = Address(street: "", number: 0, tags: [])
    @Field.Coded("optionalAddress") var optionalAddress: Address? = nil
}

private let sampleSchema = Schema("V1", entities: [Entity<Sample>("Sample")])

// MARK: Helpers

private func short(_ value: Any) -> String {
    let text = String(reflecting: value)
    return text.count > 120 ? "\(text.prefix(120))… (\(text.count) characters)" : text
}

/// Writes each value into a new object, commits, and checks that the main
/// context reads every value back; for a file store, also after reopening it.
@MainActor
private func expectRoundTrip<Value>(
    _ keyPath: ReferenceWritableKeyPath<Sample, Value>, _ values: [Value], on kind: StoreKind,
    seed: UInt64? = nil, same: (Value, Value) -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let directory = TemporaryDirectory()
    let context = "\(kind)\(seed.map { ", seed \($0)" } ?? "")"
    do {
        let stack = try makeStack(sampleSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for (index, value) in values.enumerated() {
                let sample = tx.create(Into<Sample>())
                sample.seq = index
                sample[keyPath: keyPath] = value
            }
        })
        check(try stack.fetchAll(From<Sample>().orderBy(.ascending(\.$seq))), "after commit")
    }
    if kind == .file {
        let reopened = try makeStack(sampleSchema, .file, in: directory)
        check(try reopened.fetchAll(From<Sample>().orderBy(.ascending(\.$seq))), "after reopening")
    }

    func check(_ samples: [Sample], _ moment: String) {
        #expect(samples.count == values.count, "\(moment) (\(context))", sourceLocation: sourceLocation)
        for (index, (sample, value)) in zip(samples, values).enumerated() {
            let read = sample[keyPath: keyPath]
            #expect(
                same(read, value),
                "value #\(index) \(moment) (\(context)): wrote \(short(value)), read \(short(read))",
                sourceLocation: sourceLocation)
        }
    }
}

@MainActor
private func expectRoundTrip<Value: Equatable>(
    _ keyPath: ReferenceWritableKeyPath<Sample, Value>, _ values: [Value], on kind: StoreKind,
    seed: UInt64? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try expectRoundTrip(keyPath, values, on: kind, seed: seed, same: { $0 == $1 }, sourceLocation: sourceLocation)
}

/// Checks that committing `value` throws `.invalidValue` naming `Sample.field`
/// and that nothing is stored (also after reopening a file store).
@MainActor
private func expectRefused<Value>(
    _ keyPath: ReferenceWritableKeyPath<Sample, Value>, _ value: Value, field: String,
    on kind: StoreKind, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let directory = TemporaryDirectory()
    do {
        let stack = try makeStack(sampleSchema, kind, in: directory)
        let error = #expect(throws: StrataError.self, "\(short(value)) on \(kind)", sourceLocation: sourceLocation) {
            try stack.perform(synchronous: { tx in
                tx.create(Into<Sample>()).text = "fine"
                tx.create(Into<Sample>())[keyPath: keyPath] = value
            })
        }
        if case let .invalidValue(entity, errorField, _)? = error {
            #expect(entity == "Sample", sourceLocation: sourceLocation)
            #expect(errorField == field, sourceLocation: sourceLocation)
        } else {
            Issue.record("expected .invalidValue for \(short(value)), got \(String(describing: error))",
                         sourceLocation: sourceLocation)
        }
        #expect(try stack.fetchCount(From<Sample>()) == 0, "nothing stored", sourceLocation: sourceLocation)
        // The stack still works after the refused commit.
        try stack.perform(synchronous: { tx in tx.create(Into<Sample>()).text = "after" })
        #expect(try stack.fetchCount(From<Sample>()) == 1, sourceLocation: sourceLocation)
    }
    if kind == .file {
        let reopened = try makeStack(sampleSchema, .file, in: directory)
        let texts = try reopened.fetchAll(From<Sample>()).map(\.text)
        #expect(texts == ["after"], "only the later commit is stored", sourceLocation: sourceLocation)
    }
}

private func sameBits(_ a: Double, _ b: Double) -> Bool { a.bitPattern == b.bitPattern }
private func sameBits(_ a: Float, _ b: Float) -> Bool { a.bitPattern == b.bitPattern }
private func sameScalars(_ a: String, _ b: String) -> Bool {
    a.unicodeScalars.elementsEqual(b.unicodeScalars)
}

// MARK: Tests

@Suite("FieldStorable round trips")
@MainActor
struct FieldStorableTests {
    @Test(arguments: StoreKind.allCases)
    func boolsRoundTrip(kind: StoreKind) throws {
        try expectRoundTrip(\.flag, [true, false, true], on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func signedIntegersKeepTheirExtremes(kind: StoreKind) throws {
        try expectRoundTrip(\.int, [Int.min, -1, 0, 1, Int.max], on: kind)
        try expectRoundTrip(\.int8, [Int8.min, -1, 0, Int8.max], on: kind)
        try expectRoundTrip(\.int16, [Int16.min, -1, 0, Int16.max], on: kind)
        try expectRoundTrip(\.int32, [Int32.min, -1, 0, Int32.max], on: kind)
        try expectRoundTrip(\.int64, [Int64.min, -1, 0, Int64.max], on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func unsignedIntegersKeepTheirMaximum(kind: StoreKind) throws {
        try expectRoundTrip(\.uint8, [0, 1, UInt8.max], on: kind)
        try expectRoundTrip(\.uint16, [0, 1, UInt16.max], on: kind)
        try expectRoundTrip(\.uint32, [0, 1, UInt32.max], on: kind)
        try expectRoundTrip(\.uint, [0, UInt(Int64.max)], on: kind)
        try expectRoundTrip(\.uint64, [0, 1, UInt64(Int64.max)], on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func randomIntegersRoundTrip(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let int64s = (0..<200).map { _ in Int64(bitPattern: random.next()) }
        let int16s = (0..<200).map { _ in Int16(truncatingIfNeeded: random.next()) }
        let uint64s = (0..<200).map { _ in random.next() >> 1 }  // at most Int64.max
        try expectRoundTrip(\.int64, int64s, on: kind, seed: seed)
        try expectRoundTrip(\.int16, int16s, on: kind, seed: seed)
        try expectRoundTrip(\.uint64, uint64s, on: kind, seed: seed)
    }

    @Test(arguments: StoreKind.allCases)
    func unsignedValuesPastInt64MaxAreRefusedAtCommit(kind: StoreKind) throws {
        try expectRefused(\.uint64, UInt64(Int64.max) + 1, field: "uint64", on: kind)
        try expectRefused(\.uint64, UInt64.max, field: "uint64", on: kind)
        try expectRefused(\.uint, UInt.max, field: "uint", on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func doublesKeepEdgeValuesBitForBit(kind: StoreKind) throws {
        let values: [Double] = [
            0.0, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .pi, 0.1,
            1e-300, 9_007_199_254_740_994,
        ]
        try expectRoundTrip(\.double, values, on: kind, same: sameBits)
        try expectRoundTrip(\.optionalDouble, values.map { Optional($0) } + [nil], on: kind) {
            switch ($0, $1) {
            case (nil, nil): return true
            case let (a?, b?): return sameBits(a, b)
            default: return false
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func floatsKeepEdgeValuesBitForBit(kind: StoreKind) throws {
        let values: [Float] = [
            0.0, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .pi, 0.1,
        ]
        try expectRoundTrip(\.float, values, on: kind, same: sameBits)
    }

    @Test(arguments: StoreKind.allCases)
    func randomDoublesRoundTripBitForBit(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let values = (0..<300).compactMap { _ -> Double? in
            let value = Double(bitPattern: random.next())
            return value.isNaN ? nil : value
        }
        try expectRoundTrip(\.double, values, on: kind, seed: random.seed, same: sameBits)
    }

    @Test(arguments: StoreKind.allCases)
    func notANumberIsRefusedAtCommit(kind: StoreKind) throws {
        try expectRefused(\.double, Double.nan, field: "double", on: kind)
        try expectRefused(\.double, -Double.nan, field: "double", on: kind)
        try expectRefused(\.double, Double.signalingNaN, field: "double", on: kind)
        try expectRefused(\.float, Float.nan, field: "float", on: kind)
        try expectRefused(\.optionalDouble, Double?.some(.nan), field: "optionalDouble", on: kind)
        try expectRefused(\.decimal, Decimal.nan, field: "decimal", on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func stringsRoundTripScalarForScalar(kind: StoreKind) throws {
        var values = [
            "", " ", "'", "\"", "''", "a\0b", "\0", "\0\0\0", "emoji 👩‍👩‍👧‍👦🇫🇷",
            "e\u{301}", "\u{E9}", "a\u{308}\u{301}\u{327}", "'); DROP TABLE \"Sample\"; --",
            "line\nbreak\r\ttab", "\u{FEFF}bom", "日本語", String(repeating: "x", count: 1_000_000),
        ]
        // PostgreSQL's text cannot hold NUL (Docs/PostgreSQL.md, "What differs").
        if kind == .postgreSQL { values.removeAll { $0.contains("\0") } }
        try expectRoundTrip(\.text, values, on: kind, same: sameScalars)
    }

    /// SQLite's text holds NUL (U+0000); PostgreSQL's cannot (Docs/PostgreSQL.md,
    /// "What differs"). There such text is refused with `.invalidValue` naming the
    /// field, before anything is written: what was committed stays, and a
    /// transaction whose read or `updateAll` was refused goes on.
    @Test(arguments: StoreKind.allCases)
    func textHoldingNULIsStoredOnSQLiteAndRefusedByNameOnPostgreSQL(kind: StoreKind) throws {
        guard kind == .postgreSQL else {
            try expectRoundTrip(\.text, ["a\0b", "\0"], on: kind, same: sameScalars)
            try expectRoundTrip(\.optionalText, ["\0"], on: kind, same: ==)
            return
        }
        try expectRefused(\.text, "a\0b", field: "text", on: kind)
        try expectRefused(\.optionalText, "\0", field: "optionalText", on: kind)
        func expectNULRefused(_ field: String, _ body: () throws -> Void) {
            let error = #expect(throws: StrataError.self) { try body() }
            guard case let .invalidValue(entity, errorField, reason)? = error else {
                Issue.record("expected .invalidValue for \(field), got \(String(describing: error))")
                return
            }
            #expect(entity == "Sample" && errorField == field && reason.contains("NUL"))
        }
        let directory = TemporaryDirectory()
        let stack = try makeStack(sampleSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<Sample>()).text = "committed" })
        expectNULRefused("text") {
            try stack.perform(synchronous: { tx in
                tx.create(Into<Sample>()).text = "new"
                try #require(try tx.fetchOne(From<Sample>())).text = "changed\0"
            })
        }
        try stack.perform(synchronous: { tx in
            let sample = try #require(try tx.fetchOne(From<Sample>().where(\.$text == "committed")))
            sample.optionalText = "\0"
            expectNULRefused("optionalText") { _ = try tx.fetchCount(From<Sample>()) }
            sample.optionalText = "fixed"
            expectNULRefused("text") { try tx.updateAll(From<Sample>(), .set(\.$text, to: "\0")) }
            #expect(try tx.fetchAll(From<Sample>()).map(\.text) == ["committed"])
        })
        let samples = try stack.fetchAll(From<Sample>())
        #expect(samples.map(\.text) == ["committed"] && samples.map(\.optionalText) == ["fixed"])
    }

    @Test(arguments: StoreKind.allCases)
    func randomUnicodeStringsRoundTrip(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let values = (0..<100).map { _ in
            let length = Int(random.next() % 40)
            var scalars = String.UnicodeScalarView()
            while scalars.count < length {
                // PostgreSQL's text cannot hold U+0000: a NUL fails the commit
                // there, as textHoldingNULIsStoredOnSQLiteAndRefusedByNameOnPostgreSQL
                // checks, so it is drawn on SQLite only.
                if let scalar = Unicode.Scalar(UInt32(random.next() % 0x11_0000)),
                    scalar != "\u{0}" || kind != .postgreSQL
                {
                    scalars.append(scalar)
                }
            }
            return String(scalars)
        }
        try expectRoundTrip(\.text, values, on: kind, seed: random.seed, same: sameScalars)
    }

    @Test(arguments: StoreKind.allCases)
    func dataRoundTripsByteForByte(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let size = 1_000_000 + Int(random.next() % 4_000_001)
        let values = [
            Data(), Data([0]), Data([0, 0, 0xFF, 0]), Data("not text \u{0}".utf8), random.bytes(size),
        ]
        try expectRoundTrip(\.blob, values, on: kind, seed: random.seed)
        try expectRoundTrip(\.optionalBlob, [nil, Data(), Data([1, 2, 3])], on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func datesOnWholeAndHalfSecondsRoundTripExactly(kind: StoreKind) throws {
        let values = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1.5), .distantPast,
            .distantFuture, Date(timeIntervalSince1970: 1_700_000_000.5),
        ]
        try expectRoundTrip(\.date, values, on: kind)
        try expectRoundTrip(\.optionalDate, [nil, Date(timeIntervalSince1970: 1)], on: kind)
    }

    /// Dates are stored as seconds since 1970 while `Date` counts from 2001, so
    /// an arbitrary instant may come back one unit in the last place away
    /// (about 0.2 µs today), never more.
    @Test(arguments: StoreKind.allCases)
    func arbitraryDatesRoundTripWithinOneMicrosecond(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let values = [Date()] + (0..<100).map { _ in
            Date(timeIntervalSinceReferenceDate: Double(random.next() % 4_000_000_000) / 1.7 - 1e9)
        }
        try expectRoundTrip(\.date, values, on: kind, seed: random.seed) {
            abs($0.timeIntervalSince($1)) <= 1e-6
        }
    }

    @Test(arguments: StoreKind.allCases)
    func uuidsRoundTrip(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let values = (0..<50).map { _ -> UUID in
            let bytes = [UInt8](random.bytes(16))
            return UUID(uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
        try expectRoundTrip(\.uuid, values, on: kind, seed: random.seed)
        try expectRoundTrip(\.optionalUUID, [nil, UUID()], on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func urlsRoundTrip(kind: StoreKind) throws {
        let values = [
            URL(string: "https://example.com/a%20b?q=1&r='x'#frag")!,
            URL(string: "mailto:ann@example.com")!,
            URL(fileURLWithPath: "/tmp/with space/é.txt"),
            URL(string: "relative/path", relativeTo: URL(string: "https://example.com/base/")!)!
                .absoluteURL,
        ]
        try expectRoundTrip(\.url, values, on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func decimalsRoundTripExactly(kind: StoreKind) throws {
        let texts = [
            "3.14159265358979323846", "-3.14159265358979323846", "0", "-1",
            "123456789012345678901234567890123456789", "0.000000000000000000000000000001",
            "-99999999999999999999999999999999999999", "0.1",
        ]
        let values = texts.map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))! }
        try expectRoundTrip(\.decimal, values, on: kind)
        try expectRoundTrip(\.optionalDecimal, [nil, values[0]], on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func optionalsKeepNilAndValues(kind: StoreKind) throws {
        try expectRoundTrip(\.optionalText, [nil, "", "nil", "NULL"], on: kind)
        try expectRoundTrip(\.optionalInt, [nil, 0, Int.min, Int.max], on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func rawRepresentableEnumsRoundTrip(kind: StoreKind) throws {
        try expectRoundTrip(\.mood, Mood.allCases, on: kind)
        try expectRoundTrip(\.optionalMood, [nil] + Mood.allCases.map { Optional($0) }, on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func codedValuesRoundTripAsJSON(kind: StoreKind) throws {
        let values = [
            Address(street: "", number: 0, tags: []),
            Address(street: "Rue de l'Église \"12\" 🏠", number: -7, tags: ["a\0b", "/"], coordinates: [0.5, -1e10]),
        ]
        try expectRoundTrip(\.address, values, on: kind)
        try expectRoundTrip(\.optionalAddress, [nil] + values.map { Optional($0) }, on: kind)
    }

    @Test(arguments: StoreKind.allCases)
    func changingAValueToNilAndBackPersists(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(sampleSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let sample = tx.create(Into<Sample>())
            sample.optionalText = "set"
            sample.optionalAddress = Address(street: "x", number: 1, tags: [])
            return sample.objectID
        })
        try stack.perform(synchronous: { tx in
            tx.edit(id)?.optionalText = nil
            tx.edit(id)?.optionalAddress = nil
        })
        var sample = try #require(try stack.fetchExisting(id))
        #expect(sample.optionalText == nil)
        #expect(sample.optionalAddress == nil)
        try stack.perform(synchronous: { tx in tx.edit(id)?.optionalText = "again" })
        sample = try #require(try stack.fetchExisting(id))
        #expect(sample.optionalText == "again")
    }

    @Test
    func storedValuesUseTheDocumentedStorageClasses() throws {
        #expect(try true.storedValue() == .integer(1))
        #expect(try Int8.min.storedValue() == .integer(-128))
        #expect(try UInt32.max.storedValue() == .integer(4_294_967_295))
        #expect(try (-0.0).storedValue() == .real(-0.0))
        #expect(try Date(timeIntervalSince1970: 2.5).storedValue() == .real(2.5))
        #expect(try Decimal(string: "3.14159265358979323846")!.storedValue()
                == .text("3.14159265358979323846"))
        #expect(try Mood.sleepy.storedValue() == .text("zz'z"))
        #expect(try String?.none.storedValue() == .null)
        #expect(throws: StrataError.self) { try (UInt64(Int64.max) + 1).storedValue() }
        #expect(throws: StrataError.self) { try Double.nan.storedValue() }
    }

    @Test
    func readingOutOfRangeValuesThrowsInsteadOfWrapping() {
        #expect(throws: StrataError.self) { try Int8(storedValue: .integer(128)) }
        #expect(throws: StrataError.self) { try UInt8(storedValue: .integer(-1)) }
        #expect(throws: StrataError.self) { try UInt32(storedValue: .integer(Int64(UInt32.max) + 1)) }
        #expect(throws: StrataError.self) { try Int(storedValue: .real(1.5)) }
        #expect(throws: StrataError.self) { try Mood(storedValue: .text("happy")) }
        #expect(throws: StrataError.self) { try UUID(storedValue: .text("not a uuid")) }
        #expect(throws: StrataError.self) { try Decimal(storedValue: .text("abc")) }
    }

    /// A real that is no `Float` reads as the nearest one, as Core Data's
    /// `NSNumber.floatValue` reads it, over random reals of every magnitude;
    /// a `Float`'s own `Double` reads back bit for bit.
    @Test
    func aRealReadsAsTheNearestFloat() throws {
        var random = SplitMix64.random()
        for _ in 0..<2_000 {
            let real = Double(bitPattern: random.next())
            guard !real.isNaN else { continue }
            let read = try Float(storedValue: .real(real))
            #expect(read.bitPattern == Float(real).bitPattern, "\(real), seed \(random.seed)")
            let float = Float(bitPattern: UInt32(truncatingIfNeeded: random.next()))
            guard !float.isNaN else { continue }
            #expect(try Float(storedValue: .real(Double(float))).bitPattern == float.bitPattern)
        }
        #expect(try Float(storedValue: .real(0.1)) == Float(0.1))
        #expect(try Float(storedValue: .integer(16_777_217)) == 16_777_216)
    }

    /// A field declared `Double` in one version and `Float` in the next
    /// keeps its column (both are REAL: the schema does not change), so the
    /// stored doubles stay; each reads as the nearest `Float` instead of
    /// the field's default.
    @Test(arguments: StoreKind.allCases.filter { $0 != .inMemory })
    func aDoubleFieldMadeFloatReadsItsValuesRounded(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let values = [0.1, 2.5, -1e-50, 1e40, 123_456_789.123]
        do {
            let stack = try makeStack(levelSchemaV1, kind, in: directory)
            try stack.perform(synchronous: { tx in
                for value in values { tx.create(Into<LevelV1>()).level = value }
            })
            try stack.removeStorage()
        }
        let stack = DataStack(schemaHistory: SchemaHistory([levelSchemaV1, levelSchemaV2]))
        try stack.addStorageAndWait(makeStorage(kind, in: directory))
        let read = try stack.fetchAll(From<LevelV2>().orderBy(.ascending(\.$level))).map(\.level)
        #expect(read == values.sorted().map(Float.init))
    }
}

private final class LevelV1: ManagedObject {
    @Field.Stored("level") var level: Double = 7
}

private final class LevelV2: ManagedObject {
    @Field.Stored("level") var level: Float = 7
}

private let levelSchemaV1 = Schema("L1", entities: [Entity<LevelV1>("Level")])
private let levelSchemaV2 = Schema("L2", entities: [Entity<LevelV2>("Level")])

