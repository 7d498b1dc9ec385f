import Foundation
import Testing

@testable import Strata

// CoreStore's `UniqueIDType` is any `ImportableAttributeType` (numbers,
// String, UUID, URL, Date, Data...), optional ones included. Strata's is any
// `FieldStorable & Hashable`; each kind here is imported twice, with a
// repeated ID, and must give one object per ID, updated in place.

/// A record carrying an ID of any type.
struct ImpKeyedRecord<ID> {
    var id: ID
    var label: String
}

/// The models below, for one generic round trip.
protocol ImpKeyedModel: ImportableUniqueObject where ImportSource == ImpKeyedRecord<UniqueIDType> {
    var label: String { get }
}

final class ImpUUIDKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<UUID>
    static var uniqueIDKeyPath: KeyPath<ImpUUIDKeyed, Field.Stored<UUID>> { \.$key }
    static func uniqueID(from source: ImpKeyedRecord<UUID>, in transaction: BaseDataTransaction) -> UUID? {
        source.id
    }
    func update(from source: ImpKeyedRecord<UUID>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

final class ImpOptionalUUIDKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key: UUID? = nil
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<UUID?>
    static var uniqueIDKeyPath: KeyPath<ImpOptionalUUIDKeyed, Field.Stored<UUID?>> { \.$key }
    static func uniqueID(from source: ImpKeyedRecord<UUID?>, in transaction: BaseDataTransaction) -> UUID?? {
        source.id
    }
    func update(from source: ImpKeyedRecord<UUID?>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

final class ImpOptionalTextKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key: String? = nil
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<String?>
    static var uniqueIDKeyPath: KeyPath<ImpOptionalTextKeyed, Field.Stored<String?>> { \.$key }
    static func uniqueID(
        from source: ImpKeyedRecord<String?>, in transaction: BaseDataTransaction
    ) -> String?? {
        source.id
    }
    func update(from source: ImpKeyedRecord<String?>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

final class ImpTextKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key = ""
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<String>
    static var uniqueIDKeyPath: KeyPath<ImpTextKeyed, Field.Stored<String>> { \.$key }
    static func uniqueID(
        from source: ImpKeyedRecord<String>, in transaction: BaseDataTransaction
    ) -> String? {
        source.id
    }
    func update(from source: ImpKeyedRecord<String>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

/// A text ID wrapped in a type of the app's own.
struct ImpSKU: RawRepresentable, Hashable, FieldStorable {
    var rawValue: String
}

final class ImpSKUKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key = ImpSKU(rawValue: "")
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<ImpSKU>
    static var uniqueIDKeyPath: KeyPath<ImpSKUKeyed, Field.Stored<ImpSKU>> { \.$key }
    static func uniqueID(
        from source: ImpKeyedRecord<ImpSKU>, in transaction: BaseDataTransaction
    ) -> ImpSKU? {
        source.id
    }
    func update(from source: ImpKeyedRecord<ImpSKU>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

final class ImpSmallKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key: Int16 = 0
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<Int16>
    static var uniqueIDKeyPath: KeyPath<ImpSmallKeyed, Field.Stored<Int16>> { \.$key }
    static func uniqueID(from source: ImpKeyedRecord<Int16>, in transaction: BaseDataTransaction) -> Int16? {
        source.id
    }
    func update(from source: ImpKeyedRecord<Int16>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

final class ImpURLKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key = URL(string: "about:blank")!
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<URL>
    static var uniqueIDKeyPath: KeyPath<ImpURLKeyed, Field.Stored<URL>> { \.$key }
    static func uniqueID(from source: ImpKeyedRecord<URL>, in transaction: BaseDataTransaction) -> URL? {
        source.id
    }
    func update(from source: ImpKeyedRecord<URL>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

final class ImpDataKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key = Data()
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<Data>
    static var uniqueIDKeyPath: KeyPath<ImpDataKeyed, Field.Stored<Data>> { \.$key }
    static func uniqueID(from source: ImpKeyedRecord<Data>, in transaction: BaseDataTransaction) -> Data? {
        source.id
    }
    func update(from source: ImpKeyedRecord<Data>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

final class ImpDateKeyed: ManagedObject, ImpKeyedModel {
    @Field.Stored("key", .unique) var key = Date(timeIntervalSince1970: 0)
    @Field.Stored("label") var label = ""
    typealias ImportSource = ImpKeyedRecord<Date>
    static var uniqueIDKeyPath: KeyPath<ImpDateKeyed, Field.Stored<Date>> { \.$key }
    static func uniqueID(from source: ImpKeyedRecord<Date>, in transaction: BaseDataTransaction) -> Date? {
        source.id
    }
    func update(from source: ImpKeyedRecord<Date>, in transaction: BaseDataTransaction) throws {
        label = source.label
    }
}

private let keyedSchema = Schema(
    "ImpKeyed",
    entities: [
        Entity<ImpUUIDKeyed>("ImpUUIDKeyed"), Entity<ImpOptionalUUIDKeyed>("ImpOptionalUUIDKeyed"),
        Entity<ImpOptionalTextKeyed>("ImpOptionalTextKeyed"), Entity<ImpTextKeyed>("ImpTextKeyed"),
        Entity<ImpSKUKeyed>("ImpSKUKeyed"), Entity<ImpSmallKeyed>("ImpSmallKeyed"),
        Entity<ImpURLKeyed>("ImpURLKeyed"), Entity<ImpDataKeyed>("ImpDataKeyed"),
        Entity<ImpDateKeyed>("ImpDateKeyed"),
    ])

@MainActor
@Suite("Import: unique IDs of every kind a CoreStore model uses")
struct ImportIDTypeParityTests {
    /// Imports `[a, b, a]` then `[b, c]` (three distinct IDs), in two
    /// transactions: one object per ID, the last record's label, input order.
    private func roundTrip<Model: ImpKeyedModel>(
        _ type: Model.Type, _ ids: [Model.UniqueIDType], _ kind: StoreKind
    ) throws -> (first: [String], second: [String], stored: [String]) {
        let directory = TemporaryDirectory()
        let stack = try makeStack(keyedSchema, kind, in: directory)
        let first = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(
                Into<Model>(),
                sourceArray: [
                    ImpKeyedRecord(id: ids[0], label: "a"), ImpKeyedRecord(id: ids[1], label: "b"),
                    ImpKeyedRecord(id: ids[0], label: "a2"),
                ]
            ).map(\.label)
        })
        let second = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(
                Into<Model>(),
                sourceArray: [ImpKeyedRecord(id: ids[1], label: "b2"), ImpKeyedRecord(id: ids[2], label: "c")]
            ).map(\.label)
        })
        let stored = try stack.fetchAll(From<Model>()).map(\.label).sorted()
        return (first, second, stored)
    }

    private func expectRoundTrip<Model: ImpKeyedModel>(
        _ type: Model.Type, _ ids: [Model.UniqueIDType], _ kind: StoreKind
    ) throws {
        let result = try roundTrip(type, ids, kind)
        #expect(result.first == ["a2", "b"], "\(Model.self)")
        #expect(result.second == ["b2", "c"], "\(Model.self)")
        #expect(result.stored == ["a2", "b2", "c"], "\(Model.self)")
    }

    @Test(arguments: StoreKind.sqlite)
    func idsOfEveryKindMatchTheObjectsTheyCreated(_ kind: StoreKind) throws {
        let uuids = (0..<3).map { _ in UUID() }
        try expectRoundTrip(ImpUUIDKeyed.self, uuids, kind)
        try expectRoundTrip(ImpOptionalUUIDKeyed.self, uuids, kind)
        try expectRoundTrip(ImpOptionalTextKeyed.self, ["x", "y", "z"], kind)
        try expectRoundTrip(ImpSKUKeyed.self, ["x", "y", "z"].map(ImpSKU.init), kind)
        try expectRoundTrip(ImpSmallKeyed.self, [Int16.min, -1, Int16.max], kind)
        try expectRoundTrip(
            ImpURLKeyed.self,
            ["https://a.example/1", "https://a.example/2", "file:///tmp/x"].map { URL(string: $0)! }, kind)
        try expectRoundTrip(ImpDataKeyed.self, [Data([0]), Data([0, 0]), Data([0xFF, 1])], kind)
    }

    /// Rule 4: text IDs are one when their UTF-8 bytes are, as the store's
    /// unique index compares them ("é" composed and decomposed are two rows).
    /// That holds for `String` IDs; an optional text ID, or a text wrapped in
    /// a type of the app's own, must not merge them either (Swift's `==`
    /// does).
    @Test(arguments: StoreKind.sqlite)
    func textIDsAreToldApartByTheirBytesWhateverTheirType(_ kind: StoreKind) throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // Swift's canonical equivalence
        try expectRoundTrip(ImpTextKeyed.self, [composed, decomposed, "tea"], kind)
        try expectRoundTrip(ImpOptionalTextKeyed.self, [composed, decomposed, "tea"], kind)
        try expectRoundTrip(ImpSKUKeyed.self, [composed, decomposed, "tea"].map(ImpSKU.init), kind)
    }

    /// Two `Date`s one ulp apart are two Swift values but one stored value
    /// (seconds since 1970), so one row of a unique field: one ID, the last
    /// record imported, not two objects that fail the commit.
    @Test(arguments: StoreKind.sqlite)
    func datesOneStoredValueApartAreOneID(_ kind: StoreKind) throws {
        let early = Date(timeIntervalSinceReferenceDate: 0.1)
        let late = Date(timeIntervalSinceReferenceDate: 0.1.nextUp)
        #expect(early != late && early.timeIntervalSince1970 == late.timeIntervalSince1970)
        let directory = TemporaryDirectory()
        let stack = try makeStack(keyedSchema, kind, in: directory)
        let labels = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(
                Into<ImpDateKeyed>(),
                sourceArray: [ImpKeyedRecord(id: early, label: "a"), ImpKeyedRecord(id: late, label: "b")]
            ).map(\.label)
        })
        #expect(labels == ["b"])
        #expect(try stack.fetchAll(From<ImpDateKeyed>()).map(\.label) == ["b"])
    }

    /// Texts that Swift's `==` takes for one and the store for two: composed
    /// and decomposed accents, the Kelvin and Ångström signs.
    private static let textPieces = [
        "caf\u{E9}", "cafe\u{301}", "K", "\u{212A}", "\u{C5}", "A\u{30A}", "\u{212B}", "x",
    ]

    /// Two rounds of random records over IDs built from ``textPieces``:
    /// each round returns one object per ID by bytes, at its first record's
    /// position, with its last record's label; the store ends with the
    /// label of each ID's last record.
    private func randomTextRounds<Model: ImpKeyedModel>(
        _ type: Model.Type, seed: UInt64, _ makeID: (String) -> Model.UniqueIDType
    ) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(keyedSchema, .inMemory, in: directory)
        var expectedStore: [[UInt8]: String] = [:]
        for round in 0..<2 {
            let texts = (0..<40).map { _ in
                (0..<Int.random(in: 1...2, using: &random))
                    .map { _ in Self.textPieces.randomElement(using: &random)! }.joined()
            }
            var order: [[UInt8]] = []
            var last: [[UInt8]: String] = [:]
            for (index, text) in texts.enumerated() {
                let bytes = Array(text.utf8)
                if last.updateValue("r\(round)-\(index)", forKey: bytes) == nil { order.append(bytes) }
            }
            let labels = try stack.perform(synchronous: { tx in
                try tx.importUniqueObjects(
                    Into<Model>(),
                    sourceArray: texts.enumerated().map {
                        ImpKeyedRecord(id: makeID($1), label: "r\(round)-\($0)")
                    }
                ).map(\.label)
            })
            #expect(labels == order.map { last[$0]! }, "\(Model.self) seed \(seed) round \(round)")
            expectedStore.merge(last) { _, new in new }
        }
        let stored = try stack.fetchAll(From<Model>()).map(\.label).sorted()
        #expect(stored == expectedStore.values.sorted(), "\(Model.self) seed \(seed)")
    }

    @Test(arguments: [UInt64(1), 2, 3, 0x7E47])
    func randomTextIDsAreMatchedByTheirBytes(_ seed: UInt64) throws {
        try randomTextRounds(ImpTextKeyed.self, seed: seed) { $0 }
        try randomTextRounds(ImpOptionalTextKeyed.self, seed: seed) { $0 }
        try randomTextRounds(ImpSKUKeyed.self, seed: seed) { ImpSKU(rawValue: $0) }
    }
}
