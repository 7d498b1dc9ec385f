import Foundation
import Testing
@testable import Strata

// The model is `BatchRow` (Context/RowBatchTests.swift): a field of each kind a
// row batch encodes differently.

private struct Expected: Equatable, CustomStringConvertible {
    var k = 0, name = "", note: String? = nil, data: Data? = nil, score = 0.0
    init() {}
    init(_ o: BatchRow) { k = o.k; name = o.name; note = o.note; data = o.data; score = o.score }
    var description: String { "k=\(k) name=\(name.prefix(10))(\(name.utf8.count)) note=\(note.map { "\($0.utf8.count)" } ?? "nil") data=\(data?.count ?? -1) score=\(score)" }
}

private func randomString(_ g: inout SplitMix64) -> String {
    switch g.next() % 10 {
    case 0: return ""
    case 1: return String(repeating: "L", count: 65_536 + Int(g.next() % 100))
    case 2: return "nul\u{0}in\u{0}side"
    case 3: return "é🎉" + String(g.next() % 1000)
    default: return String(repeating: "s", count: Int(g.next() % 40))
    }
}

private func randomData(_ g: inout SplitMix64) -> Data? {
    switch g.next() % 6 {
    case 0: return nil
    case 1: return Data()
    case 2: return g.bytes(70_000 + Int(g.next() % 50))
    default: return g.bytes(Int(g.next() % 30))
    }
}

private func mutate(_ v: inout Expected, _ g: inout SplitMix64) {
    switch g.next() % 5 {
    case 0: v.k = Int(Int64(bitPattern: g.next()))
    case 1: v.name = randomString(&g)
    case 2: v.note = g.next() % 3 == 0 ? nil : randomString(&g)
    case 3: v.data = randomData(&g)
    default: v.score = Double(Int64(bitPattern: g.next() % 1_000_000)) / 7
    }
}

private func assign(_ o: BatchRow, _ v: Expected) {
    o.k = v.k; o.name = v.name; o.note = v.note; o.data = v.data; o.score = v.score
}

struct AbandonRound: Error {}

/// Random transactions over fetched objects (equal and unequal assignments,
/// whole-row reads, commits, thrown errors, failed commits) keep change
/// tracking exact, the main context equal to the committed data, and objects
/// kept from a transaction or an old fetch holding what they should.
@Suite("Change tracking over fetched objects, on random transactions")
struct ChangeTrackingPropertyTests {
    @Test(arguments: [UInt64(1), 2, 3, 4]) @MainActor
    func randomTransactionsKeepMainAndTrackingExact(seed: UInt64) throws {
        var g = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(batchSchema, seed % 2 == 0 ? .file : .inMemory, in: directory)
        var shadow: [Int64: Expected] = [:]
        try stack.perform(synchronous: { tx in
            for _ in 0..<1_500 {
                let o = tx.create(Into<BatchRow>())
                var v = Expected()
                for _ in 0..<3 { mutate(&v, &g) }
                assign(o, v)
                shadow[o.objectID.rowID] = v
            }
        })
        var keptMain = try stack.fetchAll(From<BatchRow>())
        var keptTx: [(BatchRow, Expected)] = []
        for round in 0..<40 {
            var pending = shadow
            let outcome = g.next() % 4  // 0,1: commit; 2: throw; 3: NaN (failed commit)
            var localG = g
            do {
                try stack.perform(synchronous: { tx in
                    let objects = try tx.fetchAll(From<BatchRow>())
                    #expect(objects.count == shadow.count)
                    for _ in 0..<60 {
                        let o = objects[Int(localG.next() % UInt64(objects.count))]
                        var v = pending[o.rowID]!
                        #expect(Expected(o) == v, "round \(round) seed \(seed) before")
                        switch localG.next() % 4 {
                        case 0: assign(o, v)  // equal values
                        case 1: _ = o.values
                        default: mutate(&v, &localG); assign(o, v)
                        }
                        pending[o.rowID] = v
                        let committed = shadow[o.rowID]!
                        #expect(o.hasChanges == (v != committed), "round \(round) seed \(seed): hasChanges \(o.hasChanges) \(v) vs \(committed)")
                        #expect(Expected(o) == v)
                        if localG.next() % 10 == 0, keptTx.count < 300 { var marker = Expected(); marker.k = Int.min + 7; keptTx.append((o, marker)) }
                    }
                    let anyChange = pending != shadow
                    #expect(tx.hasChanges == anyChange, "round \(round) seed \(seed) tx.hasChanges")
                    if outcome == 2 { throw AbandonRound() }
                    if outcome == 3 { objects[0].score = .nan }
                })
            } catch {}
            g = localG
            let before = shadow
            if outcome < 2 { shadow = pending }
            // Objects kept from the transaction hold what it ended with, for good.
            for i in keptTx.indices where keptTx[i].1.k == Int.min + 7 {
                keptTx[i].1 = outcome < 2 ? pending[keptTx[i].0.rowID]! : before[keptTx[i].0.rowID]!
            }
            for (o, v) in keptTx where Expected(o) != v {
                Issue.record("round \(round) seed \(seed) kept tx #\(o.rowID): \(Expected(o)) vs \(v)")
                break
            }
            let main = try stack.fetchAll(From<BatchRow>())
            for o in main where Expected(o) != shadow[o.rowID]! {
                Issue.record("round \(round) seed \(seed) main #\(o.rowID): \(Expected(o)) vs \(shadow[o.rowID]!)")
                break
            }
            for o in keptMain.prefix(200) where Expected(o) != shadow[o.rowID]! {
                Issue.record("round \(round) seed \(seed) kept main #\(o.rowID)")
                break
            }
            if round % 7 == 0 { keptMain = main }
        }
    }
}
