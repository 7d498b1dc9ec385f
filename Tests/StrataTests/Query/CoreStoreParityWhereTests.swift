import Foundation
import Testing

@testable import Strata

/// CoreStore's WhereTests, translated: what a `~` path is called, and how
/// `&&?` and `||?` combine a clause with an optional one.
@Suite("CoreStore parity: Where paths and optional combinations")
struct CoreStoreParityWhereTests {
    /// `test_ThatExpressions_HaveCorrectKeyPaths`: a path's `description` and
    /// `String(keyPath:)` are its names joined by dots, whatever it ends in.
    @Test func pathsAreNamedByTheirKeyPathStrings() {
        let toOneValue = \ObsPet.$owner ~ \.$name
        let deeperValue = \ObsPet.$owner ~ \.$friend ~ \.$name
        let relation = \ObsPet.$owner ~ \.$friend
        let members = \ObsPet.$owner ~ \.$pets
        let deeperMembers = \ObsPet.$owner ~ \.$friend ~ \.$tags
        let cases: [(String, String, String)] = [
            ("owner.name", toOneValue.description, String(keyPath: toOneValue)),
            ("owner.friend.name", deeperValue.description, String(keyPath: deeperValue)),
            ("owner.friend", relation.description, String(keyPath: relation)),
            ("owner.pets", members.description, String(keyPath: members)),
            ("owner.friend.tags", deeperMembers.description, String(keyPath: deeperMembers)),
        ]
        for (expected, description, keyPath) in cases {
            #expect(description == expected)
            #expect(keyPath == expected)
        }
        // A path names what the store reads: the wrappers' names, as a single field's does.
        #expect(String(keyPath: \ObsPet.$owner ~ \.$age) == String(keyPath: \ObsPet.$owner) + "." + String(keyPath: \ObsPerson.$age))
    }

    /// `test_ThatWhereClauseOperations_ComputeCorrectly`: `a &&? nil` is `a`,
    /// `a &&? b` is `a && b`; likewise `||?`.
    @Test func optionalCombinationsAreThePlainOnes() {
        let one = Where<ObsPerson>(\.$name == "value1")
        let two = Where<ObsPerson>(\.$age == 2)
        let three = Where<ObsPerson>(\.$email == "value3")
        let none: Where<ObsPerson>? = nil
        let some: Where<ObsPerson>? = Where<ObsPerson>(\.$score == 4)
        for base in [one && two && three, one || two || three] {
            let withNone: Where<ObsPerson> = base &&? none
            let withSome: Where<ObsPerson> = base &&? some
            #expect(withNone == base)
            #expect(withSome == (base && some!))
            let orNone: Where<ObsPerson> = base ||? none
            let orSome: Where<ObsPerson> = base ||? some
            #expect(orNone == base)
            #expect(orSome == (base || some!))
        }
    }
}
