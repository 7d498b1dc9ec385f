/// The order in which a store's schema versions migrate: each version names
/// the version it migrates to next.
///
/// ```swift
/// MigrationChain(["V1", "V2", "V3"])                       // V1 → V2 → V3
/// MigrationChain(["V1": "V3", "V2": "V4", "V3": "V4"])     // V1 → V3 → V4, V2 → V4
/// MigrationChain()                                         // any version → the current one, in one step
/// ```
///
/// A chain is checked against its ``SchemaHistory`` when the store is added:
/// a loop, a version listed twice or given two successors, or a version the
/// history does not hold throws ``StrataError/invalidMigrationChain(reason:)``.
///
/// Two chains are equal when they migrate the same versions to the same
/// successors, however written: `["V1", "V2", "V3"]` equals
/// `["V1": "V2", "V2": "V3"]`, and a branching chain's order does not matter.
public struct MigrationChain: Sendable, Hashable, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// One edge: a version and the version it migrates to.
    struct Edge: Sendable, Hashable {
        var source: String
        var destination: String
    }

    let edges: [Edge]
    /// The mistakes found while building the chain, before the history is known.
    let problems: [String]

    /// The empty chain: a store of any version of the history migrates straight
    /// to the current version, in one step.
    public init() {
        self.edges = []
        self.problems = []
    }

    /// A linear chain: each version migrates to the next one in the list.
    public init(_ versions: [String]) {
        var problems: [String] = []
        var seen: Set<String> = []
        for version in versions where !seen.insert(version).inserted {
            problems.append("\(version) appears twice in the chain")
        }
        self.edges = zip(versions, versions.dropFirst()).map {
            Edge(source: $0, destination: $1)
        }
        self.problems = problems
    }

    /// A branching chain: each key migrates to its value. Several versions may
    /// migrate to the same one; a version may not have two successors.
    public init(_ successors: KeyValuePairs<String, String>) {
        self.init(successors: successors.map { ($0, $1) })
    }

    /// A branching chain from pairs built at run time, as CoreStore's
    /// `MigrationChain([(String, String)])`: each first version migrates to
    /// the second.
    public init(_ successors: [(String, String)]) {
        self.init(successors: successors)
    }

    /// A linear chain from an array literal: `let chain: MigrationChain = ["V1", "V2"]`.
    public init(arrayLiteral versions: String...) {
        self.init(versions)
    }

    /// A branching chain from a dictionary literal: `let chain: MigrationChain = ["V1": "V2"]`.
    public init(dictionaryLiteral successors: (String, String)...) {
        self.init(successors: successors)
    }

    /// A branching chain; a version given two successors is recorded as a
    /// problem, which the history reports as `.invalidMigrationChain`.
    private init(successors: [(String, String)]) {
        var problems: [String] = []
        var seen: Set<String> = []
        for (source, _) in successors where !seen.insert(source).inserted {
            problems.append("\(source) is given two successors")
        }
        self.edges = successors.map { Edge(source: $0, destination: $1) }
        self.problems = problems
    }

    /// Whether the chain has no edge, so that every version migrates straight to the current one.
    public var isEmpty: Bool { edges.isEmpty }

    /// Whether both chains have the same edges and the same mistakes, in any order.
    public static func == (lhs: MigrationChain, rhs: MigrationChain) -> Bool {
        Set(lhs.edges) == Set(rhs.edges) && Set(lhs.problems) == Set(rhs.problems)
    }

    /// Hashes the edges and mistakes as sets, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(Set(edges))
        hasher.combine(Set(problems))
    }

    /// Every version the chain names, in the order first named.
    var versions: [String] {
        var seen: Set<String> = []
        return edges.flatMap { [$0.source, $0.destination] }.filter { seen.insert($0).inserted }
    }

    /// The version `version` migrates to, if any.
    func successor(of version: String) -> String? {
        edges.first { $0.source == version }?.destination
    }

    /// The versions with no successor.
    var leaves: [String] {
        versions.filter { successor(of: $0) == nil }
    }

    /// The first loop found, as a sentence, if any.
    var loop: String? {
        for start in versions {
            var path = [start]
            var current = start
            while let next = successor(of: current) {
                if let index = path.firstIndex(of: next) {
                    return "the chain loops: " + (path[index...] + [next]).joined(separator: " → ")
                }
                path.append(next)
                current = next
            }
        }
        return nil
    }
}
