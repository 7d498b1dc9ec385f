import Foundation
@testable import Strata

/// A random query of the stack fuzz test, as the stack runs it and as the
/// plain model answers it: a predicate, sort keys (the row ID breaks ties),
/// and a window.
struct FuzzQuery<Object: ManagedObject>: CustomStringConvertible {
    var predicate: Where<Object>?
    var matches: (FuzzState, Int64) -> Bool
    var keys: [OrderBy<Object>.SortKey]
    /// The model's sort keys, in the same order: a key (nil sorts first
    /// ascending, last descending, as SQLite's NULLS FIRST / NULLS LAST) and
    /// whether it ascends.
    var modelKeys: [(key: (FuzzState, Int64) -> FuzzKey?, ascending: Bool)]
    var limit: Int?
    var offset: Int
    var text: String

    var description: String { text + (limit.map { " limit \($0)" } ?? "") + (offset > 0 ? " offset \(offset)" : "") }

    var from: From<Object> {
        var query = From<Object>().orderBy(OrderBy(keys))
        if let predicate { query = query.where(predicate) }
        if limit != nil || offset > 0 {
            query = query.tweak { [limit, offset] in
                $0.fetchLimit = limit
                $0.fetchOffset = offset
            }
        }
        return query
    }

    /// The row IDs the query returns from `state`, whose objects are `ids`.
    func rows(in state: FuzzState, of ids: some Sequence<Int64>) -> [Int64] {
        let sorted = ids.filter { matches(state, $0) }.sorted { left, right in
            for (key, ascending) in modelKeys {
                let (a, b) = (key(state, left), key(state, right))
                if a == b { continue }
                guard let a else { return ascending }
                guard let b else { return !ascending }
                return ascending ? a < b : b < a
            }
            return left < right
        }
        let start = min(offset, sorted.count)
        let end = limit.map { min(sorted.count, start + $0) } ?? sorted.count
        return Array(sorted[start..<end])
    }
}

/// A sort key's value in the model: an integer or a text, never mixed in one key.
enum FuzzKey: Comparable {
    case int(Int)
    case text(String)

    static func < (lhs: FuzzKey, rhs: FuzzKey) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return a < b
        // Names are ASCII: Swift's order is SQLite's byte order.
        case (.text(let a), .text(let b)): return Array(a.utf8).lexicographicallyPrecedes(b.utf8)
        default: return false
        }
    }
}

enum FuzzQueries {
    static func draw(_ bound: Int, _ random: inout SplitMix64) -> Int { Int(random.next() % UInt64(max(bound, 1))) }

    /// A predicate on pets: a leaf, or two joined, or a negated leaf (only
    /// leaves that are never NULL, where SQL's NOT and Swift's ! agree).
    static func petPredicate(_ random: inout SplitMix64, depth: Int = 0)
        -> (Where<FuzzPet>, (FuzzState, Int64) -> Bool, String) {
        let k = draw(20, &random)
        let name = FuzzPlanner.names[draw(FuzzPlanner.names.count, &random)]
        switch draw(depth < 2 ? 9 : 6, &random) {
        case 0: return (Where(\.$rank < k), { $0.pets[$1]!.rank < k }, "rank < \(k)")
        case 1: return (Where(\.$rank >= k), { $0.pets[$1]!.rank >= k }, "rank >= \(k)")
        case 2: return (Where(\.$name == name), { $0.pets[$1]!.name == name }, "name == \(name)")
        case 3: return (Where(\.$owner == nil), { $0.pets[$1]!.owner == nil }, "no owner")
        case 4:
            return (\.$owner ~ \.$rank > k, { state, id in state.pets[id]!.owner.map { state.owners[$0]!.rank > k } ?? false },
                    "owner.rank > \(k)")
        case 5:
            return (!Where(\.$name == name), { $0.pets[$1]!.name != name }, "!(name == \(name))")
        case 6:
            let (a, aMatch, aText) = petPredicate(&random, depth: depth + 1)
            let (b, bMatch, bText) = petPredicate(&random, depth: depth + 1)
            return (a && b, { aMatch($0, $1) && bMatch($0, $1) }, "(\(aText) && \(bText))")
        default:
            let (a, aMatch, aText) = petPredicate(&random, depth: depth + 1)
            let (b, bMatch, bText) = petPredicate(&random, depth: depth + 1)
            return (a || b, { aMatch($0, $1) || bMatch($0, $1) }, "(\(aText) || \(bText))")
        }
    }

    static func petQuery(_ random: inout SplitMix64, window: Bool) -> FuzzQuery<FuzzPet> {
        var query = FuzzQuery<FuzzPet>(
            predicate: nil, matches: { _, _ in true }, keys: [], modelKeys: [], limit: nil, offset: 0, text: "all")
        if draw(5, &random) > 0 {
            let (predicate, matches, text) = petPredicate(&random)
            query.predicate = predicate
            query.matches = matches
            query.text = text
        }
        var order: [String] = []
        for _ in 0..<draw(3, &random) {
            let ascending = draw(2, &random) == 0
            switch draw(3, &random) {
            case 0:
                query.keys.append(ascending ? .ascending(\.$rank) : .descending(\.$rank))
                query.modelKeys.append((key: { FuzzKey.int($0.pets[$1]!.rank) }, ascending: ascending))
                order.append("rank")
            case 1:
                query.keys.append(ascending ? .ascending(\.$name) : .descending(\.$name))
                query.modelKeys.append((key: { FuzzKey.text($0.pets[$1]!.name) }, ascending: ascending))
                order.append("name")
            default:
                query.keys.append(ascending ? .ascending(\.$owner ~ \.$rank) : .descending(\.$owner ~ \.$rank))
                query.modelKeys.append(
                    (key: { state, id in state.pets[id]!.owner.map { FuzzKey.int(state.owners[$0]!.rank) } }, ascending: ascending))
                order.append("owner.rank")
            }
            order[order.count - 1] += ascending ? " asc" : " desc"
        }
        query.text += ", order \(order)"
        if window && draw(4, &random) == 0 {
            query.limit = draw(2, &random) == 0 ? nil : 1 + draw(8, &random)
            query.offset = draw(4, &random)
        }
        return query
    }

    static func ownerQuery(_ random: inout SplitMix64, window: Bool) -> FuzzQuery<FuzzOwner> {
        let k = draw(20, &random)
        let n = draw(3, &random)
        let leaves: [(Where<FuzzOwner>?, (FuzzState, Int64) -> Bool, String)] = [
            (nil, { _, _ in true }, "all"),
            (Where(\.$rank >= k), { $0.owners[$1]!.rank >= k }, "rank >= \(k)"),
            (Where(\.$code == nil), { $0.owners[$1]!.code == nil }, "no code"),
            (Where<FuzzOwner>.count(\.$pets) >= n, { $0.pets(of: $1).count >= n }, "pets.count >= \(n)"),
            (Where<FuzzOwner>.any(\.$pets, \.$rank > k), { state, id in state.pets(of: id).contains { state.pets[$0]!.rank > k } },
             "any pet rank > \(k)"),
            (Where<FuzzOwner>.any(\.$tags, \.$rank < k), { state, id in state.tags(of: id).contains { state.tags[$0]!.rank < k } },
             "any tag rank < \(k)"),
            (Where<FuzzOwner>.count(\.$vaults) == 0 && \.$rank < k,
             { state, id in state.vaults(of: id).isEmpty && state.owners[id]!.rank < k }, "no vault && rank < \(k)"),
        ]
        let (predicate, matches, text) = leaves[draw(leaves.count, &random)]
        let ascending = draw(2, &random) == 0
        var query = FuzzQuery<FuzzOwner>(
            predicate: predicate, matches: matches, keys: [], modelKeys: [], limit: nil, offset: 0, text: text)
        switch draw(3, &random) {
        case 0:
            query.keys = [ascending ? .ascending(\.$code) : .descending(\.$code)]
            query.modelKeys = [(key: { state, id in state.owners[id]!.code.map { FuzzKey.int($0) } }, ascending: ascending)]
            query.text += ", order code \(ascending ? "asc" : "desc")"
        case 1:
            query.keys = [ascending ? .ascending(\.$name) : .descending(\.$name), .descending(\.$rank)]
            query.modelKeys = [
                (key: { FuzzKey.text($0.owners[$1]!.name) }, ascending: ascending),
                (key: { FuzzKey.int($0.owners[$1]!.rank) }, ascending: false),
            ]
            query.text += ", order name \(ascending ? "asc" : "desc"), rank desc"
        default:
            query.text += ", order row ID"
        }
        if window && draw(4, &random) == 0 {
            query.limit = 1 + draw(6, &random)
            query.offset = draw(3, &random)
        }
        return query
    }
}
