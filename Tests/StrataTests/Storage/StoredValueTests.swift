import Foundation
@testable import Strata
import Testing

@Suite("StoredValue")
@MainActor
struct StoredValueTests {
    @Test
    func identicalMeansBitForBitAndByteForByte() {
        #expect(StoredValue.text("e\u{301}").isIdentical(to: .text("e\u{301}")))
        #expect(!StoredValue.text("\u{E9}").isIdentical(to: .text("e\u{301}")), "Swift's == says equal")
        #expect(!StoredValue.text("\u{212B}").isIdentical(to: .text("\u{C5}")), "Ångström sign and Å")
        #expect(!StoredValue.real(0).isIdentical(to: .real(-0.0)))
        #expect(StoredValue.real(.nan).isIdentical(to: .real(.nan)))
    }

    /// Text is identical exactly when its UTF-8 bytes are, for small
    /// (inline) and large strings, empty ones, prefixes, and canonically
    /// equivalent spellings, over random pairs built from a few pieces.
    @Test
    func textIsIdenticalExactlyWhenItsBytesAre() {
        var random = SplitMix64.random()
        let pieces = ["", "a", "é", "e\u{301}", "ß", "ı", "\u{0}", "🙂", "abcdefghijklmnop", "Straße"]
        func text() -> String {
            (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        for _ in 0..<2_000 {
            let left = text()
            let right = Bool.random(using: &random) ? left : text()
            let sameBytes = Array(left.utf8) == Array(right.utf8)
            #expect(StoredValue.text(left).isIdentical(to: .text(right)) == sameBytes,
                    "\(left.debugDescription) vs \(right.debugDescription), seed \(random.seed)")
            // A copy that shares no storage with the original compares alike.
            let copy = String(decoding: Array(right.utf8), as: UTF8.self)
            #expect(left.hasSameUTF8(as: copy) == sameBytes, "seed \(random.seed)")
        }
    }

    /// `"é"` and `"e\u{301}"` are one string to Swift's `==` but two to SQL,
    /// which compares bytes: respelling a field is a change, saved, so that
    /// queries find the spelling the field was given.
    @Test(arguments: StoreKind.allCases)
    func respellingATextIsAChangeThatIsSaved(kind: StoreKind) throws {
        let directory = TemporaryDirectory()
        let stack = try makeStack(TxSchema.schema, kind, in: directory)
        let id = try stack.perform(synchronous: { tx in
            let person = tx.create(Into<TxPerson>())
            person.name = "caf\u{E9}"
            return person.objectID
        })
        let changed = try stack.perform(synchronous: { tx in
            let person = try #require(tx.edit(id))
            person.name = "cafe\u{301}"
            return person.hasChanges
        })
        #expect(changed)
        #expect(try stack.fetchCount(From<TxPerson>().where(\.$name == "cafe\u{301}")) == 1)
        #expect(try stack.fetchCount(From<TxPerson>().where(\.$name == "caf\u{E9}")) == 0)
        let name = try #require(try stack.fetchExisting(id)).name
        #expect(Array(name.unicodeScalars) == Array("cafe\u{301}".unicodeScalars))
    }
}
