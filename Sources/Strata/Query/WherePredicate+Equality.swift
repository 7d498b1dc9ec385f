// Clauses compare by what they say, as CoreStore's do (its `Where`, `OrderBy`,
// `GroupBy`, `Select` and `SelectTerm` are `Hashable`): two predicates are
// equal when their normalised trees are, so `!(!p) == p` and `a && b && c`
// built in two steps equals one built in three. Equality is structural, not
// logical: `a && b` and `b && a` differ, as CoreStore's NSPredicates do.
// Values compare as SQL sees them (``StoredValue/isIdentical(to:)``): text
// byte for byte, so `"é"` and `"e\u{301}"` are two predicates, as they are
// two queries; a NaN equals itself, so every predicate equals itself.

extension WherePredicate: Hashable {
    static func == (lhs: WherePredicate, rhs: WherePredicate) -> Bool {
        switch (lhs, rhs) {
        case let (.constant(a), .constant(b)):
            return a == b
        case let (.compare(p, op, v), .compare(q, op2, w)):
            return p == q && op == op2 && v.isIdentical(to: w)
        case let (.isIn(p, a), .isIn(q, b)):
            return p == q && a.values.elementsEqual(b.values) { $0.isIdentical(to: $1) }
        case let (.between(p, low, high), .between(q, low2, high2)):
            return p == q && low.isIdentical(to: low2) && high.isIdentical(to: high2)
        case let (.text(p, op, pattern, options), .text(q, op2, pattern2, options2)):
            return p == q && op == op2 && pattern.hasSameUTF8(as: pattern2) && options == options2
        case let (.and(a), .and(b)), let (.or(a), .or(b)):
            return a.count == b.count && a.terms.elementsEqual(b.terms)
        case let (.not(a), .not(b)):
            return a == b
        case let (.members(owner, relationship, quantifier, inner),
                  .members(owner2, relationship2, quantifier2, inner2)):
            return owner == owner2 && relationship == relationship2 && quantifier == quantifier2
                && inner == inner2
        case let (.count(owner, relationship, op, n), .count(owner2, relationship2, op2, n2)):
            return owner == owner2 && relationship == relationship2 && op == op2 && n == n2
        case let (.sql(text, arguments), .sql(text2, arguments2)):
            return text == text2 && arguments.elementsEqual(arguments2) { $0.isIdentical(to: $1) }
        case let (.invalid(a), .invalid(b)):
            return a.debugDescription == b.debugDescription
        default:
            return false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .constant(let value):
            hasher.combine(0)
            hasher.combine(value)
        case .compare(let path, let op, let value):
            hasher.combine(1)
            hasher.combine(path)
            hasher.combine(op)
            hasher.combine(value)
        case .isIn(let path, let values):
            hasher.combine(2)
            hasher.combine(path)
            hasher.combine(values.values)
        case .between(let path, let low, let high):
            hasher.combine(3)
            hasher.combine(path)
            hasher.combine(low)
            hasher.combine(high)
        case .text(let path, let op, let pattern, let options):
            hasher.combine(4)
            hasher.combine(path)
            hasher.combine(op)
            hasher.combine(pattern)
            hasher.combine(options)
        case .and(let terms), .or(let terms):
            hasher.combine(self.isConjunction ? 5 : 6)
            hasher.combine(terms.count)
            for term in terms.terms { hasher.combine(term) }
        case .not(let inner):
            hasher.combine(7)
            hasher.combine(inner)
        case .members(let owner, let relationship, let quantifier, let inner):
            hasher.combine(8)
            hasher.combine(owner)
            hasher.combine(relationship)
            hasher.combine(quantifier)
            hasher.combine(inner)
        case .count(let owner, let relationship, let op, let n):
            hasher.combine(9)
            hasher.combine(owner)
            hasher.combine(relationship)
            hasher.combine(op)
            hasher.combine(n)
        case .sql(let text, let arguments):
            hasher.combine(10)
            hasher.combine(text)
            hasher.combine(arguments)
        case .invalid(let error):
            hasher.combine(11)
            hasher.combine(error.debugDescription)
        }
    }

    private var isConjunction: Bool {
        if case .and = self { return true }
        return false
    }
}

extension Where: Hashable {
    /// Whether the two predicates are the same tree (see `WherePredicate+Equality`).
    public static func == (lhs: Where, rhs: Where) -> Bool {
        lhs.predicate == rhs.predicate
    }

    /// Hashes the predicate's tree, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(predicate)
    }
}
