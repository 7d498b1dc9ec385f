import CSQLite

/// Finds repeated text IDs among an import's sources: each ID's first
/// position, recorded as the import lists them.
///
/// A `[String: Int]` hashed every ID with SipHash and kept a 24-byte bucket
/// per entry, faulted in fresh by every import: deduplicating was 13–16% of
/// a 100k-record import's transaction. This table keeps 8 bytes a slot (32
/// bits of the hash and the position) and hashes the UTF-8 bytes a word at a
/// time with a seed drawn once per process; the IDs themselves stay where
/// the caller keeps them, read back through `idAt` to confirm a match.
///
/// IDs are one when their UTF-8 bytes are, as the store's unique index and
/// the look-up's `IN (...)` compare them: Swift's `==` on texts is canonical
/// equivalence ("é" composed equals "e" and a combining accent, and the
/// Kelvin sign equals "K"), which merged two records of different IDs into
/// one object.
///
/// Two cases go to a `Dictionary` instead (keyed by bytes, ``StoredValue/ExactKey``):
/// the table moves what it holds into one and uses it from then on.
/// - An ID that is not ASCII, which this table does not hash.
/// - A probe run grown long: the hash is not SipHash, and IDs chosen to
///   collide must not cost more than they did before.
@usableFromInline
struct TextIDTable {
    /// 0: empty; otherwise the hash's high 32 bits above `position + 1`.
    @usableFromInline var slots: [UInt64]
    @usableFromInline let mask: Int
    /// How many positions are recorded (0 ..< count).
    @usableFromInline var count = 0
    /// Set once a probe ran too long: the positions by ID, from then on.
    @usableFromInline var fallback: [StoredValue.ExactKey: Int]?

    /// Longer probe runs than this mean colliding IDs, not bad luck: the
    /// table holds at most half as many entries as it has slots.
    @usableFromInline static let longestProbe = 64

    @usableFromInline static let processSeed = UInt64.random(in: .min ... .max)
    /// The process's seed, read once per table rather than once per ID.
    @usableFromInline let seed = Self.processSeed

    /// A table for up to `capacity` IDs (at most `UInt32.max - 1`).
    @inlinable
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        mask = size - 1
    }

    /// How many IDs an import hashes ahead of the one it records (see
    /// ``digestAhead(_:)``): enough for their cache misses to overlap, few
    /// enough that their slots are still cached when their turn comes.
    @inlinable static var lookahead: Int { 16 }

    /// `id`'s digest (`nil` for a text that is not ASCII, or once the table
    /// has moved into its dictionary), and a hint to the processor to fetch
    /// its first slot into the cache. A table of a million IDs is 16 MB, and
    /// a slot read at random waited for memory each time: an import hashes
    /// ``lookahead`` IDs ahead of the one it records, so that the fetches
    /// run together.
    @inlinable
    func digestAhead(_ id: String) -> UInt64? {
        guard fallback == nil, let digest = asciiHash(id) else { return nil }
        slots.withUnsafeBufferPointer { slots in
            strata_prefetch(slots.baseAddress! + (Int(truncatingIfNeeded: digest) & mask))
        }
        return digest
    }

    /// The first position of `id` if it was recorded before; otherwise
    /// records it at the next position (`count`) and returns `nil`. `digest`
    /// is what ``digestAhead(_:)`` gave for `id` (`nil` when the text is not
    /// ASCII or the table had moved into its dictionary); `idAt` gives the
    /// ID recorded at a position.
    @inlinable
    mutating func firstPosition(of id: String, digest: UInt64?, idAt: (Int) -> String) -> Int? {
        if fallback != nil { return fallbackPosition(of: id) }
        guard let digest else { return fallBack(idAt: idAt, id) }
        let tag = digest & 0xFFFF_FFFF_0000_0000
        var slot = Int(truncatingIfNeeded: digest) & mask
        for _ in 0..<Self.longestProbe {
            let entry = slots[slot]
            if entry == 0 {
                count += 1
                slots[slot] = tag | UInt64(count)
                return nil
            }
            if entry & 0xFFFF_FFFF_0000_0000 == tag {
                let position = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                if idAt(position) == id { return position }
            }
            slot = (slot + 1) & mask
        }
        return fallBack(idAt: idAt, id)
    }

    /// Moves every recorded position into the dictionary, then looks `id` up there.
    @usableFromInline
    mutating func fallBack(idAt: (Int) -> String, _ id: String) -> Int? {
        var positions: [StoredValue.ExactKey: Int] = [:]
        positions.reserveCapacity(slots.count / 2)
        for position in 0..<count {
            positions[StoredValue.ExactKey(.text(idAt(position)))] = position
        }
        fallback = positions
        slots = []
        return fallbackPosition(of: id)
    }

    /// ``firstPosition(of:digest:idAt:)`` once the table has moved into its dictionary.
    @usableFromInline
    mutating func fallbackPosition(of id: String) -> Int? {
        let key = StoredValue.ExactKey(.text(id))
        if let first = fallback![key] { return first }
        fallback![key] = count
        count += 1
        return nil
    }

    /// A seeded 64-bit hash of the UTF-8 bytes, eight at a time; `nil` for
    /// a text that is not ASCII.
    @inlinable
    func asciiHash(_ text: String) -> UInt64? {
        var text = text
        return text.withUTF8 { bytes in
            var digest = seed ^ (UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
            var highBits: UInt64 = 0
            let raw = UnsafeRawBufferPointer(bytes)
            var offset = 0
            while offset + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                highBits |= word
                digest = Self.mix(digest ^ word)
                offset += 8
            }
            if offset < raw.count {
                var word: UInt64 = 0
                for index in offset..<raw.count {
                    word |= UInt64(raw[index]) << UInt64(8 * (index - offset))
                }
                highBits |= word
                digest = Self.mix(digest ^ word)
            }
            return highBits & 0x8080_8080_8080_8080 == 0 ? Self.mix(digest) : nil
        }
    }

    /// One round of a 64-bit finalizer: every input bit reaches every output bit.
    @inlinable
    static func mix(_ value: UInt64) -> UInt64 {
        var value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
