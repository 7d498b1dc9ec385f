import Dispatch
@testable import Strata
import Synchronization
import Testing

/// A generic model class: its accessors make a new key path object on every
/// access, which the entry found last (by identity) never matches.
private final class FpBox<Tag>: ManagedObject {
    @Field.Stored("payload") var payload: Int = 0
}

/// `FieldPath.name` reads the entry found last without the lock: whatever
/// key paths other threads resolve meanwhile, each look-up gets its own
/// field's name.
@Suite("Query: a key path's field name, found last or in the table")
struct FieldPathTests {
    /// Key paths of several classes, the names they declare, and a look-up.
    static let cases: [(keyPath: String, name: String, lookUp: @Sendable () -> String)] = [
        ("MonItem.$rank", "rank", { FieldPath.name(\MonItem.$rank) }),
        ("MonItem.$label", "label", { FieldPath.name(\MonItem.$label) }),
        ("MonItem.$owner", "owner", { FieldPath.name(\MonItem.$owner) }),
        ("MonOwner.$name", "name", { FieldPath.name(\MonOwner.$name) }),
        ("DecLine.$price", "price", { FieldPath.name(\DecLine.$price) }),
        ("FpBox<Int>.$payload", "payload", { FieldPath.name(\FpBox<Int>.$payload) }),
        ("FpBox<String>.$payload", "payload", { String(keyPath: \FpBox<String>.$payload) }),
    ]

    @Test
    func lookUpsInTurnEachGetTheirOwnName() {
        for round in 0..<3 {
            for (keyPath, expected, name) in Self.cases {
                #expect(name() == expected, "round \(round): \(keyPath)")
                #expect(name() == expected, "again, round \(round): \(keyPath)")
            }
        }
    }

    @Test
    func lookUpsOnManyThreadsEachGetTheirOwnName() {
        let wrong = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var random = SplitMix64(seed: 0xF1E1D + UInt64(worker))
            for _ in 0..<5_000 {
                let (_, expected, name) = Self.cases[Int(random.next() % UInt64(Self.cases.count))]
                if name() != expected { wrong.add(1, ordering: .relaxed) }
            }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
