import Foundation
import Testing

@testable import Strata

/// A field of a player a random query selects, groups or sorts by.
private struct PlayerField: CustomStringConvertible {
    var attribute: SelectTerm<OptPlayer>
    var group: GroupBy<OptPlayer>
    var ascending: OrderBy<OptPlayer>.SortKey
    var name: String

    var description: String { name }

    static let all = [
        PlayerField(
            attribute: .attribute(\.$nick), group: GroupBy(\.$nick),
            ascending: .ascending(\.$nick, .caseInsensitive), name: "nick"),
        PlayerField(
            attribute: .attribute(\.$score), group: GroupBy(\.$score),
            ascending: .ascending(\.$score), name: "score"),
        PlayerField(
            attribute: .attribute(\.$mood), group: GroupBy(\.$mood),
            ascending: .ascending(\.$mood), name: "mood"),
        PlayerField(
            attribute: .attribute(\.$team ~ \.$name), group: GroupBy(\.$team ~ \.$name),
            ascending: .ascending(\.$team ~ \.$name), name: "team.name"),
    ]
}

/// Whether `error` is ``StrataError/invalidValue(entity:field:reason:)`` for `field` of a player.
private func isInvalidValue(_ error: any Error, field: String) -> Bool {
    guard case .invalidValue(let entity, let found, _)? = error as? StrataError else { return false }
    return entity == "OptPlayer" && found == field
}

/// The rules of a query's shape that hold whatever the store: what a
/// grouped or aggregate query may select and sort by.
@MainActor
@Suite("QueryChain: what a grouped or aggregate query reads")
struct QueryChainTests {
    /// A query that groups or aggregates returns one row per group (one in
    /// all without `GroupBy`): a field that is not a group key has no one
    /// value there, and a sort key that is not one does not order groups.
    /// SQLite would answer with the value of an arbitrary row of the group,
    /// PostgreSQL refuses; Strata refuses on every store, with a typed error
    /// naming the term or key, and runs every query whose fields are group
    /// keys. Random selections, groupings and orders over every store kind.
    @Test(arguments: StoreKind.allCases, [UInt64(0x9B01), 0x9B02, 0x9B03])
    func aGroupedOrAggregateQueryReadsOnlyItsGroupKeys(_ kind: StoreKind, seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let stack = try makeStack(optionalSchema, kind, in: directory)
        try OptWorld(seed: seed, players: 30).fill(stack)
        let fields = PlayerField.all
        for number in 0..<24 {
            func some() -> [Int] {
                fields.indices.filter { _ in random.next() % 3 == 0 }
            }
            let (selected, grouped, sorted) = (some(), some(), some())
            let aggregate = random.next() % 3 != 0
            var terms = selected.map { fields[$0].attribute }
            if aggregate || terms.isEmpty { terms.append(.count(as: "n")) }
            var query = From<OptPlayer>()
                .orderBy(OrderBy(sorted.map { fields[$0].ascending }))
                .select(Select<OptPlayer, [String: StoredValue]>(terms))
            if !grouped.isEmpty {
                query = query.groupBy(GroupBy(paths: grouped.flatMap { fields[$0].group.paths }))
            }
            let context = "\(kind), seed \(seed), query \(number): "
                + "select \(selected.map { fields[$0] })"
                + "\(aggregate ? " + count" : ""), group by \(grouped.map { fields[$0] }), "
                + "order by \(sorted.map { fields[$0] })"
            let rowsAreGroups = !grouped.isEmpty || terms.contains { $0.name == "n" }
            let loneTerm = rowsAreGroups ? selected.first { !grouped.contains($0) } : nil
            let loneKey = grouped.isEmpty ? nil : sorted.first { !grouped.contains($0) }
            if let lone = loneTerm ?? loneKey {
                #expect(throws: (any Error).self, "\(context)") {
                    _ = try stack.queryAttributes(query)
                }
                do {
                    _ = try stack.queryAttributes(query)
                } catch {
                    #expect(isInvalidValue(error, field: fields[lone].name), "\(context): \(error)")
                }
            } else {
                let rows = try stack.queryAttributes(query)
                #expect(!rows.isEmpty, "\(context)")
            }
        }
    }
}
