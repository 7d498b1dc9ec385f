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
            let (_, edges) = Self.randomTree(using: &generator)
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

    /// Two to eight versions, each but the last migrating to a later one: a
    /// tree, with no loops.
    static func randomTree(
        using generator: inout SplitMix64
    ) -> (versions: [String], edges: [(String, String)]) {
        let count = Int.random(in: 2...8, using: &generator)
        let versions = (1...count).map { "V\($0)" }
        let edges = versions.indices.dropLast().map { index in
            (versions[index], versions[Int.random(in: (index + 1)..<count, using: &generator)])
        }
        return (versions, edges)
    }

    /// CoreStore's `nil` chain: valid, empty, equal to `[]`, naming nothing.
    @Test
    func nilChainIsTheEmptyChain() {
        let chain: MigrationChain = nil
        #expect(chain == MigrationChain())
        #expect(chain == [])
        #expect(chain.isValid && chain.isEmpty)
        #expect(!chain.contains("V1"))
        #expect(chain.nextVersionFrom("V1") == nil)
    }

    /// For random trees written as lists of edges, `contains` is "named by
    /// an edge" and `nextVersionFrom` each edge's destination (`nil` for a
    /// leaf and for a version not in the chain), as CoreStore's
    /// MigrationChainTests read them; a one-version chain contains its
    /// version and has no next.
    @Test
    func containsAndNextVersionFollowTheEdges() {
        var generator = SplitMix64.random()
        for _ in 0..<50 {
            let (versions, edges) = Self.randomTree(using: &generator)
            let chain = MigrationChain(edges.shuffled(using: &generator))
            #expect(chain.isValid, "seed \(generator.seed)")
            for version in versions {
                #expect(chain.contains(version), "seed \(generator.seed)")
                #expect(chain.nextVersionFrom(version) == edges.first { $0.0 == version }?.1, "seed \(generator.seed)")
            }
            #expect(!chain.contains("Other"))
            #expect(chain.nextVersionFrom("Other") == nil)
            #expect(MigrationChain(versions).nextVersionFrom(versions[0]) == versions[1])
        }
        let one: MigrationChain = "V1"
        #expect(one.isValid && one.contains("V1") && !one.contains("V2"))
        #expect(one.nextVersionFrom("V1") == nil)
    }

    /// A loop, a version listed twice or given two successors make a chain
    /// invalid before any history sees it.
    @Test
    func loopsAndRepeatsAreInvalid() {
        #expect(!MigrationChain(["V1", "V2", "V1", "V3"]).isValid)
        #expect(!MigrationChain([("V1", "V2"), ("V2", "V1")]).isValid)
        #expect(!MigrationChain([("V1", "V4"), ("V1", "V2"), ("V2", "V3")]).isValid)
        #expect(MigrationChain([("V1", "V4"), ("V2", "V3"), ("V3", "V4")]).isValid)
    }
}
