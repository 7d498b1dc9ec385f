import Foundation
import Testing
@testable import Strata

// `@Field.Coded(..., coder:)`: CoreStore's built-in coders (`FieldCoders.Json`,
// `.Plist`, `.NSCoding`, `.DefaultNSSecureCoding`), a coder type of one's
// own, and a pair of closures, as CoreStore's README and its
// DynamicModelTests declare them.

/// An `NSCoding` object, as a `UIColor` is in CoreStore's tests.
final class CoderPalette: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String
    let shade: Int

    init(name: String, shade: Int) {
        self.name = name
        self.shade = shade
    }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
        shade = coder.decodeInteger(forKey: "shade")
    }

    func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(shade, forKey: "shade")
    }

    override func isEqual(_ object: Any?) -> Bool {
        (object as? CoderPalette).map { $0.name == name && $0.shade == shade } ?? false
    }
}

/// Not `Codable`: only a closure coder stores it, as CoreStore's `Job`.
enum CoderJob: String, CaseIterable, Sendable {
    case unemployed, engineer, doctor, artist

    var data: Data { Data(rawValue.utf8) }
    init?(data: Data) { self.init(rawValue: String(decoding: data, as: UTF8.self)) }
}

struct CoderInfo: Codable, Equatable, Sendable {
    var label: String
    var scores: [String: Int]
}

/// A coder of one's own: base64 of the UTF-8.
enum Base64Coder: FieldCoderType {
    static func encodeToStoredData(_ value: String?) -> Data? {
        value.map { Data($0.utf8).base64EncodedData() }
    }

    static func decodeFromStoredData(_ data: Data?) -> String? {
        data.flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }
}

final class CoderSample: ManagedObject {
    @Field.Stored("label") var label: String = ""
    @Field.Coded("info", coder: FieldCoders.Json.self)
    var info: CoderInfo = CoderInfo(label: "default", scores: ["a": 1])
    @Field.Coded("maybeInfo", coder: FieldCoders.Json.self) var maybeInfo: CoderInfo?
    @Field.Coded("scores", coder: FieldCoders.Plist.self) var scores: [String: Int] = [:]
    @Field.Coded("count", coder: FieldCoders.Plist.self) var count: Int? = 7
    @Field.Coded("palette", coder: FieldCoders.NSCoding.self)
    var palette: CoderPalette? = CoderPalette(name: "blue", shade: 3)
    @Field.Coded("tags", coder: FieldCoders.DefaultNSSecureCoding.self) var tags: NSArray?
    @Field.Coded("secret", coder: Base64Coder.self) var secret: String = ""
    @Field.Coded(
        "job",
        coder: (encode: { $0.data }, decode: { $0.flatMap(CoderJob.init(data:)) ?? .unemployed }),
        dynamicInitialValue: { CoderJob.allCases.randomElement()! })
    var job: CoderJob
    @Field.Coded("nickname", coder: (encode: { $0.map { Data($0.utf8) } }, decode: {
        $0.map { String(decoding: $0, as: UTF8.self) }
    }))
    var nickname: String?
}

let coderSchema = Schema("Coders1", entities: [Entity<CoderSample>("CoderSample")])

/// What one object is given, and must read back.
private struct CoderValues: Equatable {
    var info: CoderInfo
    var maybeInfo: CoderInfo?
    var scores: [String: Int]
    var count: Int?
    var palette: CoderPalette?
    var tags: [String]?
    var secret: String
    var job: CoderJob
    var nickname: String?

    static func random(using random: inout SplitMix64) -> CoderValues {
        func text() -> String {
            ["", "é", "a\\b\"c", "ß/ı", "\u{0}x", "plain"].randomElement(using: &random)!
                + String(Int.random(in: 0..<100, using: &random))
        }
        func info() -> CoderInfo {
            CoderInfo(label: text(), scores: [text(): Int.random(in: -9...9, using: &random), "z": 0])
        }
        let maybe = Bool.random(using: &random)
        return CoderValues(
            info: info(), maybeInfo: maybe ? info() : nil,
            scores: Bool.random(using: &random) ? [:] : [text(): Int.random(in: 0...1000, using: &random)],
            count: Bool.random(using: &random) ? nil : Int.random(in: -5...5, using: &random),
            palette: Bool.random(using: &random)
                ? nil : CoderPalette(name: text(), shade: Int.random(in: 0...9, using: &random)),
            tags: Bool.random(using: &random) ? nil : [text(), text()],
            secret: text(), job: CoderJob.allCases.randomElement(using: &random)!,
            nickname: Bool.random(using: &random) ? nil : text())
    }

    init(
        info: CoderInfo, maybeInfo: CoderInfo?, scores: [String: Int], count: Int?,
        palette: CoderPalette?, tags: [String]?, secret: String, job: CoderJob, nickname: String?
    ) {
        (self.info, self.maybeInfo, self.scores, self.count) = (info, maybeInfo, scores, count)
        (self.palette, self.tags, self.secret, self.job, self.nickname) = (palette, tags, secret, job, nickname)
    }

    init(_ object: CoderSample) {
        self.init(
            info: object.info, maybeInfo: object.maybeInfo, scores: object.scores, count: object.count,
            palette: object.palette, tags: object.tags.map { $0.compactMap { $0 as? String } },
            secret: object.secret, job: object.job, nickname: object.nickname)
    }

    func write(to object: CoderSample) {
        object.info = info
        object.maybeInfo = maybeInfo
        object.scores = scores
        object.count = count
        object.palette = palette
        object.tags = tags.map { NSArray(array: $0.map { NSString(string: $0) }) }
        object.secret = secret
        object.job = job
        object.nickname = nickname
    }
}

@Suite("Coded fields with a coder")
struct FieldCodersTests {
    /// Random values of every coder, written in one transaction and changed
    /// in a second, read back equal from the main context, from a
    /// transaction, and after reopening a file store.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func valuesOfEveryCoderReadBackAsWritten(_ kind: StoreKind) throws {
        var random = SplitMix64.random()
        let directory = TemporaryDirectory()
        var stack = try makeStack(coderSchema, kind, in: directory)
        var expected = (0..<24).map { _ in CoderValues.random(using: &random) }
        let ids = try stack.perform(synchronous: { tx in
            expected.map { values in
                let object = tx.create(Into<CoderSample>())
                values.write(to: object)
                return object.objectID
            }
        })
        for index in expected.indices where Bool.random(using: &random) {
            expected[index] = CoderValues.random(using: &random)
        }
        try stack.perform(synchronous: { [expected] tx in
            for (id, values) in zip(ids, expected) {
                guard let object = tx.edit(id) else { continue }
                values.write(to: object)
                #expect(CoderValues(object) == values, "read back before the commit, seed \(random.seed)")
            }
        })
        func check(_ stack: DataStack, _ when: String) throws {
            for (id, values) in zip(ids, expected) {
                let object = try #require(try stack.fetchExisting(id) as CoderSample?)
                #expect(CoderValues(object) == values, "\(when), seed \(random.seed)")
            }
            let inTransaction = try stack.perform(synchronous: { tx in
                try ids.map { try CoderValues(#require(tx.fetchExisting($0) as CoderSample?)) }
            })
            #expect(inTransaction == expected, "\(when), in a transaction, seed \(random.seed)")
        }
        try check(stack, "after the commits")
        guard kind != .inMemory else { return }
        try stack.removeStorage()
        stack = try makeStack(coderSchema, kind, in: directory)
        try check(stack, "after reopening")
    }

    /// A new object reads each field's default, a closure's
    /// `dynamicInitialValue` made for it; the columns of coder fields are
    /// BLOBs holding exactly the coder's bytes (`NULL` for `nil`).
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func newObjectsReadTheDefaultsAndTheColumnsHoldTheCodersBytes(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(coderSchema, kind, in: directory)
        let entity = try #require(coderSchema.entity(named: "CoderSample"))
        for name in ["info", "maybeInfo", "scores", "count", "palette", "tags", "secret", "job", "nickname"] {
            #expect(entity.attributes.first { $0.name == name }?.storedType == .blob, "\(name)")
        }
        let id = try stack.perform(synchronous: { tx in tx.create(Into<CoderSample>()).objectID })
        let object = try #require(try stack.fetchExisting(id) as CoderSample?)
        #expect(object.info == CoderInfo(label: "default", scores: ["a": 1]))
        #expect(object.maybeInfo == nil)
        #expect(object.scores == [:])
        #expect(object.count == 7)
        #expect(object.palette == CoderPalette(name: "blue", shade: 3))
        #expect(object.tags == nil)
        #expect(object.secret == "")
        #expect(CoderJob.allCases.contains(object.job))
        #expect(object.nickname == nil)

        let stored = ObjectSnapshot(object).dictionaryForValues()
        #expect(stored["info"] == .blob(FieldCoders.Json<CoderInfo>.encodeToStoredData(object.info)!))
        #expect(stored["maybeInfo"] == .null)
        #expect(stored["count"] == .blob(FieldCoders.Plist<Int>.encodeToStoredData(7)!))
        #expect(stored["secret"] == .blob(Data()))
        #expect(stored["job"] == .blob(object.job.data))
        #expect(stored["nickname"] == .null)

        // An optional field declared `= value` is optional too: `nil` is NULL,
        // not the coder's encoding of an optional.
        let optionalNames = Set(entity.attributes.filter { $0.isOptional }.map(\.name))
        #expect(optionalNames.isSuperset(of: ["maybeInfo", "count", "palette", "tags", "nickname"]))
        #expect(optionalNames.isDisjoint(with: ["info", "scores", "secret", "job"]))
        try stack.perform(synchronous: { tx in
            let object = try #require(tx.edit(id))
            object.count = nil
            object.palette = nil
        })
        let cleared = ObjectSnapshot(object).dictionaryForValues()
        #expect(cleared["count"] == .null && cleared["palette"] == .null)
        #expect(object.count == nil && object.palette == nil)
    }

    /// Snapshots, publishers, field observations and `updateAll` read and
    /// write coder fields through the same coder.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func snapshotsObservationsAndBulkUpdatesUseTheCoder(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(coderSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let object = tx.create(Into<CoderSample>())
            object.job = .doctor
            return object.objectID
        })
        let object = try #require(try stack.fetchExisting(id) as CoderSample?)
        var heard: [[CoderJob]] = []
        let token = object.$job.observe { old, new in heard.append([old, new]) }
        let publisher = try stack.publishObject(object)
        let before = ObjectSnapshot(object)

        try stack.perform(synchronous: { tx in
            _ = try tx.updateAll(From<CoderSample>(), .set(\.$job, to: .engineer), .set(\.$palette, to: nil))
        })
        #expect(object.job == .engineer)
        #expect(object.palette == nil)
        #expect(heard == [[.doctor, .engineer]])
        #expect(before.$job == .doctor)
        #expect(publisher.$job == .engineer)
        var copy = ObjectSnapshot(object)
        copy.$nickname = "Spot"
        #expect(copy.$nickname == "Spot")
        #expect(object.nickname == nil, "a snapshot's copy changes that copy only")
        token.cancel()
    }

    /// A value its coder cannot encode (JSON has no NaN) is refused at the
    /// commit with `.invalidValue` naming the field; nothing is stored.
    @Test(arguments: StoreKind.allCases)
    @MainActor
    func aValueTheCoderCannotEncodeIsRefusedAtTheCommit(_ kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(coderGaugeSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<CoderGauge>()).readings = [1.5] })
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                for gauge in try tx.fetchAll(From<CoderGauge>()) { gauge.readings = [.nan] }
            })
        }
        guard case let .invalidValue(entity, field, _)? = error else {
            Issue.record("expected .invalidValue, got \(String(describing: error))")
            return
        }
        #expect(entity == "CoderGauge")
        #expect(field == "readings")
        #expect(try stack.fetchAll(From<CoderGauge>()).map(\.readings) == [[1.5]])
    }

    /// The built-in coders read back what they write, for random values, and
    /// give `nil` (never a trap) for bytes that are not theirs; the field's
    /// decoding throws for those, so the field reads its default.
    @Test
    func theBuiltInCodersRoundTripAndRefuseForeignBytes() throws {
        var random = SplitMix64.random()
        for _ in 0..<200 {
            let values = CoderValues.random(using: &random)
            #expect(FieldCoders.Json.decodeFromStoredData(FieldCoders.Json.encodeToStoredData(values.info))
                == values.info, "seed \(random.seed)")
            #expect(FieldCoders.Plist.decodeFromStoredData(FieldCoders.Plist.encodeToStoredData(values.scores))
                == values.scores, "seed \(random.seed)")
            let palette = values.palette ?? CoderPalette(name: "x", shade: 1)
            #expect(FieldCoders.NSCoding.decodeFromStoredData(FieldCoders.NSCoding.encodeToStoredData(palette))
                == palette, "seed \(random.seed)")
            let tags = NSArray(array: (values.tags ?? []).map { NSString(string: $0) })
            #expect(FieldCoders.DefaultNSSecureCoding.decodeFromStoredData(
                FieldCoders.DefaultNSSecureCoding.encodeToStoredData(tags)) == tags, "seed \(random.seed)")
            let foreign = random.bytes(Int.random(in: 0..<40, using: &random))
            #expect(FieldCoders.Json<CoderInfo>.decodeFromStoredData(foreign) == nil)
            #expect(FieldCoders.Plist<[String: Int]>.decodeFromStoredData(foreign) == nil)
            #expect(FieldCoders.NSCoding<CoderPalette>.decodeFromStoredData(foreign) == nil)
            #expect(FieldCoders.DefaultNSSecureCoding<NSArray>.decodeFromStoredData(foreign) == nil)
            #expect(throws: StrataError.self) {
                try FieldCoding.coder(FieldCoders.Plist<[String: Int]>.self).decode(.blob(foreign))
            }
        }
        #expect(FieldCoders.Json<Double>.encodeToStoredData(.infinity) == nil)
        #expect(throws: StrataError.self) { try FieldCoders.Json<Double>.encodeReportingErrors(.nan) }
        #expect(try FieldCoding.optionalCoder(FieldCoders.Json<Int>.self).decode(.null) == nil)
        #expect(throws: StrataError.self) { try FieldCoding.coder(FieldCoders.Json<Int>.self).decode(.null) }
        #expect(throws: StrataError.self) { try FieldCoding.coder(FieldCoders.Json<Int>.self).decode(.integer(1)) }
    }
}

final class CoderGauge: ManagedObject {
    @Field.Coded("readings", coder: FieldCoders.Json.self) var readings: [Double] = []
}

let coderGaugeSchema = Schema("CoderGauge1", entities: [Entity<CoderGauge>("CoderGauge")])
