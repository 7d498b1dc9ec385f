import Foundation
@testable import Strata

// The in-memory model the configuration fetch test compares against: every
// item of every store as plain values, and random queries built twice, as a
// `From` and as the same filter and order written in Swift.

/// An item as the model knows it: its values, its store and its row ID.
struct CfgRow: Equatable, CustomStringConvertible {
    var key: Int
    var rank: Int
    var label: String
    var score: Int?
    /// The index of the item's store in the stack's store order.
    let store: Int
    let rowID: Int64

    var description: String {
        "#\(key)(rank \(rank), \(label.debugDescription), score \(score.map(String.init) ?? "nil"), "
            + "store \(store), row \(rowID))"
    }
}

/// One random fetch: the query, and what it means over ``CfgRow``s.
struct CfgQuery: CustomStringConvertible {
    let from: From<CfgItem>
    /// The indexes of the stores the query reads.
    let stores: Set<Int>
    let matches: (CfgRow) -> Bool
    /// `nil`: no order given (store order, then row ID).
    let order: ((CfgRow, CfgRow) -> ComparisonResult)?
    let limit: Int?
    let offset: Int
    let description: String

    /// The query's rows in `rows`, as one fetch over the union gives them:
    /// ordered by the keys, ties by store then row ID, then paged.
    func expected(_ rows: [CfgRow], limit overrideLimit: Int? = nil) -> [CfgRow] {
        let sorted = rows.filter { stores.contains($0.store) && matches($0) }.sorted { a, b in
            if let order {
                let result = order(a, b)
                if result != .orderedSame { return result == .orderedAscending }
            }
            return (a.store, a.rowID) < (b.store, b.rowID)
        }
        let effective = limit.flatMap { $0 > 0 ? $0 : nil }
        let limit = overrideLimit.map { min($0, effective ?? $0) } ?? effective
        let start = min(offset, sorted.count)
        let end = limit.map { min(sorted.count, start + $0) } ?? sorted.count
        return Array(sorted[start..<end])
    }
}

/// The random values and queries of the configuration fetch test.
struct CfgGenerator {
    var random: SplitMix64
    /// Letters only, in both cases: folding to lower or upper case orders them alike.
    static let labels = ["", "a", "A", "b", "B", "ab", "Ab", "ba"]

    mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    mutating func chance(_ probability: Double) -> Bool { Double(random.next() % 1000) < probability * 1000 }
    mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    mutating func rank() -> Int { below(5) }
    mutating func label() -> String { pick(Self.labels) }
    mutating func score() -> Int? { chance(0.3) ? nil : below(4) }

    /// A random predicate; `twoValued` keeps out comparisons that are
    /// unknown (SQL NULL) for a nil score, so that negating it is safe.
    mutating func predicate(depth: Int, twoValued: Bool = false)
        -> (Where<CfgItem>, (CfgRow) -> Bool, String, isTwoValued: Bool)
    {
        if depth > 0, chance(0.5) {
            switch below(3) {
            case 0:
                let (a, b) = (predicate(depth: depth - 1, twoValued: twoValued),
                              predicate(depth: depth - 1, twoValued: twoValued))
                let (am, bm) = (a.1, b.1)
                return (a.0 && b.0, { am($0) && bm($0) }, "(\(a.2) && \(b.2))", a.3 && b.3)
            case 1:
                let (a, b) = (predicate(depth: depth - 1, twoValued: twoValued),
                              predicate(depth: depth - 1, twoValued: twoValued))
                let (am, bm) = (a.1, b.1)
                return (a.0 || b.0, { am($0) || bm($0) }, "(\(a.2) || \(b.2))", a.3 && b.3)
            default:
                let a = predicate(depth: depth - 1, twoValued: true)
                let am = a.1
                return (!a.0, { !am($0) }, "!\(a.2)", true)
            }
        }
        let k = below(5)
        switch below(twoValued ? 5 : 7) {
        case 0:
            switch below(6) {
            case 0: return (\.$rank == k, { $0.rank == k }, "rank == \(k)", true)
            case 1: return (\.$rank != k, { $0.rank != k }, "rank != \(k)", true)
            case 2: return (\.$rank < k, { $0.rank < k }, "rank < \(k)", true)
            case 3: return (\.$rank <= k, { $0.rank <= k }, "rank <= \(k)", true)
            case 4: return (\.$rank > k, { $0.rank > k }, "rank > \(k)", true)
            default: return (\.$rank >= k, { $0.rank >= k }, "rank >= \(k)", true)
            }
        case 1:
            let label = label()
            return (\.$label == label, { $0.label == label }, "label == \(label.debugDescription)", true)
        case 2:
            let label = label()
            return (\.$label != label, { $0.label != label }, "label != \(label.debugDescription)", true)
        case 3:
            return chance(0.5)
                ? (\.$score == nil, { $0.score == nil }, "score == nil", true)
                : (\.$score != nil, { $0.score != nil }, "score != nil", true)
        case 4:
            let score: Int? = k
            return (\.$score == score, { $0.score == score }, "score == \(k)", true)
        case 5:
            return (\.$score > k, { $0.score.map { $0 > k } ?? false }, "score > \(k)", false)
        default:
            return (\.$score < k, { $0.score.map { $0 < k } ?? false }, "score < \(k)", false)
        }
    }

    /// A random sort key and its meaning.
    mutating func sortKey() -> (OrderBy<CfgItem>.SortKey, (CfgRow, CfgRow) -> ComparisonResult, String) {
        let ascending = chance(0.5)
        let direction = ascending ? "ascending" : "descending"
        func directed(_ result: ComparisonResult) -> ComparisonResult {
            ascending || result == .orderedSame
                ? result : (result == .orderedAscending ? .orderedDescending : .orderedAscending)
        }
        switch below(4) {
        case 0:
            return (ascending ? .ascending(\.$rank) : .descending(\.$rank),
                    { directed(compare($0.rank, $1.rank)) }, "\(direction)(rank)")
        case 1:
            return (ascending ? .ascending(\.$label) : .descending(\.$label),
                    { directed(compare($0.label, $1.label)) }, "\(direction)(label)")
        case 2:
            return (ascending ? .ascending(\.$label, .caseInsensitive) : .descending(\.$label, .caseInsensitive),
                    { directed(compare($0.label.lowercased(), $1.label.lowercased())) },
                    "\(direction)(label, .caseInsensitive)")
        default:
            let placement = pick([OrderBy<CfgItem>.NullPlacement.automatic, .first, .last])
            let nullsFirst = placement == .first || (placement == .automatic && ascending)
            let key: OrderBy<CfgItem>.SortKey = ascending
                ? .ascending(\.$score, nulls: placement) : .descending(\.$score, nulls: placement)
            return (key, { a, b in
                switch (a.score, b.score) {
                case (nil, nil): return .orderedSame
                case (nil, _): return nullsFirst ? .orderedAscending : .orderedDescending
                case (_, nil): return nullsFirst ? .orderedDescending : .orderedAscending
                case let (x?, y?): return directed(compare(x, y))
                }
            }, "\(direction)(score, nulls: \(placement))")
        }
    }

    /// A random query over the stores of a stack ordered [nil, "Config1", "Config2"].
    mutating func query() -> CfgQuery {
        let (from, stores, storesText): (From<CfgItem>, Set<Int>, String) = pick([
            (From<CfgItem>(), [0, 1], "From()"),
            (From<CfgItem>(nil, "Config1"), [0, 1], "From(nil, \"Config1\")"),
            (From<CfgItem>(["Config1", nil]), [0, 1], "From([\"Config1\", nil])"),
            (From<CfgItem>("Config1", "Config2"), [1], "From(\"Config1\", \"Config2\")"),
            (From<CfgItem>("Config1"), [1], "From(\"Config1\")"),
            (From<CfgItem>(nil), [0], "From(nil)"),
        ])
        var query = from
        var text = storesText
        var matches: (CfgRow) -> Bool = { _ in true }
        if chance(0.7) {
            let (clause, evaluate, description, _) = predicate(depth: 3)
            query = query.where(clause)
            matches = evaluate
            text += ".where(\(description))"
        }
        var order: ((CfgRow, CfgRow) -> ComparisonResult)?
        if chance(0.8) {
            let keys = (0..<(1 + below(3))).map { _ in sortKey() }
            query = query.orderBy(OrderBy(keys.map(\.0)))
            let comparators = keys.map(\.1)
            order = { a, b in
                for comparator in comparators {
                    let result = comparator(a, b)
                    if result != .orderedSame { return result }
                }
                return .orderedSame
            }
            text += ".orderBy(\(keys.map(\.2).joined(separator: ", ")))"
        }
        let limit: Int? = chance(0.5) ? nil : pick([0, 1, 2, 3, 5, 10])
        let offset = chance(0.5) ? 0 : below(12)
        if limit != nil || offset > 0 {
            query = query.tweak {
                $0.fetchLimit = limit
                $0.fetchOffset = offset
            }
            text += ".tweak(limit \(limit.map(String.init) ?? "nil"), offset \(offset))"
        }
        return CfgQuery(
            from: query, stores: stores, matches: matches, order: order, limit: limit, offset: offset,
            description: text)
    }
}

private func compare<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
    a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
}
