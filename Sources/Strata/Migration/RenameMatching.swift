/// Something a new schema version may rename: an entity, a column, a relationship.
protocol Renameable {
    var name: String { get }
    /// The previous name, declared with `renamingIdentifier:`.
    var renamingIdentifier: String? { get }
}

extension EntityDescription: Renameable {}
extension AttributeDescription: Renameable {}
extension RelationshipDescription: Renameable {}

/// Pairs each element of a new schema version with the one of the previous
/// version it continues, by name.
enum RenameMatching {
    /// For each of `destinations`, the element of `sources` it continues, or
    /// `nil` for a new one. In order of preference, each source claimed once:
    /// 1. the source declaring the same `renamingIdentifier` (a rename carried
    ///    on through later versions, as Core Data matches identifiers);
    /// 2. the source named by the destination's `renamingIdentifier`;
    /// 3. the source with the destination's own name.
    ///
    /// A kept declaration comes first: otherwise a rename declared in V2 and
    /// kept in V3 would, in the V2 → V3 step, take the values of whatever V2
    /// element bears the old name (a swap of `a` and `b` swapped back, or a
    /// new field given the renamed one's old name robbing it of its values).
    static func match<Element: Renameable>(
        _ destinations: [Element], in sources: [Element]
    ) -> [Element?] {
        var result = [Element?](repeating: nil, count: destinations.count)
        var claimed = Set<String>()
        let rules: [(Element, Element) -> Bool] = [
            { destination, source in
                destination.renamingIdentifier.map { $0 == source.renamingIdentifier } ?? false
            },
            { destination, source in
                destination.renamingIdentifier.map { $0 == source.name } ?? false
            },
            { destination, source in destination.name == source.name },
        ]
        for rule in rules {
            for (index, destination) in destinations.enumerated() where result[index] == nil {
                if let source = sources.first(where: {
                    !claimed.contains($0.name) && rule(destination, $0)
                }) {
                    claimed.insert(source.name)
                    result[index] = source
                }
            }
        }
        return result
    }
}
