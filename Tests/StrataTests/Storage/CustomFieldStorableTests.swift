import Foundation
import Strata
import Testing

// MARK: Model

/// A conformance of an app's own, as the protocol's documentation invites:
/// it returns its number as it is, NaN included, and checks nothing.
private struct Celsius: FieldStorable, Equatable {
    var degrees: Double
    static var storedType: StoredType { .real }
    func storedValue() throws -> StoredValue { .real(degrees) }
    init(degrees: Double) { self.degrees = degrees }
    init(storedValue: StoredValue) throws { degrees = try Double(storedValue: storedValue) }
}

private final class Reading: ManagedObject {
    @Field.Stored("seq") var seq: Int = 0
    @Field.Stored("temperature") var temperature = Celsius(degrees: 20)
    @Field.Stored("peak") var peak: Celsius? = nil
}

private let readingSchema = Schema("V1", entities: [Entity<Reading>("Reading")])

/// A NaN where a new object's value comes from: the default, or `dynamicInitialValue`.
private final class UnsetReading: ManagedObject {
    @Field.Stored("temperature") var temperature = Celsius(degrees: .nan)
}

private final class FreshReading: ManagedObject {
    @Field.Stored("temperature", dynamicInitialValue: { Celsius(degrees: .nan) })
    var temperature: Celsius
}

/// Random finite or infinite numbers, and NaNs of every sign and payload.
private func randomDegrees(_ random: inout SplitMix64, count: Int) -> [Double] {
    (0..<count).map { _ in
        switch random.next() % 4 {
        case 0: Double(bitPattern: random.next() | 0x7FF0_0000_0000_0001)  // a NaN, either sign
        case 1: [.infinity, -.infinity, 0, -0.0][Int(random.next() % 4)]
        default: Double(bitPattern: random.next() & ~0x7FF0_0000_0000_0000) * 1e6
        }
    }
}

// MARK: Tests

@Suite("FieldStorable conformances of an app's own")
@MainActor
struct CustomFieldStorableTests {
    /// Law: a value a custom conformance stores reads back as itself, or the
    /// commit fails with `.invalidValue` naming the field and stores nothing;
    /// a NaN, which SQLite turns into NULL, is never stored.
    @Test(arguments: StoreKind.allCases)
    func aNaNFromACustomConformanceIsRefusedAndTheRestRoundTrips(kind: StoreKind) throws {
        var random = SplitMix64.random()
        let seed = random.seed
        let directory = TemporaryDirectory()
        let stack = try makeStack(readingSchema, kind, in: directory)
        var kept: [Int: (Double, Double?)] = [:]
        for (seq, degrees) in randomDegrees(&random, count: 60).enumerated() {
            let peak: Double? = random.next() % 3 == 0 ? nil : randomDegrees(&random, count: 1)[0]
            let refused = degrees.isNaN || peak?.isNaN == true
            do {
                try stack.perform(synchronous: { tx in
                    let reading = tx.create(Into<Reading>())
                    reading.seq = seq
                    reading.temperature = Celsius(degrees: degrees)
                    reading.peak = peak.map(Celsius.init(degrees:))
                })
                #expect(!refused, "seed \(seed): \(degrees), \(String(describing: peak)) stored")
                kept[seq] = (degrees, peak)
            } catch {
                guard case let .invalidValue(entity, field, _) = error else {
                    Issue.record("seed \(seed): expected .invalidValue, got \(error)")
                    continue
                }
                #expect(refused, "seed \(seed): \(degrees) refused: \(error)")
                #expect(entity == "Reading")
                // Either NaN field when both are.
                let nanFields = [
                    degrees.isNaN ? "temperature" : nil, peak?.isNaN == true ? "peak" : nil,
                ]
                #expect(nanFields.contains(field), "seed \(seed): \(field)")
            }
        }
        #expect(kept.values.contains { !$0.0.isNaN }, "seed \(seed): something was stored")
        let readings = try stack.fetchAll(From<Reading>().orderBy(.ascending(\.$seq)))
        #expect(readings.map(\.seq) == kept.keys.sorted(), "seed \(seed): only valid commits")
        for reading in readings {
            guard let (degrees, peak) = kept[reading.seq] else { continue }
            #expect(reading.temperature.degrees.bitPattern == degrees.bitPattern, "seed \(seed)")
            #expect(reading.peak?.degrees.bitPattern == peak?.bitPattern, "seed \(seed)")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aNaNSetOnAHeldObjectFailsItsCommitAndKeepsTheStoredValue(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, id) = try Self.storedReading(kind, in: directory)
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                let reading = try #require(tx.edit(id))
                reading.temperature = Celsius(degrees: .nan)
                // The object shows what was set until the commit refuses it.
                #expect(reading.temperature.degrees.isNaN)
            })
        }
        if case let .invalidValue(entity, field, reason)? = error {
            #expect(entity == "Reading" && field == "temperature" && reason.contains("NaN"))
        } else {
            Issue.record("expected .invalidValue, got \(String(describing: error))")
        }
        #expect(try stack.fetchExisting(id)?.temperature == Celsius(degrees: 36.6))
    }

    /// A value the commit will refuse is a pending change, as in Core Data,
    /// where `hasChanges` is true until validation fails at the save: code
    /// that commits only `if tx.hasChanges` then sees the error instead of
    /// dropping the value. Setting the stored value back undoes the change.
    @Test(arguments: StoreKind.allCases)
    func aValueTheCommitWillRefuseIsAPendingChange(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let (stack, id) = try Self.storedReading(kind, in: directory)
        try stack.perform(synchronous: { tx in
            let reading = try #require(tx.edit(id))
            #expect(!reading.hasChanges && !tx.hasChanges)
            reading.temperature = Celsius(degrees: .nan)
            #expect(reading.hasChanges && tx.hasChanges)
            #expect(tx.updatedObjects(Reading.self).map(\.objectID) == [id])
            reading.temperature = Celsius(degrees: 36.6)
            #expect(!reading.hasChanges && !tx.hasChanges)
        })
    }

    /// A stack of `kind` holding one reading of 36.6 degrees, and its ID.
    private static func storedReading(
        _ kind: StoreKind, in directory: TemporaryDirectory
    ) throws -> (DataStack, ObjectID<Reading>) {
        let stack = try makeStack(readingSchema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let reading = tx.create(Into<Reading>())
            reading.temperature = Celsius(degrees: 36.6)
            return reading.objectID
        })
        return (stack, id)
    }

    /// A NaN default (also the first value a `dynamicInitialValue:` gives,
    /// which the field declares as its default) is refused with the schema.
    @Test(arguments: [false, true])
    func aNaNDefaultIsASchemaMistake(dynamic: Bool) throws {
        let entity: any AnyEntity =
            dynamic ? Entity<FreshReading>("Reading") : Entity<UnsetReading>("Reading")
        let stack = DataStack(Schema("V1", entities: [entity]))
        let error = #expect(throws: StrataError.self) {
            try stack.addStorageAndWait(InMemoryStore())
        }
        if case let .invalidSchema(entity, field, _)? = error {
            #expect(entity == "Reading" && field == "temperature")
        } else {
            Issue.record("expected .invalidSchema, got \(String(describing: error))")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aBulkSetToANaNFailsTheCallAndChangesNothing(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(readingSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in
            for seq in 0..<3 { tx.create(Into<Reading>()).seq = seq }
        })
        let error = #expect(throws: StrataError.self) {
            try stack.perform(synchronous: { tx in
                let nan = Celsius(degrees: .nan)
                _ = try tx.updateAll(From<Reading>(), .set(\.$temperature, to: nan))
            })
        }
        if case let .invalidValue(_, field, _)? = error {
            #expect(field == "temperature")
        } else {
            Issue.record("expected .invalidValue, got \(String(describing: error))")
        }
        let temperatures = try stack.fetchAll(From<Reading>()).map(\.temperature)
        #expect(temperatures == Array(repeating: Celsius(degrees: 20), count: 3))
    }

    /// A query that compares with a NaN of the app's own type fails with
    /// `.invalidValue` naming the field, as storing one does, where it
    /// compared with NULL and matched nothing; `==`, `in:` and `between:`,
    /// in the stack's reads and a transaction's.
    @Test(arguments: StoreKind.allCases)
    func aQueryComparingWithANaNFailsAsStoringOneDoes(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(readingSchema, kind, in: directory)
        try stack.perform(synchronous: { tx in tx.create(Into<Reading>()).seq = 1 })
        let nan = Celsius(degrees: .nan)
        let queries: [Where<Reading>] = [
            \.$temperature == nan,
            Where(\.$temperature, in: [Celsius(degrees: 20), nan]),
            \.$peak == nan,
        ]
        for query in queries {
            for read in [
                { try stack.fetchCount(From<Reading>().where(query)) },
                { try stack.perform(synchronous: { tx in try tx.fetchCount(From<Reading>().where(query)) }) },
            ] {
                let error = #expect(throws: StrataError.self) { _ = try read() }
                if case let .invalidValue(_, field, _)? = error {
                    #expect(["temperature", "peak"].contains(field), "\(query)")
                } else {
                    Issue.record("expected .invalidValue for \(query), got \(String(describing: error))")
                }
            }
        }
        #expect(try stack.fetchCount(From<Reading>().where(\.$temperature == Celsius(degrees: 20))) == 1)
    }
}
