import Foundation
import Strata
import Testing

@Suite("Migration chain: literals and equality")
struct MigrationChainTests {
    @Test
    func emptyChainsAreEqualHoweverWritten() {
        let array: MigrationChain = []
        let dictionary: MigrationChain = [:]
        #expect(array == MigrationChain())
        #expect(dictionary == MigrationChain())
        #expect(array.isEmpty && dictionary.isEmpty)
    }

    /// A one-version chain names its version but has no edge: CoreStore's
    /// `"version1"` is empty, yet unequal to the empty chain.
    @Test
    func oneVersionChainIsEqualHoweverWrittenButIsNotTheEmptyChain() {
        let literal: MigrationChain = "V1"
        #expect(literal == MigrationChain(["V1"]))
        #expect(literal == MigrationChain("V1"))
        #expect(literal.hashValue == MigrationChain(["V1"]).hashValue)
        #expect(literal.isEmpty, "no edge: no progressive migration")
        #expect(literal != MigrationChain())
        #expect(literal != "V2")
        #expect(literal != ["V1", "V2"])
    }

    @Test
    func linearChainEqualsItsSuccessorForm() {
        let linear: MigrationChain = ["V1", "V2", "V3", "V4"]
        let successors: MigrationChain = ["V1": "V2", "V2": "V3", "V3": "V4"]
        #expect(linear == successors)
        #expect(linear.hashValue == successors.hashValue)
        #expect(!linear.isEmpty)
        #expect(linear != ["V1", "V2", "V3"])
        #expect(linear != ["V1", "V3", "V2", "V4"])
        #expect(linear == MigrationChain([("V3", "V4"), ("V1", "V2"), ("V2", "V3")]))
    }

    /// A random branching chain written in every order of its edges is one
    /// chain: equal, and hashed alike. Changing one edge makes another.
    @Test
    func branchingChainIgnoresTheOrderItIsWrittenIn() {
        var generator = SplitMix64.random()
        for _ in 0..<50 {
            // Each version but the last migrates to a later one: a tree, no loops.
            let count = Int.random(in: 2...8, using: &generator)
            let versions = (1...count).map { "V\($0)" }
            let edges = versions.indices.dropLast().map { index in
                (versions[index], versions[Int.random(in: (index + 1)..<count, using: &generator)])
            }
            let chain = MigrationChain(edges)
            let shuffled = MigrationChain(edges.shuffled(using: &generator))
            #expect(chain == shuffled, "seed \(generator.seed): \(edges)")
            #expect(chain.hashValue == shuffled.hashValue, "seed \(generator.seed)")

            var changed = edges
            let index = Int.random(in: changed.indices, using: &generator)
            changed[index].1 = "Other"
            #expect(chain != MigrationChain(changed), "seed \(generator.seed)")
        }
    }
}
