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

/// A unique import matches IDs as the store holds them, so an ID whose
/// stored form reads back as another value still finds its object.
@Suite("Import: IDs are matched as stored")
@MainActor
struct ImportStoredIDTests {
    private static let schema = Schema("R1", entities: [Entity<ImpReading>("ImpReading")])

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
}
