import Foundation
@testable import Strata
import Testing

/// `ListKey` replaces a comparator that switched over storage classes with
/// byte strings, so every test here holds the bytes to that comparator's
/// answer: a wrong byte anywhere shows up as a list that SQLite orders
/// differently from the monitor.
@Suite("ListKey: byte order is SQLite's order")
struct ListKeyTests {
    // MARK: The reference

    /// The order the monitor promises, written as plainly as possible on top
    /// of `sqliteOrder`, which other tests already hold to SQL itself.
    static func referenceOrder(_ a: [StoredValue], _ b: [StoredValue], _ specs: [ListSortKey]) -> ComparisonResult {
        for (index, spec) in specs.enumerated() {
            let (x, y) = (a[index], b[index])
            if x.isNull != y.isNull { return x.isNull == spec.nullsFirst ? .orderedAscending : .orderedDescending }
            var order = StoredValue.sqliteOrder(folded(x, spec), folded(y, spec))
            if !spec.ascending { order = order == .orderedAscending ? .orderedDescending : (order == .orderedDescending ? .orderedAscending : order) }
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }

    static func folded(_ value: StoredValue, _ spec: ListSortKey) -> StoredValue {
        guard case .text(let text) = value, !spec.options.isEmpty else { return value }
        return .text(TextMatching.fold(text, spec.options))
    }

    static func referenceLess(_ a: [StoredValue], _ ra: Int64, _ b: [StoredValue], _ rb: Int64, _ specs: [ListSortKey]) -> Bool {
        switch referenceOrder(a, b, specs) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return ra < rb
        }
    }

    // MARK: Values on the edges

    /// Integers where a double can no longer hold them exactly (±2^53) or
    /// where the nearest double leaves Int64's range (2^63).
    static let integers: [Int64] = [
        .min, .min + 1, .min + 1023, .min + 1025, -9_007_199_254_740_993, -9_007_199_254_740_992, -2, -1, 0, 1, 2,
        9_007_199_254_740_991, 9_007_199_254_740_992, 9_007_199_254_740_993, 9_007_199_254_740_995,
        1 << 62, .max - 1536, .max - 1024, .max - 512, .max - 1, .max,
    ]
    static let reals: [Double] = ([
        0.0, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        9.223372036854775807e18, -9.223372036854775808e18, 9_007_199_254_740_992.0, -9_007_199_254_740_992.0,
        0.5, -0.5, 1.5, -1.5, 4_503_599_627_370_495.5, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
    ] + integers.flatMap { [Double($0), Double($0).nextUp, Double($0).nextDown] })
        .reduce(into: [Double]()) { unique, real in
            // By bit pattern, so that -0.0 survives beside 0.0.
            if !unique.contains(where: { $0.bitPattern == real.bitPattern }) { unique.append(real) }
        }
    /// Texts that probe the NUL escape, prefixes, folding, multi-byte UTF-8
    /// and encodings longer than the three inline words (24 bytes).
    static let texts: [String] = [
        "", "a", "a\0", "a\0b", "a\0\0", "\0", "ab", "A", "AB", "b", "é", "e\u{301}", "e", "E", "É", "ê",
        "😀", "👍🏽", "\u{01}", "a\u{01}", "ÿ", "\u{7F}", "\u{FFFF}", "\u{10FFFF}", "ß", "ǅ",
        String(repeating: "x", count: 30), String(repeating: "x", count: 30) + "\0",
        String(repeating: "x", count: 30) + "y", String(repeating: "É", count: 20),
    ]
    // Blobs and the edges that hold them are made on each use, not kept in
    // statics: a `Data` past 14 bytes keeps its storage behind a pointer with
    // an enum tag in its top bits, which LeakSanitizer does not recognize, so
    // one held to the end of the process is reported as a leak.
    static var blobs: [Data] {
        [
            Data(), Data([0]), Data([0, 0]), Data([0, 0xFF]), Data([0xFF]), Data([0xFF, 0xFF]), Data([1]),
            Data(repeating: 0, count: 30), Data(repeating: 0xAB, count: 40), Data(repeating: 0xAB, count: 41),
        ]
    }
    static var edges: [StoredValue] {
        [.null] + integers.map { .integer($0) } + reals.map { .real($0) } + texts.map { .text($0) }
            + blobs.map { .blob($0) }
    }

    static let optionChoices: [TextOptions] = [[], .caseInsensitive, .diacriticInsensitive]

    static func spec(_ index: Int, ascending: Bool, nullsFirst: Bool, options: TextOptions) -> ListSortKey {
        ListSortKey(path: ValuePath(field: "f\(index)"), ascending: ascending, options: options, nullsFirst: nullsFirst)
    }

    static func show(_ value: StoredValue) -> String {
        switch value {
        case .text(let text): return ".text(\(String(reflecting: text)) utf8 \(Array(text.utf8)))"
        case .blob(let data): return ".blob(\(Array(data)))"
        case .real(let real): return ".real(\(real) bits 0x\(String(real.bitPattern, radix: 16)))"
        default: return "\(value)"
        }
    }

    static func show(_ specs: [ListSortKey]) -> String {
        specs.map { "\($0.ascending ? "asc" : "desc") nulls\($0.nullsFirst ? "First" : "Last") options \($0.options.rawValue)" }
            .joined(separator: ", ")
    }

    // MARK: Random values

    static func randomValue(_ random: inout SplitMix64) -> StoredValue {
        switch random.next() % 10 {
        case 0: return .null
        case 1, 2: return random.next() % 2 == 0 ? edges.randomElement(using: &random)! : .integer(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 3, 4: return random.next() % 2 == 0 ? .real(reals.randomElement(using: &random)!) : .real(Double(Int64(random.next() % 2001) - 1000) / 8)
        case 5, 6, 7:
            if random.next() % 2 == 0 { return .text(texts.randomElement(using: &random)!) }
            let alphabet = ["a", "A", "b", "\0", "é", "e\u{301}", "É", "😀", "\u{01}", "ÿ", "z", "\u{10FFFF}"]
            return .text((0..<(random.next() % 40)).map { _ in alphabet.randomElement(using: &random)! }.joined())
        default:
            return .blob(random.next() % 2 == 0 ? blobs.randomElement(using: &random)! : random.bytes(Int(random.next() % 40)))
        }
    }

    /// A value equal to, or just beside, `value`: independent random values
    /// almost never tie, and ties are where an encoding goes wrong.
    static func relatedValue(_ value: StoredValue, _ random: inout SplitMix64) -> StoredValue {
        switch (value, random.next() % 4) {
        case (_, 0): return value
        case (.integer(let integer), let pick):
            return pick == 1 ? .real(Double(integer)) : .real(pick == 2 ? Double(integer).nextUp : Double(integer).nextDown)
        case (.real(let real), let pick):
            if pick == 1, let exact = Int64(exactly: real) { return .integer(exact) }
            return .real(pick == 2 ? real.nextUp : (pick == 3 ? real.nextDown : -real))
        case (.text(let text), let pick):
            return .text(pick == 1 ? text.uppercased() : (pick == 2 ? text + "\0" : TextMatching.fold(text, .diacriticInsensitive)))
        case (.blob(let data), let pick):
            return .blob(pick == 1 ? data + [0] : (pick == 2 ? data.dropLast() : data + [0xFF]))
        default: return randomValue(&random)
        }
    }

    // MARK: Tests

    @Test(arguments: [UInt64(1), 2, 3, 0xDEAD_BEEF, 0x5EED_0000_0000_0001])
    func randomKeysCompareAsTheReferenceDoes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var failures: [String] = []
        for pair in 0..<6000 {
            let specs = (0..<Int(random.next() % 4 + 1)).map { index in
                Self.spec(index, ascending: random.next() % 2 == 0, nullsFirst: random.next() % 2 == 0,
                          options: Self.optionChoices.randomElement(using: &random)!)
            }
            let a = specs.map { _ in Self.randomValue(&random) }
            let b = a.map { random.next() % 2 == 0 ? Self.relatedValue($0, &random) : Self.randomValue(&random) }
            // Few row IDs, so that the row-ID tie-break and equal keys come up too.
            let (ra, rb) = (Int64(random.next() % 3), Int64(random.next() % 3))
            let (keyA, keyB) = (ListKey(a, specs: specs, rowID: ra), ListKey(b, specs: specs, rowID: rb))
            let expected = (Self.referenceLess(a, ra, b, rb, specs), Self.referenceLess(b, rb, a, ra, specs))
            let same = Self.referenceOrder(a, b, specs) == .orderedSame
            if (keyA < keyB, keyB < keyA) != expected || keyA.sortsWith(keyB) != same {
                failures.append("""
                    seed \(seed) pair \(pair): specs [\(Self.show(specs))]
                      a = \(a.map(Self.show)) row \(ra)
                      b = \(b.map(Self.show)) row \(rb)
                      a<b \(keyA < keyB) b<a \(keyB < keyA) sortsWith \(keyA.sortsWith(keyB)); \
                    expected a<b \(expected.0) b<a \(expected.1) same \(same)
                    """)
            }
        }
        let disagreements = failures.count
        #expect(disagreements == 0, "seed \(seed): \(disagreements) disagreements, first:\n\(failures.prefix(8).joined(separator: "\n"))")
    }

    /// Every pair of edge values under one spec: cheap enough to do all of
    /// them, so no hard case depends on the generator's luck.
    @Test(arguments: [true, false], [true, false])
    func everyPairOfEdgeValuesComparesAsTheReferenceDoes(ascending: Bool, nullsFirst: Bool) {
        for options in Self.optionChoices {
            let specs = [Self.spec(0, ascending: ascending, nullsFirst: nullsFirst, options: options)]
            let edges = Self.edges
            let keys = edges.map { ListKey([$0], specs: specs, rowID: 0) }
            var failures: [String] = []
            for i in keys.indices {
                for j in keys.indices {
                    let order = Self.referenceOrder([edges[i]], [edges[j]], specs)
                    if (keys[i] < keys[j]) != (order == .orderedAscending) || keys[i].sortsWith(keys[j]) != (order == .orderedSame) {
                        failures.append("\(Self.show(edges[i])) vs \(Self.show(edges[j])): key < \(keys[i] < keys[j]), "
                            + "sortsWith \(keys[i].sortsWith(keys[j])), reference \(order.rawValue)" as String)
                    }
                }
            }
            let first = failures.prefix(8).joined(separator: "\n")
            let disagreements = failures.count
            #expect(disagreements == 0, "edge pairs, specs [\(Self.show(specs))]: \(disagreements) disagreements, first:\n\(first)")
        }
    }

    @Test(arguments: [UInt64(11), 12, 13, 14])
    func keysSortAsTheReferenceSortsAndNeverPrecedeThemselves(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let specs = (0..<Int(random.next() % 3 + 1)).map { index in
            Self.spec(index, ascending: random.next() % 2 == 0, nullsFirst: random.next() % 2 == 0,
                      options: Self.optionChoices.randomElement(using: &random)!)
        }
        // Values drawn from a small pool, so that many members tie on a spec.
        let pool = (0..<40).map { _ in Self.randomValue(&random) }
        let rowIDs = Array(Int64(0)..<400).shuffled(using: &random)
        let members = rowIDs.map { rowID in (values: specs.map { _ in pool.randomElement(using: &random)! }, rowID: rowID) }
        let keys = members.map { ListKey($0.values, specs: specs, rowID: $0.rowID) }
        for (member, key) in zip(members, keys) {
            #expect(!(key < key), "seed \(seed): a key precedes itself: \(member.values.map(Self.show)) row \(member.rowID)")
        }
        let byKey = keys.sorted(by: <).map(\.rowID)
        let byReference = members.sorted { Self.referenceLess($0.values, $0.rowID, $1.values, $1.rowID, specs) }.map(\.rowID)
        let difference = byKey.indices.first { byKey[$0] != byReference[$0] } ?? -1
        #expect(byKey == byReference, "seed \(seed), specs [\(Self.show(specs))]: first difference at \(difference)")
    }
}
