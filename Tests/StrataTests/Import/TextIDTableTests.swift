import Testing

@testable import Strata

/// The unique import's deduplication of text IDs: each ID once, at its first
/// position, with the index of its last source, as a dictionary keyed by the
/// IDs' UTF-8 bytes gives (the store's unique index tells bytes apart).
@Suite("Import: the table of text IDs")
struct TextIDTableTests {
    /// IDs of every shape the hash reads differently: empty, shorter and
    /// longer than a word, past Swift's inline 15 bytes, non-ASCII (composed
    /// and decomposed é, ß, Turkish ı), and texts that differ in one byte.
    /// Non-ASCII IDs (where Swift's `==` is canonical equivalence: the
    /// Kelvin sign equals "K", bytes do not) send the table to its dictionary.
    static func randomID(_ random: inout SplitMix64, ascii: Bool) -> String? {
        let shapes = ["", "K", "SKU-", "a-rather-long-identifier-", "x"]
            + (ascii ? [] : ["é", "e\u{301}", "ß", "ı", "\u{212A}"])
        guard Int.random(in: 0..<25, using: &random) != 0 else { return nil }
        let shape = shapes[Int.random(in: 0..<shapes.count, using: &random)]
        return shape + String(Int.random(in: 0..<600, using: &random))
    }

    /// What the generic path computes, written plainly.
    static func reference(_ ids: [String?]) -> [(id: String, index: Int)] {
        var pending: [(id: String, index: Int)] = []
        var first: [[UInt8]: Int] = [:]
        for (index, id) in ids.enumerated() {
            guard let id else { continue }
            if let position = first[Array(id.utf8)] {
                pending[position].index = index
            } else {
                first[Array(id.utf8)] = pending.count
                pending.append((id, index))
            }
        }
        return pending
    }

    @Test(arguments: [UInt64(1), 2, 3, 0x1D5], [true, false])
    func uniqueTextIDsMatchADictionary(_ seed: UInt64, ascii: Bool) throws {
        var random = SplitMix64(seed: seed)
        let ids = (0..<Int.random(in: 0...3_000, using: &random)).map { _ in
            Self.randomID(&random, ascii: ascii)
        }
        let found = try BaseDataTransaction.uniqueTextIDs(of: ids) { $0 }
        let expected = Self.reference(ids)
        #expect(found.count == expected.count)
        let mismatch = zip(found.indices, expected).first { position, pair in
            !found[position].id.utf8.elementsEqual(pair.id.utf8)
                || found[position].index != pair.index
        }?.0
        #expect(mismatch == nil, "first difference at \(mismatch ?? -1)")
    }

    /// A table that fills (more IDs than it was sized for, as colliding IDs
    /// would make it) moves to its dictionary and keeps every answer.
    @Test(arguments: [UInt64(4), 5])
    func aFullTableFallsBackWithoutLosingPositions(_ seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = TextIDTable(capacity: 4)  // 16 slots
        var recorded: [String] = []
        var first: [String: Int] = [:]
        for _ in 0..<2_000 {
            let id = "id-\(Int.random(in: 0..<300, using: &random))"
            let position = table.firstPosition(of: id, digest: table.digestAhead(id), idAt: { recorded[$0] })
            #expect(position == first[id], "\(id)")
            if position == nil {
                first[id] = recorded.count
                recorded.append(id)
            }
        }
        #expect(table.fallback != nil)
        #expect(table.count == recorded.count)
    }

    /// As the import records IDs: a block's digests worked out (and their
    /// slots asked for) before any of the block is recorded, so that some
    /// are recorded after the table has moved to its dictionary, with a
    /// digest from before. Every answer stays the dictionary's.
    @Test(arguments: [UInt64(6), 7])
    func digestsWorkedOutAheadGiveTheSameAnswers(_ seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = TextIDTable(capacity: 8)  // 16 slots: full within the first blocks
        var recorded: [String] = []
        var first: [String: Int] = [:]
        var movedMidBlock = false
        for _ in 0..<150 {
            let block = (0..<TextIDTable.lookahead).map { _ in
                Int.random(in: 0..<20, using: &random) == 0
                    ? "é-\(Int.random(in: 0..<50, using: &random))"
                    : "id-\(Int.random(in: 0..<400, using: &random))"
            }
            let digests = block.map { table.digestAhead($0) }
            for (id, digest) in zip(block, digests) {
                if digest != nil && table.fallback != nil { movedMidBlock = true }
                let position = table.firstPosition(of: id, digest: digest, idAt: { recorded[$0] })
                #expect(position == first[id], "\(id)")
                if position == nil {
                    first[id] = recorded.count
                    recorded.append(id)
                }
            }
        }
        #expect(movedMidBlock)
        #expect(table.fallback != nil && table.count == recorded.count)
        #expect(table.digestAhead("id-1") == nil)
    }
}
