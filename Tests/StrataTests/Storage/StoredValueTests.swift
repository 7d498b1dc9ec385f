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
