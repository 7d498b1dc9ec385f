// The normal form every operator that builds a `Where` keeps, so that chains
// of any length stay shallow: a deep tree would overflow SQLite's parser (a
// fixed stack of 100 in 3.40) and, past some ten thousand levels, the thread's
// own stack in every recursive walk, the release of the tree included.
//
// - A list of one operator never holds a list of the same operator: `a && b
//   && c` is one list of three however it was built (`reduce(&&)` included).
// - `!` is pushed down to the tests: `!!p` is `p`, `!(a && b)` is `!a || !b`,
//   `!(a || b)` is `!a && !b`, `!(x == v)` is `x != v`, `!.any(r, p)` is
//   `.none(r, p)`, `!.all(r, p)` is `.any(r, !p)`, `!(count(r) < n)` is
//   `count(r) >= n`. `.not` remains only around a test with no opposite
//   (`<`, `in`, `between`, text, raw SQL), whose NULLs make `!(x < v)` differ
//   from `x >= v`.
// - No tree nests deeper than `maximumDepth`: an operator that would build
//   one returns `.invalid` instead, which compiling reports as a
//   `StrataError.invalidValue`.
//
// Each rule keeps the answers: both back-ends give a test's NULL the meaning
// false (SQL through the `coalesce` around `NOT`), so the logic is two-valued
// for typed predicates, and De Morgan's laws also hold in the three-valued
// logic that raw SQL brings to evaluation in memory (`nil`).

extension WherePredicate {
    /// The deepest nesting a predicate may have, counting a test as 1 and one
    /// more for each `&&`/`||` list, `.not` and to-many test around it.
    static let maximumDepth = 64

    /// How deeply the predicate nests (see ``maximumDepth``). Walks the tree;
    /// ``Where`` keeps the depth of its predicate instead.
    var depth: Int {
        switch self {
        case .and(let terms), .or(let terms): return 1 + (terms.terms.map(\.depth).max() ?? 0)
        case .not(let inner), .members(_, _, _, let inner): return 1 + inner.depth
        default: return 1
        }
    }

    /// The predicate that matches exactly the objects this one does not, with
    /// the negation pushed down to the tests. An invalid predicate stays as it is.
    var negated: WherePredicate {
        switch self {
        case .constant(let value):
            return .constant(!value)
        case let .compare(path, .equal, value):
            return .compare(path, .notEqual, value)
        case let .compare(path, .notEqual, value):
            return .compare(path, .equal, value)
        case .and(let terms):
            return .disjunction(terms.terms.map(\.negated))
        case .or(let terms):
            return .conjunction(terms.terms.map(\.negated))
        case .not(let inner):
            return inner
        case let .members(owner, name, .any, inner):
            return .members(owner: owner, relationship: name, .none, inner)
        case let .members(owner, name, .none, inner):
            return .members(owner: owner, relationship: name, .any, inner)
        case let .members(owner, name, .all, inner):
            return .members(owner: owner, relationship: name, .any, inner.negated)
        case let .count(owner, name, op, number):
            // A count is never NULL, so every comparison of it has an exact opposite.
            return .count(owner: owner, relationship: name, op.opposite, number)
        case .invalid:
            return self
        case .compare, .isIn, .between, .text, .sql:
            return .not(self)
        }
    }

    /// `terms` joined by AND, with the terms of AND lists among them spliced in.
    static func conjunction(_ terms: [WherePredicate]) -> WherePredicate {
        var flat: [WherePredicate] = []
        flat.reserveCapacity(terms.count)
        for term in terms {
            if case .and(let inner) = term, !inner.isEmpty {
                flat.append(contentsOf: inner.terms)
            } else {
                flat.append(term)
            }
        }
        return .and(TermList(flat))
    }

    /// `terms` joined by OR, with the terms of OR lists among them spliced in.
    static func disjunction(_ terms: [WherePredicate]) -> WherePredicate {
        var flat: [WherePredicate] = []
        flat.reserveCapacity(terms.count)
        for term in terms {
            if case .or(let inner) = term, !inner.isEmpty {
                flat.append(contentsOf: inner.terms)
            } else {
                flat.append(term)
            }
        }
        return .or(TermList(flat))
    }
}

extension WherePredicate.Comparison {
    /// The comparison that is true exactly when this one is false, for values that are never NULL.
    var opposite: WherePredicate.Comparison {
        switch self {
        case .equal: return .notEqual
        case .notEqual: return .equal
        case .less: return .greaterOrEqual
        case .lessOrEqual: return .greater
        case .greater: return .lessOrEqual
        case .greaterOrEqual: return .less
        }
    }
}

extension Where {
    /// A predicate of known depth, or an invalid one when it nests deeper
    /// than ``WherePredicate/maximumDepth``.
    init(_ predicate: WherePredicate, depth: Int) {
        guard depth <= WherePredicate.maximumDepth else {
            self.init(
                unchecked: .invalid(
                    .invalidValue(
                        entity: String(describing: Object.self), field: "Where",
                        reason: "the predicate nests \(depth) levels deep; Strata accepts at most "
                            + "\(WherePredicate.maximumDepth) (see \"Limits of a predicate\" in Docs/Querying.md)"
                    )),
                depth: 1)
            return
        }
        self.init(unchecked: predicate, depth: depth)
    }

    /// The operands joined by AND (`conjunction`) or OR, flat: an operand that
    /// is a list of the same operator gives its terms. An invalid operand makes
    /// the whole predicate invalid, with its error.
    ///
    /// When the first operand is such a list, the result extends it (see
    /// ``TermList``), so that `a && b && c …` costs O(1) a term to build.
    static func combining(_ operands: [Where<Object>], conjunction: Bool) -> Where<Object> {
        var combined = combiningBuilt(operands, conjunction: conjunction)
        // Without a class, a format is invalid until a clause list parses it
        // again: the combination is kept to be built again with it.
        if operands.contains(where: { $0.deferred != nil }) {
            combined.deferred = .combined(operands.map(DeferredWhere.init), conjunction: conjunction)
        }
        return combined
    }

    private static func combiningBuilt(_ operands: [Where<Object>], conjunction: Bool) -> Where<Object> {
        var base: TermList?
        var terms: [WherePredicate] = []
        var depth = 1
        for operand in operands {
            switch operand.predicate {
            case .invalid:
                return operand
            case .and(let inner) where conjunction && !inner.isEmpty,
                .or(let inner) where !conjunction && !inner.isEmpty:
                if base == nil, terms.isEmpty {
                    base = inner
                } else {
                    terms.append(contentsOf: inner.terms)
                }
                depth = max(depth, operand.depth)
            default:
                terms.append(operand.predicate)
                depth = max(depth, operand.depth + 1)
            }
        }
        let list = base?.appending(terms) ?? TermList(terms)
        return Where(conjunction ? .and(list) : .or(list), depth: depth)
    }

    /// The predicate that matches exactly the objects this one does not.
    var negated: Where<Object> {
        if let deferred {
            var negated = self
            negated.deferred = .negated(deferred)
            return negated
        }
        if case .invalid = predicate { return self }
        let negated = predicate.negated
        return Where(negated, depth: negated.depth)
    }
}
