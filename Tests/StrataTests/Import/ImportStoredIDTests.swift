import Foundation
import Testing

@testable import Strata

/// A reading identified by when it was taken: a `Date` ID, which the store
/// keeps as seconds since 1970 and may read back a unit in the last place away.
final class ImpReading: ManagedObject, ImportableUniqueObject {
    @Field.Stored("takenAt", .unique) var takenAt: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("value") var value: Int = 0

    typealias ImportSource = (takenAt: Date, value: Int)

    static var uniqueIDKeyPath: KeyPath<ImpReading, Field.Stored<Date>> { \.$takenAt }

    static func uniqueID(from source: ImportSource, in transaction: BaseDataTransaction) -> Date? {
        source.takenAt
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        value = source.value
    }
}

/// A file identified by its name: a text ID, which the store's unique index
/// compares by its bytes.
final class ImpFile: ManagedObject, ImportableUniqueObject {
    @Field.Stored("name", .unique) var name: String = ""
    @Field.Stored("size") var size: Int = 0

    typealias ImportSource = (name: String, size: Int)

    static var uniqueIDKeyPath: KeyPath<ImpFile, Field.Stored<String>> { \.$name }

    static func uniqueID(
        from source: ImportSource, in transaction: BaseDataTransaction
    ) -> String? {
        source.name
    }

    func update(from source: ImportSource, in transaction: BaseDataTransaction) throws {
        size = source.size
    }
}

/// A unique import matches IDs as the store holds them, so an ID whose
/// stored form reads back as another value still finds its object.
@Suite("Import: IDs are matched as stored")
@MainActor
struct ImportStoredIDTests {
    private static let schema = Schema(
        "R1", entities: [Entity<ImpReading>("ImpReading"), Entity<ImpFile>("ImpFile")])

    /// Names whose pieces Swift's `==` takes for one (composed and decomposed
    /// é and Å, the Kelvin and Ångström signs) while their bytes differ, as
    /// file names from different systems do.
    private static func names(_ random: inout SplitMix64, count: Int) -> [String] {
        let pieces = ["\u{E9}", "e\u{301}", "K", "\u{212A}", "\u{C5}", "A\u{30A}", "\u{212B}", "x"]
        return (0..<count).map { _ in
            (0..<(1 + random.next() % 3)).map { _ in pieces[Int(random.next() % 8)] }.joined()
        }
    }

    /// Arbitrary instants, as `Date()` gives them: most do not read back equal.
    private static func instants(_ random: inout SplitMix64, count: Int) -> [Date] {
        (0..<count).map { _ in
            Date(timeIntervalSinceReferenceDate: Double(random.next() % 1_000_000_000)
                + Double(random.next() % 1_000_000_007) / 1_000_000_007)
        }
    }

    /// Importing the same dated records again, in a later transaction or the
    /// same one, one by one or as an array, updates the objects: no duplicate,
    /// no unique-constraint failure.
    @Test(arguments: StoreKind.allCases, [UInt64(1), 2, 0xDA7E])
    func dateIDsThatDoNotReadBackEqualStillMatch(kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(Self.schema, kind, in: directory)
        let stamps = Self.instants(&random, count: 40)
        try stack.perform(synchronous: { tx in
            _ = try tx.importUniqueObjects(Into<ImpReading>(), sourceArray: stamps.map { ($0, 1) })
            // In the same transaction: matched among the objects it created.
            _ = try tx.importUniqueObjects(Into<ImpReading>(), sourceArray: stamps.prefix(5).map { ($0, 2) })
        })
        let updated = try stack.perform(synchronous: { tx in
            try tx.importUniqueObjects(Into<ImpReading>(), sourceArray: stamps.map { ($0, 3) }).count
        })
        #expect(updated == stamps.count, "seed \(seed)")
        let single = try stack.perform(synchronous: { tx in
            try tx.importUniqueObject(Into<ImpReading>(), source: (stamps[7], 4))?.objectID
        })
        let readings = try stack.fetchAll(From<ImpReading>())
        #expect(readings.count == stamps.count, "seed \(seed)")
        #expect(readings.filter { $0.value != 3 }.map(\.objectID) == [single].compactMap { $0 }, "seed \(seed)")
    }

    /// Law: after each import, the store holds one file per name as its
    /// bytes spell it, sized by the last record of that name: two names
    /// Swift takes for one are two files, as the unique index has them.
    @Test(arguments: StoreKind.allCases)
    func textIDsAreOneOnlyWhenTheirBytesAre(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let directory = TemporaryDirectory()
        let stack = try makeStack(Self.schema, kind, in: directory)
        var expected: [[UInt8]: Int] = [:]
        for round in 0..<4 {
            let records = Self.names(&random, count: 40).enumerated().map { index, name in
                (name: name, size: round * 100 + index)
            }
            try stack.perform(synchronous: { tx in
                if random.next() % 2 == 0 {
                    _ = try tx.importUniqueObjects(Into<ImpFile>(), sourceArray: records)
                } else {
                    for record in records {
                        _ = try tx.importUniqueObject(Into<ImpFile>(), source: record)
                    }
                }
            })
            for record in records { expected[Array(record.name.utf8)] = record.size }
            let files = try stack.fetchAll(From<ImpFile>())
            let stored = Dictionary(
                files.map { (Array($0.name.utf8), $0.size) }, uniquingKeysWith: { _, _ in -1 })
            #expect(files.count == expected.count, "seed \(seed), round \(round)")
            #expect(stored == expected, "seed \(seed), round \(round)")
        }
    }
}
