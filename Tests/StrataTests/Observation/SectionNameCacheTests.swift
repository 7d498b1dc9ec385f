import Foundation
@testable import Strata
import Testing

/// A monitor remembers section names by section-key value, integers in a
/// table indexed by a hash of the value, where two values can meet in one
/// place: a name must always be its own value's.
@Suite("SectionNameCache: names by value, never another value's")
struct SectionNameCacheTests {
    static func naming(_ value: StoredValue) -> String {
        switch value {
        case .integer(let integer): return "i\(integer)"
        case .text(let text): return "t\(Array(text.utf8))"
        case .real(let real): return "r\(real.bitPattern)"
        case .blob(let data): return "b\(Array(data))"
        case .null: return "null"
        }
    }

    @Test func everyNameIsItsValuesAcrossCollidingIntegers() {
        var random = SplitMix64.random()
        var cache = SectionNameCache()
        // Few distinct values among many draws, from a range wide enough
        // that some share a place in the table.
        let values: [StoredValue] = (0..<3_000).map { _ in .integer(Int64(bitPattern: random.next())) }
            + [.integer(0), .integer(-1), .integer(.min), .integer(.max), .text("é"), .text("e\u{301}"),
               .text(""), .real(0.0), .real(-0.0), .null, .blob(Data([0, 1]))]
        for draw in 0..<40_000 {
            let value = values[Int(random.next() % UInt64(values.count))]
            let name = cache.name(of: value, naming: Self.naming)
            if name != Self.naming(value) {
                Issue.record("seed \(random.seed) draw \(draw): \(value) named \(name)")
                return
            }
        }
    }

    @Test func aFewIntegersAndTextsAreNamedOnceEach() {
        var cache = SectionNameCache()
        var calls = 0
        let values: [StoredValue] = (0..<200).map { .integer(Int64($0)) } + ["a", "b", "é", "e\u{301}"].map { .text($0) }
        for _ in 0..<5 {
            for value in values {
                _ = cache.name(of: value) { value in
                    calls += 1
                    return Self.naming(value)
                }
            }
        }
        #expect(calls == values.count, "each of \(values.count) values named once, not \(calls) times")
    }
}
