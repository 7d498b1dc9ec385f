import Foundation
import Testing

@testable import Strata

/// The sort keys that order `Decimal` fields: byte order is number order, and
/// every spelling of one number has one key.
@Suite("DecimalOrdering: sort keys of decimal text order as the numbers do")
struct DecimalOrderingTests {
    nonisolated static let seeds: [UInt64] = [0xDEC0_0001, 0xDEC0_0002, SplitMix64.random().seed]

    /// A random decimal spelled as digits with a point somewhere (leading
    /// and trailing zeros included), a sign, and sometimes an exponent: the
    /// text and the number `Decimal(string:)` reads from it.
    static func randomSpelling(_ random: inout SplitMix64) -> (text: String, value: Decimal) {
        let digitCount = 1 + Int(random.next() % 30)
        var digits = (0..<digitCount).map { _ in Character(String(random.next() % 10)) }
        if random.next() % 3 == 0 { digits.insert(contentsOf: repeatElement("0", count: 1 + Int(random.next() % 3)), at: 0) }
        if random.next() % 3 == 0 { digits.append(contentsOf: repeatElement("0", count: 1 + Int(random.next() % 3))) }
        var text = String(digits)
        if random.next() % 2 == 0 {
            let point = text.index(text.startIndex, offsetBy: Int(random.next() % UInt64(text.count + 1)))
            text.insert(".", at: point)
            if text == "." { text = "0." }
        }
        switch random.next() % 4 {
        case 0: text = "-" + text
        case 1: text = "+" + text
        default: break
        }
        if random.next() % 3 == 0 {
            let exponent = Int(random.next() % 81) - 40
            text += (random.next() % 2 == 0 ? "e" : "E") + String(exponent)
        }
        // NaN (never expected) fails the test below rather than trapping here.
        return (text, Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? .nan)
    }

    /// Over random pairs, the keys compare as the numbers do, and a number's
    /// own description (Strata's stored text) has the key of every spelling.
    @Test(arguments: seeds)
    func keysOrderAsTheNumbers(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let samples = (0..<400).map { _ in Self.randomSpelling(&random) }
        for sample in samples {
            #expect(!sample.value.isNaN, "seed \(seed): \(sample.text)")
            let key = try #require(DecimalOrdering.key(sample.text), "seed \(seed): \(sample.text)")
            #expect(DecimalOrdering.key(sample.value.description) == key, "seed \(seed): \(sample.text)")
        }
        for _ in 0..<2_000 {
            let a = samples[Int(random.next() % UInt64(samples.count))]
            let b = samples[Int(random.next() % UInt64(samples.count))]
            let (keyA, keyB) = (DecimalOrdering.key(a.text) ?? [], DecimalOrdering.key(b.text) ?? [])
            #expect((keyA == keyB) == (a.value == b.value), "seed \(seed): \(a.text) vs \(b.text)")
            #expect(keyA.lexicographicallyPrecedes(keyB) == (a.value < b.value),
                    "seed \(seed): \(a.text) vs \(b.text)")
        }
    }

    /// Numbers a letter-by-letter comparison gets wrong, and zeros of every spelling.
    @Test
    func knownOrders() throws {
        let ascending = ["-100", "-10", "-9.5", "-9.45", "-9", "-0.001", "0", "0.0001", "0.1", "1", "1.05", "1.5",
                         "9", "9.5", "10", "10.000001", "1e3", "1001"]
        let keys = try ascending.map { try #require(DecimalOrdering.key($0), "\($0)") }
        for (left, right) in zip(keys, keys.dropFirst()) {
            #expect(left.lexicographicallyPrecedes(right))
        }
        let zeros = ["0", "-0", "+0.000", ".0", "0e5", "00"]
        #expect(Set(zeros.map { DecimalOrdering.key($0) }).count == 1)
        #expect(DecimalOrdering.key("1.50") == DecimalOrdering.key("1.5"))
        #expect(DecimalOrdering.key("15e-1") == DecimalOrdering.key("1.5"))
    }

    /// Text that is not a decimal has no key; in memory its value sorts as NULL.
    @Test
    func nonDecimalsHaveNoKey() {
        for text in ["", ".", "-", "+", "1.2.3", "1e", "e5", "1e+", "abc", "1 ", " 1", "NaN", "inf", "0x10", "1,5", "--1"] {
            #expect(DecimalOrdering.key(text) == nil, "\(text)")
        }
        #expect(DecimalOrdering.sortValue(.text("abc")) == .null)
        #expect(DecimalOrdering.sortValue(.null) == .null)
        #expect(DecimalOrdering.sortValue(.integer(10)) == DecimalOrdering.sortValue(.text("10.0")))
    }
}
