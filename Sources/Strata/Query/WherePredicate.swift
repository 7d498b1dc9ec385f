/// The expression tree behind every ``Where``: compiled to SQL for fetches and
/// evaluated in memory for monitors, with the same answers.
///
/// The operators that build a ``Where`` keep the tree normalised (see
/// `WherePredicate+Normalization`): lists of one operator are flat, `.not`
/// only wraps a test that has no opposite, and no tree is deeper than
/// ``maximumDepth``, so compiling, evaluating and freeing one never recurse far.
indirect enum WherePredicate: Sendable {
    enum Comparison: String, Sendable {
        case equal = "="
        case notEqual = "<>"
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    enum Quantifier: Sendable {
        case any, all, none
    }

    case constant(Bool)
    /// `value op operand`; `==`/`!=` with NULL test for NULL, and `!=` is true
    /// when exactly one side is NULL (as in Swift).
    case compare(ValuePath, Comparison, StoredValue)
    /// Membership, tested with one hash lookup in memory (NULL matches a NULL value).
    case isIn(ValuePath, StoredValueSet)
    case between(ValuePath, StoredValue, StoredValue)
    case text(ValuePath, TextMatching.Operation, String, TextOptions)
    case and(TermList)
    case or(TermList)
    /// Matches exactly the objects the inner predicate does not match.
    case not(WherePredicate)
    /// A to-many relationship, reached through `owner` (to-one links), whose
    /// members satisfy `predicate` (on the target entity) any/all/none.
    case members(owner: ValuePath, relationship: String, Quantifier, WherePredicate)
    case count(owner: ValuePath, relationship: String, Comparison, Int)
    /// Raw SQL over the entity's columns: fetches only, not evaluable in memory.
    case sql(String, [StoredValue])
    /// A value that could not be stored (NaN, for example); compiling throws.
    case invalid(StrataError)

    /// Whether the predicate can be evaluated in memory (it holds no raw SQL).
    var isEvaluableInMemory: Bool {
        switch self {
        case .sql: return false
        case .and(let terms), .or(let terms): return terms.terms.allSatisfy(\.isEvaluableInMemory)
        case .not(let inner), .members(_, _, _, let inner): return inner.isEvaluableInMemory
        default: return true
        }
    }

    /// Whether the predicate reads through a relationship (to-one path or to-many).
    var readsRelationships: Bool {
        switch self {
        case .compare(let path, _, _), .isIn(let path, _), .between(let path, _, _),
             .text(let path, _, _, _):
            return !path.relationships.isEmpty
        case .and(let terms), .or(let terms): return terms.terms.contains(where: \.readsRelationships)
        case .not(let inner): return inner.readsRelationships
        case .members, .count: return true
        case .constant, .sql, .invalid: return false
        }
    }
}
