import Foundation
import Synchronization

/// The values of an `in` test, hashed so that membership costs one lookup
/// whatever the number of values, with exactly the equality SQL uses:
/// `StoredValue.sqliteOrder(a, b) == .orderedSame` between non-NULL values,
/// and NULL only matching NULL.
///
/// Integers and reals that are equal in value share a key (`1` and `1.0`);
/// an integer past 2^53 keeps its exact value, so `2^53 + 1` never matches the
/// real `2^53`. Text is keyed by its UTF-8 bytes, as SQLite's BINARY collation
/// compares it (Swift's `String` equality would merge canonically equivalent
/// spellings such as `"é"` and `"e\u{301}"`, which SQL keeps apart), and blobs
/// by their bytes.
///
/// The values are hashed on the first ``contains(_:)``, not when the set is
/// made: most `in` tests only ever run as SQL (a fetch, an import's look-up
/// of a batch of IDs), and never hash their values.
struct StoredValueSet: Sendable {
    /// The values in the order given, NULLs included.
    let values: [StoredValue]
    /// Whether one of the values is NULL.
    let containsNull: Bool
    /// Whether the caller vouched that no two values are equal as SQL
    /// compares them (see ``init(_:distinct:)``).
    private let isDistinct: Bool
    private let keys = LazyKeys()

    /// The set of `values`. `distinct`: the caller vouches that no two of
    /// them are equal as SQL compares them, as the unique import's text IDs,
    /// already told apart by their bytes, are not; ``distinctNonNullValues``
    /// then has nothing to drop and does not hash them again.
    init(_ values: [StoredValue], distinct: Bool = false) {
        self.values = values
        containsNull = values.contains { $0.isNull }
        isDistinct = distinct
    }

    /// The values that are not NULL, in the order given.
    var nonNullValues: [StoredValue] {
        containsNull ? values.filter { !$0.isNull } : values
    }

    /// The values that are not NULL, each once (the first of those SQL
    /// finds equal), in the order given.
    var distinctNonNullValues: [StoredValue] {
        if isDistinct { return nonNullValues }
        var seen = Set<Key>(minimumCapacity: values.count)
        return values.filter { value in Key(value).map { seen.insert($0).inserted } ?? false }
    }

    /// Whether `value` equals one of the values (NULL: whether NULL is one of them).
    func contains(_ value: StoredValue) -> Bool {
        guard let key = Key(value) else { return containsNull }
        return keys.withKeys(of: values) { $0.contains(key) }
    }

    /// The keys of the non-NULL values, made once by whichever thread asks
    /// first; a thread that loses the race drops its copy and reads the
    /// winner's.
    private final class LazyKeys: Sendable {
        private final class Built: Sendable {
            let keys: Set<Key>
            init(_ keys: Set<Key>) { self.keys = keys }
        }

        /// The address of a retained `Built` once made, 0 until then.
        private let built = Atomic<UInt>(0)

        func withKeys<Result>(of values: [StoredValue], _ body: (Set<Key>) -> Result) -> Result {
            let address = built.load(ordering: .acquiring)
            let made = address != 0 ? address : publish(values)
            return Self.unmanaged(made)._withUnsafeGuaranteedRef { body($0.keys) }
        }

        private func publish(_ values: [StoredValue]) -> UInt {
            var keys = Set<Key>(minimumCapacity: values.count)
            for value in values { if let key = Key(value) { keys.insert(key) } }
            let made = UInt(bitPattern: Unmanaged.passRetained(Built(keys)).toOpaque())
            let (exchanged, winner) = built.compareExchange(
                expected: 0, desired: made, successOrdering: .acquiringAndReleasing,
                failureOrdering: .acquiring)
            if exchanged { return made }
            Self.unmanaged(made).release()
            return winner
        }

        private static func unmanaged(_ address: UInt) -> Unmanaged<Built> {
            Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped)
        }

        deinit {
            let address = built.load(ordering: .acquiring)
            if address != 0 { Self.unmanaged(address).release() }
        }
    }

    /// A value reduced to what SQLite's equality sees; `nil` for NULL.
    private enum Key: Hashable {
        case integer(Int64)
        /// A real that no integer equals: a fraction, an infinity, a value
        /// outside Int64's range (or a NaN, which Strata never stores).
        case real(UInt64)
        /// Compared and hashed by its UTF-8 bytes (see ``Text``).
        case text(Text)
        case blob(Data)

        init?(_ value: StoredValue) {
            switch value {
            case .null: return nil
            case .integer(let integer): self = .integer(integer)
            case .real(let real):
                // -2^63 is exact in a Double and equals Int64.min; 2^63 is past Int64.max.
                if real.rounded(.towardZero) == real, real >= -9_223_372_036_854_775_808.0,
                    real < 9_223_372_036_854_775_808.0
                {
                    self = .integer(Int64(real))  // -0.0 becomes 0, as SQLite compares it
                } else {
                    self = .real(real.bitPattern)
                }
            case .text(let text): self = .text(Text(string: text))
            case .blob(let data): self = .blob(data)
            }
        }
    }

    /// A text compared and hashed by its UTF-8 bytes, as SQLite's BINARY
    /// collation compares it, without copying them out of the string.
    private struct Text: Hashable {
        var string: String

        static func == (lhs: Text, rhs: Text) -> Bool {
            lhs.string.hasSameUTF8(as: rhs.string)
        }

        func hash(into hasher: inout Hasher) {
            var string = string
            string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }
}
