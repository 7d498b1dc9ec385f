import Foundation

/// Errors compare as CoreStore's `CoreStoreError` does, so that a test or a
/// caller can write `error == .userCancelled`, or
/// `#expect(throws: StrataError.userCancelled) { ... }` in Swift Testing.
///
/// Two errors are equal when they are the same case with equal values. An
/// error of your own inside ``userError(_:)`` (or `migrationStepThrew`) is
/// compared with `==` when its type is `Equatable`, by identity when it is a
/// class, and otherwise by type (and, for an enum, case: its `NSError` code).
///
/// ```swift
/// do {
///     try stack.perform(synchronous: { tx in try tx.cancel() })
/// } catch {
///     print(error == .userCancelled)   // true
/// }
/// ```
extension StrataError: Hashable {
    public static func == (lhs: StrataError, rhs: StrataError) -> Bool {
        switch (lhs, rhs) {
        case let (.storage(p1, r1), .storage(p2, r2)): return p1 == p2 && r1 == r2
        case let (.notADatabase(p1, r1), .notADatabase(p2, r2)): return p1 == p2 && r1 == r2
        case let (.readOnlyStore(p1), .readOnlyStore(p2)): return p1 == p2
        case (.storeNotAdded, .storeNotAdded): return true
        case let (.storeNotFound(e1, c1), .storeNotFound(e2, c2)): return e1 == e2 && c1 == c2
        case let (.crossStoreTransaction(c1), .crossStoreTransaction(c2)): return c1 == c2
        case let (.schemaMismatch(p1, s1, c1), .schemaMismatch(p2, s2, c2)):
            return p1 == p2 && s1 == s2 && c1 == c2
        case let (.invalidSchema(e1, f1, r1), .invalidSchema(e2, f2, r2)):
            return e1 == e2 && f1 == f2 && r1 == r2
        case let (.invalidMigrationChain(r1), .invalidMigrationChain(r2)): return r1 == r2
        case let (.migrationFailed(s1, d1, e1, f1, r1), .migrationFailed(s2, d2, e2, f2, r2)):
            return s1 == s2 && d1 == d2 && e1 == e2 && f1 == f2 && r1 == r2
        case let (.migrationStepThrew(s1, d1, e1, x1), .migrationStepThrew(s2, d2, e2, x2)):
            return s1 == s2 && d1 == d2 && e1 == e2 && sameError(x1, x2)
        case let (.progressiveMigrationPrevented(p1, v1), .progressiveMigrationPrevented(p2, v2)):
            return p1 == p2 && v1 == v2
        case let (.invalidValue(e1, f1, r1), .invalidValue(e2, f2, r2)):
            return e1 == e2 && f1 == f2 && r1 == r2
        case let (.uniqueConstraintViolation(e1, f1), .uniqueConstraintViolation(e2, f2)):
            return e1 == e2 && f1 == f2
        case let (.deleteDenied(e1, r1, c1), .deleteDenied(e2, r2, c2)):
            return e1 == e2 && r1 == r2 && c1 == c2
        case (.nestedTransaction, .nestedTransaction): return true
        case let (.sqlite(c1, m1, s1), .sqlite(c2, m2, s2)): return c1 == c2 && m1 == m2 && s1 == s2
        case let (.postgreSQL(c1, m1, s1), .postgreSQL(c2, m2, s2)):
            return c1 == c2 && m1 == m2 && s1 == s2
        case let (.serverUnavailable(p1, r1), .serverUnavailable(p2, r2)): return p1 == p2 && r1 == r2
        case (.userCancelled, .userCancelled): return true
        case let (.userError(x1), .userError(x2)): return sameError(x1, x2)
        default: return false
        }
    }

    /// Hashes the case and its plain values; an error of your own inside is
    /// left out (equal errors are of the same case, so they still hash alike).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .userError: hasher.combine("userError")
        case let .migrationStepThrew(source, destination, entity, _):
            hasher.combine("migrationStepThrew")
            hasher.combine(source)
            hasher.combine(destination)
            hasher.combine(entity)
        default:
            // Every other case's description is made of its values alone.
            hasher.combine(debugDescription)
        }
    }
}

/// Whether two errors of callers' code are the same: by `==` for an
/// `Equatable` error, by identity for a class, else by type, domain and code.
private func sameError(_ lhs: any Error, _ rhs: any Error) -> Bool {
    // Through `Any`: cast straight from `any Error`, every error would pass as
    // an `NSError`, which is `Equatable`.
    if let lhs = (lhs as Any) as? any Equatable { return lhs.isEqual(toAny: rhs) }
    guard type(of: lhs) == type(of: rhs) else { return false }
    if type(of: lhs) is AnyClass { return (lhs as AnyObject) === (rhs as AnyObject) }
    let (left, right) = (lhs as NSError, rhs as NSError)
    return left.domain == right.domain && left.code == right.code
}

extension Equatable {
    /// `self == other` when `other` is of the same type; `false` otherwise.
    fileprivate func isEqual(toAny other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
