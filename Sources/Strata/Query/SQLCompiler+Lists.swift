/// A compiled piece of a predicate: its SQL, the values of its placeholders in
/// the order they appear, and what it costs SQLite's parser stack at its
/// deepest point (in stack entries, beyond those of a plain `t0."x" = ?`).
///
/// A fragment carries its own arguments so that a list can place its terms in
/// another order than they were compiled in (its deepest term first).
struct SQLFragment {
    var sql: String
    var arguments: [StoredValue]
    var cost: Int

    init(_ sql: String, _ arguments: [StoredValue] = [], cost: Int = 0) {
        self.sql = sql
        self.arguments = arguments
        self.cost = cost
    }
}

extension SQLCompiler {
    /// The most tests (comparisons, memberships, ranges, text tests, counts,
    /// raw SQL) one predicate may compile to. SQLite prepares a statement in
    /// time quadratic in its bound values (it compares each with those before
    /// it to share registers): 2,000 tests take about 0.1 s, 5,000 about 0.7 s.
    /// Membership of any number of values is one test (`Where(_:in:)`, and an
    /// `OR` of equalities or an `AND` of inequalities on one field).
    static let maximumTerms = 2_000

    /// The stack entries of SQLite's parser a predicate may use. SQLite 3.40's
    /// parser has a fixed stack of 100 entries, and `SELECT count(*) FROM
    /// (SELECT _pk FROM "T" AS t0 WHERE ...)`, the deepest statement a
    /// predicate goes into, leaves 84 of them to the predicate.
    static let parserBudget = 80

    /// The most values a membership test lists inline as `IN (?, ?, …)`, where
    /// SQLite plans them like any list. A longer one binds all its values as
    /// one blob, read back by `strata_values` (see `Connection+Functions`).
    static let largestInlineList = 32

    mutating func countTerm(_ entity: EntityDescription) throws {
        termCount += 1
        guard termCount <= Self.maximumTerms else {
            throw StrataError.invalidValue(
                entity: entity.name, field: "Where",
                reason:
                    "the predicate has more than \(Self.maximumTerms) tests; test membership of "
                    + "many values with Where(_:in:) (see \"Limits of a predicate\" in Docs/Querying.md)"
            )
        }
    }

    func checkCost(_ fragment: SQLFragment, _ entity: EntityDescription) throws {
        guard fragment.cost <= Self.parserBudget else {
            throw StrataError.invalidValue(
                entity: entity.name, field: "Where",
                reason: "the predicate nests too deeply for SQLite's parser (it would use about "
                    + "\(fragment.cost) of its \(Self.parserBudget) levels; see \"Limits of a predicate\" in Docs/Querying.md)"
            )
        }
    }

    // MARK: Membership

    /// `lhs IN (?, …)`, or `lhs IN (SELECT value FROM strata_values(?))` for
    /// more than ``largestInlineList`` values (on PostgreSQL, an array
    /// parameter: ``PostgreSQLValueList``); a NULL among the values adds
    /// `OR lhs IS NULL`. The values go in as given: SQLite compares them with
    /// `lhs` exactly as it compares the terms of an inline list.
    mutating func membership(_ lhs: String, _ values: StoredValueSet, lhsCost: Int) -> SQLFragment {
        let present = values.nonNullValues
        var test: SQLFragment?
        if present.count > Self.largestInlineList, dialect == .postgreSQL {
            let (sql, argument) = PostgreSQLValueList.membership(lhs, present)
            test = SQLFragment(sql, [argument], cost: lhsCost + 14)
        } else if present.count > Self.largestInlineList {
            test = SQLFragment(
                "\(lhs) IN (SELECT value FROM strata_values(?))",
                [.blob(StoredValueList.encode(present))],
                cost: lhsCost + 14)
        } else if !present.isEmpty {
            let placeholders = Array(repeating: "?", count: present.count).joined(separator: ", ")
            test = SQLFragment("\(lhs) IN (\(placeholders))", present, cost: lhsCost + 4)
        }
        guard values.containsNull else { return test ?? SQLFragment("FALSE") }
        guard var test else { return SQLFragment("\(lhs) IS NULL", cost: lhsCost + 1) }
        test.sql = "(\(test.sql) OR \(lhs) IS NULL)"
        test.cost += 1
        return test
    }

    /// `terms` with the equalities (in an `OR`) or the inequalities (in an
    /// `AND`) on one path merged into one membership test, when there are
    /// three or more: `x == 1 || x == 2 || x == 3` is `x IN (1, 2, 3)`, and
    /// `x != 1 && x != 2 && x != 3` is `!(x IN (1, 2, 3))`, NULLs included
    /// (`x != 1` is true for a NULL `x`, and so is the negated membership).
    /// The merged test takes the place of its first term.
    static func merged(_ terms: [WherePredicate], conjunction: Bool) -> [WherePredicate] {
        let op: WherePredicate.Comparison = conjunction ? .notEqual : .equal
        var counts: [ValuePath: Int] = [:]
        for term in terms {
            if case let .compare(path, termOp, _) = term, termOp == op {
                counts[path, default: 0] += 1
            }
        }
        guard counts.values.contains(where: { $0 >= 3 }) else { return terms }
        var result: [WherePredicate] = []
        var groups: [ValuePath: (index: Int, values: [StoredValue])] = [:]
        for term in terms {
            guard case let .compare(path, termOp, value) = term, termOp == op,
                counts[path, default: 0] >= 3
            else {
                result.append(term)
                continue
            }
            if groups[path] == nil {
                groups[path] = (result.count, [])
                result.append(term)  // a placeholder, replaced below
            }
            groups[path]?.values.append(value)
        }
        for (path, group) in groups {
            let membership = WherePredicate.isIn(path, StoredValueSet(group.values))
            result[group.index] = conjunction ? .not(membership) : membership
        }
        return result
    }

    // MARK: Lists

    /// The terms joined by `op`: a balanced tree of parenthesised pairs, in
    /// the order written. With ``deepestFirst``, when it costs SQLite's parser
    /// less, the costliest term comes first and the others balanced after it:
    /// a pair `(a OP b)` costs the parser one entry more than `a` and three
    /// more than `b`, so a chain of alternating `&&` and `||` whose deeper part
    /// comes first at every level costs one entry a level, not three.
    mutating func list(
        _ terms: [WherePredicate], _ op: String, empty: String, in entity: EntityDescription,
        alias: String
    ) throws -> SQLFragment {
        guard !terms.isEmpty else { return SQLFragment(empty) }
        var fragments: [SQLFragment] = []
        fragments.reserveCapacity(terms.count)
        for term in terms {
            fragments.append(try self.fragment(term, in: entity, alias: alias))
        }
        guard deepestFirst, fragments.count > 1 else { return Self.balanced(fragments[...], op) }
        let costs = fragments.map(\.cost)
        let deepest = costs.indices.max { costs[$0] < costs[$1] }!
        var rest = costs
        rest.remove(at: deepest)
        let first = max(costs[deepest] + 1, Self.balancedCost(rest[...]) + 3)
        guard first < Self.balancedCost(costs[...]) else {
            return Self.balanced(fragments[...], op)
        }
        let head = fragments.remove(at: deepest)
        return Self.pair(head, Self.balanced(fragments[...], op), op)
    }

    private static func balanced(_ fragments: ArraySlice<SQLFragment>, _ op: String) -> SQLFragment
    {
        if fragments.count == 1 { return fragments.first! }
        let middle = fragments.startIndex + fragments.count / 2
        return pair(balanced(fragments[..<middle], op), balanced(fragments[middle...], op), op)
    }

    private static func balancedCost(_ costs: ArraySlice<Int>) -> Int {
        if costs.count == 1 { return costs.first! }
        let middle = costs.startIndex + costs.count / 2
        return max(balancedCost(costs[..<middle]) + 1, balancedCost(costs[middle...]) + 3)
    }

    private static func pair(_ left: SQLFragment, _ right: SQLFragment, _ op: String) -> SQLFragment
    {
        SQLFragment(
            "(\(left.sql) \(op) \(right.sql))", left.arguments + right.arguments,
            cost: max(left.cost + 1, right.cost + 3))
    }
}
