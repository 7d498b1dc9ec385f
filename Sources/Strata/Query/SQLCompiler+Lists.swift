extension SQLCompiler {
    /// The most tests (comparisons, memberships, ranges, text tests, counts,
    /// raw SQL) one predicate may compile to. SQLite prepares a statement in
    /// time quadratic in its bound values (it compares each with those before
    /// it to share registers): 2,000 tests take about 0.1 s, 5,000 about 0.7 s.
    /// Membership of any number of values is one test (`Where(_:in:)`, and an
    /// `OR` of equalities or an `AND` of inequalities on one field).
    static let maximumTerms = 2_000

    /// The most values a membership test lists inline as `IN (?, ?, …)`, where
    /// SQLite plans them like any list. A longer one binds all its values as
    /// one blob, read back by `strata_values` (see `Connection+Functions`).
    static let largestInlineList = 32

    mutating func countTerm(_ entity: EntityDescription) throws {
        termCount += 1
        guard termCount <= Self.maximumTerms else {
            throw StrataError.invalidValue(
                entity: entity.name, field: "Where",
                reason: "the predicate has more than \(Self.maximumTerms) tests; test membership of "
                    + "many values with Where(_:in:) (see \"Limits of a predicate\" in Docs/Querying.md)")
        }
    }

    // MARK: Membership

    /// `lhs IN (?, …)`, or `lhs IN (SELECT value FROM strata_values(?))` for
    /// more than ``largestInlineList`` values; a NULL among the values adds
    /// `OR lhs IS NULL`. The values go in as given: SQLite compares them with
    /// `lhs` exactly as it compares the terms of an inline list.
    mutating func membership(_ lhs: String, _ values: StoredValueSet) -> String {
        let present = values.nonNullValues
        var test: String?
        if present.count > Self.largestInlineList {
            test = "\(lhs) IN (SELECT value FROM strata_values(\(bind(.blob(StoredValueList.encode(present))))))"
        } else if !present.isEmpty {
            test = "\(lhs) IN (\(present.map { bind($0) }.joined(separator: ", ")))"
        }
        guard values.containsNull else { return test ?? "0" }
        guard let test else { return "\(lhs) IS NULL" }
        return "(\(test) OR \(lhs) IS NULL)"
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
            if case let .compare(path, termOp, _) = term, termOp == op { counts[path, default: 0] += 1 }
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
}
