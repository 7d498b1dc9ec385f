import Foundation

@testable import Strata

/// A random list of CoreStore-style clauses over the probe model, with each
/// step also kept as the chained call that spells it, so that the clause-list
/// form can be checked against the chain it stands for.
struct ProbeClauseList: CustomStringConvertible {
    /// One clause, as the chain spells it.
    enum Step {
        case filter(Where<ProbeItem>)
        case order(OrderBy<ProbeItem>)
        /// `Tweak { $0.fetchLimit = ... }`: only the limit.
        case limit(Int?)
        /// `Tweak { $0.fetchOffset = ... }`: only the offset.
        case offset(Int)
        /// `Tweak { $0.includesPendingChanges = ... }`: only that.
        case pending(Bool)
        /// `Tweak(fetchLimit:fetchOffset:)`: every option it has.
        case whole(limit: Int?, offset: Int)
        /// `GroupBy(\.$number)`, for queries.
        case groupByNumber
    }

    var steps: [Step] = []
    var texts: [String] = []

    var description: String { "[" + texts.joined(separator: ", ") + "]" }

    /// The clauses, for a fetch, a monitor or a delete.
    var fetchClauses: [any FetchClause] { steps.compactMap { clause(of: $0) } }
    var deleteClauses: [any DeleteClause] { steps.compactMap { clause(of: $0) } }
    /// The clauses, for a query (a `GroupBy` among them).
    var queryClauses: [any QueryClause] {
        steps.map { step in
            if case .groupByNumber = step { return GroupBy<ProbeItem>(\.$number) }
            return clause(of: step)!
        }
    }

    private func clause(of step: Step) -> (any FetchClause & QueryClause & DeleteClause)? {
        switch step {
        case .filter(let clause): return clause
        case .order(let order): return order
        case .limit(let limit): return Tweak { $0.fetchLimit = limit }
        case .offset(let offset): return Tweak { $0.fetchOffset = offset }
        case .pending(let included): return Tweak { $0.includesPendingChanges = included }
        case .whole(let limit, let offset): return Tweak(fetchLimit: limit, fetchOffset: offset)
        case .groupByNumber: return nil
        }
    }

    /// `from` refined by the chained calls the steps spell.
    func chained(_ from: From<ProbeItem>) -> From<ProbeItem> {
        chained(from) { query in query }
    }

    /// `query` refined by the chained calls the steps spell.
    func chained<Result>(_ query: QueryChain<ProbeItem, Result>) -> QueryChain<ProbeItem, Result> {
        chained(query) { query in query.groupBy(\.$number) }
    }

    private func chained<Query: ProbeChain>(
        _ query: Query, groupByNumber: (Query) -> Query
    ) -> Query {
        steps.reduce(query) { query, step in
            switch step {
            case .filter(let clause): return query.where(clause)
            case .order(let order): return query.orderBy(order)
            case .limit(let limit): return query.tweak { $0.fetchLimit = limit }
            case .offset(let offset): return query.tweak { $0.fetchOffset = offset }
            case .pending(let included): return query.tweak { $0.includesPendingChanges = included }
            case .whole(let limit, let offset):
                // A tweak made with its initializer sets every option.
                return query.tweak {
                    $0.fetchLimit = limit
                    $0.fetchOffset = offset
                    $0.includesSubentities = true
                    $0.includesPendingChanges = true
                }
            case .groupByNumber: return groupByNumber(query)
            }
        }
    }
}

/// What a fetch and a query chain alike: `where`, `orderBy` and `tweak`.
protocol ProbeChain {
    func `where`(_ clause: Where<ProbeItem>) -> Self
    func orderBy(_ order: OrderBy<ProbeItem>) -> Self
    func tweak(_ adjust: (inout Tweak) -> Void) -> Self
}

extension From: ProbeChain where Object == ProbeItem {}
extension QueryChain: ProbeChain where Object == ProbeItem {}

extension ProbeGenerator {
    /// Up to five random clauses: predicates, orders and tweaks of each kind,
    /// in any order and repeated. With `grouped`, a `GroupBy(\.$number)` goes
    /// somewhere among them and orders sort by `number` only (a grouped
    /// query sorts by its group keys).
    mutating func clauseList(grouped: Bool = false) -> ProbeClauseList {
        var list = ProbeClauseList()
        let count = random.below(6)
        let groupAt = grouped ? random.below(count + 1) : -1
        for index in 0...count {
            if index == groupAt {
                list.steps.append(.groupByNumber)
                list.texts.append("GroupBy(\\.$number)")
            }
            guard index < count else { break }
            switch random.below(7) {
            case 0, 1:
                let predicate = item(depth: 2)
                list.steps.append(.filter(predicate.clause))
                list.texts.append("Where(\(predicate.text))")
            case 2, 3:
                if grouped {
                    let ascending = random.chance(0.5)
                    list.steps.append(.order(OrderBy(ascending ? .ascending(\.$number) : .descending(\.$number))))
                    list.texts.append("OrderBy(.\(ascending ? "ascending" : "descending")(\\.$number))")
                    break
                }
                let (order, text) = itemOrder()
                list.steps.append(.order(order))
                list.texts.append("OrderBy(\(text))")
            case 4:
                let limit = randomLimit()
                list.steps.append(.limit(limit))
                list.texts.append("Tweak { $0.fetchLimit = \(limit.map(String.init) ?? "nil") }")
            case 5:
                let offset = random.below(40)
                list.steps.append(.offset(offset))
                list.texts.append("Tweak { $0.fetchOffset = \(offset) }")
            case 6 where random.chance(0.5):
                let included = random.chance(0.5)
                list.steps.append(.pending(included))
                list.texts.append("Tweak { $0.includesPendingChanges = \(included) }")
            default:
                let (limit, offset) = (randomLimit(), random.below(40))
                list.steps.append(.whole(limit: limit, offset: offset))
                list.texts.append("Tweak(fetchLimit: \(limit.map(String.init) ?? "nil"), fetchOffset: \(offset))")
            }
        }
        return list
    }

    /// A limit, none (`nil`, 0 or below) a third of the time.
    private mutating func randomLimit() -> Int? {
        switch random.below(6) {
        case 0: return nil
        case 1: return random.chance(0.5) ? 0 : -1
        default: return 1 + random.below(30)
        }
    }
}
