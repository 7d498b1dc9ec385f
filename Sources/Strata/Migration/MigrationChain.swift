/// The order in which a store's schema versions migrate: each version names
/// the version it migrates to next.
///
/// ```swift
/// MigrationChain(["V1", "V2", "V3"])                       // V1 → V2 → V3
/// MigrationChain(["V1": "V3", "V2": "V4", "V3": "V4"])     // V1 → V3 → V4, V2 → V4
/// MigrationChain("V2")                                     // any version → V2, in one step
/// MigrationChain()                                         // any version → the current one, in one step
/// ```
///
/// A chain's last version is the current version of its ``SchemaHistory``,
/// as a chain's leaf is CoreStore's current model version: a one-version
/// chain (`"V2"`, or `["V2"]`) makes that version the current one without
/// a progressive path, so that a store of any other version of the history
/// migrates straight to it, as with the empty chain, which makes the
/// history's last schema the current one.
///
/// A chain is checked against its ``SchemaHistory`` when the store is added:
/// a loop, a version listed twice or given two successors, or a version the
/// history does not hold throws ``StrataError/invalidMigrationChain(reason:)``.
///
/// Two chains are equal when they name the same versions and migrate them to
/// the same successors, however written: `["V1", "V2", "V3"]` equals
/// `["V1": "V2", "V2": "V3"]`, `"V1"` equals `["V1"]` (but not the empty
/// chain), and a branching chain's order does not matter.
public struct MigrationChain: Sendable, Hashable, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral
{
    /// One edge: a version and the version it migrates to.
    struct Edge: Sendable, Hashable {
        var source: String
        var destination: String
    }

    let edges: [Edge]
    /// Every version the chain names, in the order first named: those of its
    /// edges, or the one version of a one-version chain.
    let versions: [String]
    /// The mistakes found while building the chain, before the history is known.
    let problems: [String]

    /// The empty chain: a store of any version of the history migrates straight
    /// to the current version, in one step.
    public init() {
        self.edges = []
        self.versions = []
        self.problems = []
    }

    /// A one-version chain: `version` is the current version, and a store of
    /// any other version of the history migrates straight to it, in one step.
    public init(_ version: String) {
        self.init([version])
    }

    /// A linear chain: each version migrates to the next one in the list; the
    /// last is the current version. A list of one version is a one-version chain.
    public init(_ versions: [String]) {
        var problems: [String] = []
        var seen: Set<String> = []
        var named: [String] = []
        for version in versions {
            if seen.insert(version).inserted {
                named.append(version)
            } else {
                problems.append("\(version) appears twice in the chain")
            }
        }
        self.edges = zip(versions, versions.dropFirst()).map {
            Edge(source: $0, destination: $1)
        }
        self.versions = named
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

    /// A one-version chain from a string literal: `let chain: MigrationChain = "V1"`.
    public init(stringLiteral version: String) {
        self.init([version])
    }

    /// The empty chain, written `nil` as in CoreStore (`migrationChain: nil`).
    ///
    /// ```swift
    /// let chain: MigrationChain = nil   // == MigrationChain()
    /// ```
    public init(nilLiteral: ()) {
        self.init()
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
        var named: Set<String> = []
        self.versions = edges.flatMap { [$0.source, $0.destination] }
            .filter { named.insert($0).inserted }
        self.problems = problems
    }

    /// Whether the chain has no edge, so that every version migrates straight
    /// to the current one: the empty chain, or a one-version chain (as in
    /// CoreStore, where both are empty).
    public var isEmpty: Bool { edges.isEmpty }

    /// Whether the chain has no loop and gives no version two successors.
    /// (That every version it names is in the history, and that it ends in
    /// one version, are checked when the store is added, against the
    /// history: ``StrataError/invalidMigrationChain(reason:)``.)
    ///
    /// ```swift
    /// MigrationChain(["V1", "V2", "V1"]).isValid   // false: V1 → V2 → V1
    /// ```
    public var isValid: Bool { problems.isEmpty && loop == nil }

    /// Whether the chain names `version`, as a step's source or destination,
    /// or as its one version.
    ///
    /// ```swift
    /// let chain: MigrationChain = ["V1", "V2"]
    /// chain.contains("V2")   // true
    /// ```
    public func contains(_ version: String) -> Bool {
        versions.contains(version)
    }

    /// The version a store of `version` migrates to next, or `nil` when
    /// `version` is the chain's last, or not in the chain.
    ///
    /// ```swift
    /// let chain: MigrationChain = ["V1": "V3", "V2": "V3"]
    /// chain.nextVersionFrom("V1")   // "V3"
    /// chain.nextVersionFrom("V3")   // nil
    /// ```
    public func nextVersionFrom(_ version: String) -> String? {
        successor(of: version)
    }

    /// Whether both chains name the same versions, with the same edges and the
    /// same mistakes, in any order.
    public static func == (lhs: MigrationChain, rhs: MigrationChain) -> Bool {
        Set(lhs.edges) == Set(rhs.edges) && Set(lhs.versions) == Set(rhs.versions)
            && Set(lhs.problems) == Set(rhs.problems)
    }

    /// Hashes the edges, versions and mistakes as sets, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(Set(edges))
        hasher.combine(Set(versions))
        hasher.combine(Set(problems))
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
