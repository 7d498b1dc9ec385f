/// Where a member sorts in a monitored list: its sort keys (the section key
/// first) encoded as bytes whose unsigned lexicographic order is the list's
/// order, then its row ID.
///
/// The first 24 bytes live in three words, so comparing two members is
/// usually three integer comparisons with no retain, no allocation and no
/// switch over storage classes; a longer encoding (long text, many keys)
/// keeps the rest in `tail`. `ListKeyTests` checks the order against
/// ``StoredValue/sqliteOrder(_:_:)`` on random values.
struct ListKey {
    private(set) var first: UInt64 = 0
    private(set) var second: UInt64 = 0
    private(set) var third: UInt64 = 0
    private(set) var tail: [UInt8]?
    let rowID: Int64

    /// Whether this key sorts before `other` (the row ID breaks ties).
    static func < (lhs: ListKey, rhs: ListKey) -> Bool {
        if lhs.first != rhs.first { return lhs.first < rhs.first }
        if lhs.second != rhs.second { return lhs.second < rhs.second }
        if lhs.third != rhs.third { return lhs.third < rhs.third }
        if lhs.tail != nil || rhs.tail != nil, let order = compareTails(lhs.tail ?? [], rhs.tail ?? []) {
            return order
        }
        return lhs.rowID < rhs.rowID
    }

    /// Whether the sort keys are the same, whatever the row IDs.
    func sortsWith(_ other: ListKey) -> Bool {
        first == other.first && second == other.second && third == other.third && tail == other.tail
    }

    /// `true` when `lhs` comes first, `false` when `rhs` does, `nil` when equal.
    private static func compareTails(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool? {
        for (left, right) in zip(lhs, rhs) where left != right { return left < right }
        return lhs.count == rhs.count ? nil : lhs.count < rhs.count
    }

    // MARK: Encoding

    /// The key of a member whose sort-key values are `values`, one per spec.
    init(_ values: [StoredValue], specs: [ListSortKey], rowID: Int64) {
        var writer = Writer()
        for (value, spec) in zip(values, specs) {
            writer.append(value, spec.rule)
        }
        self.init(writer, rowID: rowID)
    }

    /// How one sort key's values are encoded: plain values, so that encoding
    /// a member's keys copies no key path.
    struct Rule {
        let ascending: Bool
        let nullsFirst: Bool
        let options: TextOptions
        /// Decimals are encoded by their sort value (``DecimalOrdering``).
        let isDecimal: Bool
    }

    /// The key a writer has encoded, for the member with `rowID`.
    init(_ writer: Writer, rowID: Int64) {
        self.rowID = rowID
        (first, second, third, tail) = (writer.words.0, writer.words.1, writer.words.2, writer.tail)
    }

    /// Builds the encoding a byte at a time: the first 24 bytes into the
    /// words (big-endian, so word order is byte order), the rest into a tail.
    /// Values go in one spec at a time, in the specs' order.
    struct Writer {
        private(set) var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        private(set) var tail: [UInt8]?
        private var count = 0
        /// XOR-ed into every byte of a descending key, which reverses its order.
        private var mask: UInt8 = 0

        mutating func append(_ value: StoredValue, _ rule: Rule) {
            mask = rule.ascending ? 0 : 0xFF
            switch value {
            case .null:
                // Written unmasked: below every tag when NULLs come first, above when last.
                put(rule.nullsFirst ? 0x00 : 0xFF, count: 1)
            case .integer(let integer):
                appendNumber(Double(integer), tieBreak: Self.tieBreak(integer))
            case .real(let real):
                appendNumber(real == 0 ? 0 : real, tieBreak: 0)  // -0.0 sorts with 0.0, as in SQLite
            case .text(let text):
                byte(0x20)
                let folded = rule.options.isEmpty ? text : TextMatching.fold(text, rule.options)
                appendEscaped(folded.utf8)
            case .blob(let data):
                byte(0x30)
                appendEscaped(data)
            }
        }

        /// Integers and reals sort together and exactly, as SQLite compares
        /// them: first by the nearest double, then by how far the integer
        /// is from that double (always within ±1,024).
        private mutating func appendNumber(_ approximation: Double, tieBreak: Int16) {
            byte(0x10)
            let bits = approximation.bitPattern
            let ordered = approximation.sign == .minus ? ~bits : bits | (1 << 63)
            put(ordered ^ wideMask, count: 8)
            let biased = UInt16(bitPattern: tieBreak) ^ 0x8000
            put(UInt64(biased) ^ (wideMask & 0xFFFF), count: 2)
        }

        /// The integer minus the double nearest to it, exactly.
        private static func tieBreak(_ integer: Int64) -> Int16 {
            let nearest = Double(integer)
            // 2^63 itself is past Int64.max: subtract it in two steps.
            let difference = nearest >= 9_223_372_036_854_775_808.0
                ? integer &- Int64.max &- 1
                : integer - Int64(nearest)
            return Int16(difference)
        }

        /// Bytes with 0x00 escaped as 0x00 0xFF and ended by 0x00 0x00, so a
        /// shorter text that is a prefix of a longer one sorts first (BINARY).
        private mutating func appendEscaped<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            for value in bytes {
                byte(value)
                if value == 0 { byte(0xFF) }
            }
            byte(0)
            byte(0)
        }

        /// `mask` in each of a word's bytes.
        private var wideMask: UInt64 { UInt64(mask) &* 0x0101_0101_0101_0101 }

        private mutating func byte(_ value: UInt8) {
            put(UInt64(value ^ mask), count: 1)
        }

        /// Appends the `count` (1 through 8) low bytes of `value`, most
        /// significant first: a number's eight bytes in at most two steps
        /// while they fit the words, not eight.
        private mutating func put(_ value: UInt64, count bytes: Int) {
            var left = bytes
            while left > 0 {
                let word = count / 8
                guard word < 3 else {
                    if tail == nil { tail = [] }
                    for index in stride(from: left - 1, through: 0, by: -1) {
                        tail?.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * index)))
                    }
                    count += left
                    return
                }
                // The next bytes go into this word's free low bytes.
                let room = 8 - count % 8
                let taken = min(room, left)
                let chunk = (value >> UInt64(8 * (left - taken)))
                    & (UInt64.max >> UInt64(64 - 8 * taken))
                let placed = chunk << UInt64(8 * (room - taken))
                switch word {
                case 0: words.0 |= placed
                case 1: words.1 |= placed
                default: words.2 |= placed
                }
                count += taken
                left -= taken
            }
        }
    }
}
