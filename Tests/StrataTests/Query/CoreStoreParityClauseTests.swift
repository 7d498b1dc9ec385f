import Foundation
import Testing

@testable import Strata

/// CoreStore's IntoTests, GroupByTests, SelectTests and SectionByTests read
/// back what a clause was built from: `inferStoreIfPossible`, `keyPaths`,
/// `selectTerms`, `sectionKeyPath`. The same names answer the same in Strata.
@Suite("CoreStore parity: what a clause says it holds")
struct CoreStoreParityClauseTests {
    /// `test_ThatIntoClauses_ConfigureCorrectly`: only an `Into` without a
    /// configuration infers its store; naming one, `nil` included, does not.
    @Test func intoInfersItsStoreOnlyWithoutAConfiguration() {
        #expect(Into<ZooDog>().inferStoreIfPossible)
        #expect(Into<ZooAnimal>(ZooDog.self).inferStoreIfPossible)
        #expect(!Into<ZooDog>("Config1").inferStoreIfPossible)
        #expect(!Into<ZooDog>(nil).inferStoreIfPossible)
        #expect(!Into<ZooAnimal>(ZooCat.self, "Config1").inferStoreIfPossible)
    }

    /// `test_ThatGroupByClauses_ConfigureCorrectly`: the key paths, in order;
    /// two groupings are equal exactly when their key paths are.
    @Test func groupByListsItsKeyPathsInOrder() {
        let groupings: [GroupBy<ProbeItem>] = [
            GroupBy(\.$number), GroupBy(\.$number, \.$text), GroupBy(\.$text, \.$number),
            GroupBy(\.$group ~ \.$name), GroupBy(\.$group ~ \.$parent ~ \.$rank),
        ]
        let expected = [
            ["number"], ["number", "text"], ["text", "number"], ["group.name"], ["group.parent.rank"],
        ]
        #expect(groupings.map(\.keyPaths) == expected)
        for (i, a) in groupings.enumerated() {
            for (j, b) in groupings.enumerated() {
                #expect((a == b) == (i == j), "\(expected[i]) vs \(expected[j])")
                #expect((a == b) == (a.keyPaths == b.keyPaths))
            }
        }
    }

    /// `test_ThatSelectClauses_ConfigureCorrectly`: the terms, in the order given.
    @Test func selectListsItsTermsInOrder() {
        let one = SelectTerm<ProbeItem>.attribute(\.$number)
        let two = SelectTerm<ProbeItem>.attribute(\.$text)
        let three = SelectTerm<ProbeItem>.maximum(\.$real)
        #expect(Select<ProbeItem, Int>(one, two, three).selectTerms == [one, two, three])
        #expect(Select<ProbeItem, Int>([one, two, three]).selectTerms == [one, two, three])
        #expect(Select<ProbeItem, Int>(three, one, two).selectTerms != [one, two, three])
        #expect(Select<ProbeItem, Int>(three, one, two).selectTerms.map(\.name) == ["max(real)", "number", "text"])
    }

    /// `test_ThatSectionByClauses_ConfigureCorrectly`: the section key path,
    /// with or without a naming closure (its `sectionIndexTransformer`
    /// assertions are `SectionIndexTransformerTests.sectionByConfiguresAsCoreStoresDoes`).
    @Test func sectionByNamesItsKeyPath() {
        #expect(SectionBy<ProbeItem>(\.$number).sectionKeyPath == "number")
        #expect(SectionBy<ProbeItem>(\.$text) { "\($0):suffix" }.sectionKeyPath == "text")
        #expect(SectionBy<ProbeItem>(\.$group ~ \.$name).sectionKeyPath == "group.name")
    }
}
